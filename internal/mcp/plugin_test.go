package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/mcp"
)

// repoRoot is the repository's root, from this package's directory.
const repoRoot = "../.."

func readJSON(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func wantFile(t *testing.T, path string) {
	t.Helper()
	if fi, err := os.Stat(path); err != nil || fi.IsDir() {
		t.Errorf("%s is not a file: %v", path, err)
	}
}

// TestClaudePlugin: the marketplace entry names the plugin folder; its
// manifest, its .mcp.json and its skill parse and name what exists;
// the server it starts is shoal-mcp with flags shoal-mcp has; and every
// Shoal example in the skill parses (the kernel's parse method).
func TestClaudePlugin(t *testing.T) {
	var market struct {
		Name    string `json:"name"`
		Owner   struct{ Name string }
		Plugins []struct {
			Name, Source, Description string
		}
	}
	readJSON(t, filepath.Join(repoRoot, ".claude-plugin", "marketplace.json"), &market)
	if market.Name == "" || market.Owner.Name == "" || len(market.Plugins) != 1 {
		t.Fatalf("marketplace = %+v", market)
	}
	entry := market.Plugins[0]
	if !strings.HasPrefix(entry.Source, "./") {
		t.Fatalf("plugin source %q is not a relative path", entry.Source)
	}
	dir := filepath.Join(repoRoot, entry.Source)

	var manifest struct {
		Name, Version, Description string
	}
	readJSON(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), &manifest)
	if manifest.Name != entry.Name || manifest.Version == "" || manifest.Description == "" {
		t.Errorf("plugin.json = %+v, marketplace entry %q", manifest, entry.Name)
	}

	var servers struct {
		MCPServers map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(dir, ".mcp.json"), &servers)
	srv, ok := servers.MCPServers["shoal"]
	if !ok || srv.Type != "stdio" || len(servers.MCPServers) != 1 {
		t.Fatalf(".mcp.json = %+v", servers)
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "cmd", srv.Command)); err != nil {
		t.Errorf(".mcp.json starts %q, which is no command of this repository", srv.Command)
	}
	for _, a := range srv.Args {
		if name, ok := strings.CutPrefix(a, "--"); ok && !strings.Contains(mcp.Usage, "--"+strings.SplitN(name, "=", 2)[0]) {
			t.Errorf(".mcp.json passes %s, which shoal-mcp's usage does not describe", a)
		}
	}

	skill := filepath.Join(dir, "skills", "shoal", "SKILL.md")
	wantFile(t, skill)
	b, err := os.ReadFile(skill)
	if err != nil {
		t.Fatal(err)
	}
	front := regexp.MustCompile(`(?s)\A---\nname: (\S+)\ndescription: ([^\n]+)\n---\n`).FindSubmatch(b)
	if front == nil || string(front[1]) != "shoal" {
		t.Fatalf("SKILL.md has no front matter naming the skill")
	}
	for _, tool := range regexp.MustCompile("`(shoal_[a-z_]+)").FindAllSubmatch(b, -1) {
		name := string(tool[1])
		if name != "shoal_pty_" && !strings.Contains(mcp.Usage+toolNames(t), name) {
			t.Errorf("SKILL.md names %s, which is no tool", name)
		}
	}

	// Each example block parses.
	k := startKernel(t)
	c, err := client.Dial(ctx(t), k.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	blocks := regexp.MustCompile("(?s)```shoal\n(.*?)```").FindAllSubmatch(b, -1)
	if len(blocks) < 5 {
		t.Fatalf("SKILL.md has %d shoal examples", len(blocks))
	}
	for _, blk := range blocks {
		if _, err := c.Parse(ctx(t), string(blk[1])); err != nil {
			t.Errorf("a SKILL.md example does not parse: %v\n%s", err, blk[1])
		}
	}
	// The Shoal side of the table of shell habits parses too.
	for _, row := range regexp.MustCompile("(?m)^\\| `[^\\n]*` \\| `([^`]+)`").FindAllSubmatch(b, -1) {
		src := strings.ReplaceAll(string(row[1]), `\|`, "|")
		if _, err := c.Parse(ctx(t), src); err != nil {
			t.Errorf("the form %q does not parse: %v", src, err)
		}
	}
}

// toolNames are the facade's tool names, from the checked-in golden file.
func toolNames(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tools.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
