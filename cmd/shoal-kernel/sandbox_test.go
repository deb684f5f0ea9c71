package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/sandbox"
)

// The test binary dispatches the trampoline as main does (before
// TestMain), so that Wrap works here.
func init() { sandbox.RunTrampolineIfRequested() }

// TestBinaryIsTheTrampoline: the real shoal-kernel binary, started as
// sandbox.Wrap starts it, confines the program before anything else in
// main runs: cat /etc/shadow is refused by the OS, an allowed file is read.
func TestBinaryIsTheTrampoline(t *testing.T) {
	if s := sandbox.Probe(); !s.FS {
		t.Skipf("Landlock filesystem rules are not enforced here: %s", s.Reason)
	}
	if _, err := os.ReadFile("/etc/shadow"); err != nil {
		t.Skipf("/etc/shadow is not readable without a sandbox here, so a refusal would prove nothing: %v", err)
	}
	bin := kernelBinary(t)
	allowed := filepath.Join(t.TempDir(), "allowed")
	os.WriteFile(allowed, []byte("ok\n"), 0o644)
	rules := sandbox.Rules{RestrictFS: true, ReadOnly: []string{"/bin", "/usr", "/lib", "/lib64", "/etc/ld.so.cache", allowed}}
	for _, c := range []struct {
		file, out, errPart string
		ok                 bool
	}{
		{"/etc/shadow", "", "Permission denied", false},
		{allowed, "ok\n", "", true},
	} {
		w, err := sandbox.Wrap(rules, []string{"/bin/sh", "-c", "cat " + c.file})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, w[1:]...) // the kernel binary in place of the test binary
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err = cmd.Run()
		if (err == nil) != c.ok || out.String() != c.out || !strings.Contains(errb.String(), c.errPart) {
			t.Errorf("cat %s through shoal-kernel: %v, stdout %q, stderr %q", c.file, err, out.String(), errb.String())
		}
	}
}

// BenchmarkTrampoline starts /bin/true through the real shoal-kernel
// binary as the trampoline, beside starting it directly (the floor): the
// price of confinement per spawn is one more exec of the kernel binary.
func BenchmarkTrampoline(b *testing.B) {
	if !sandbox.Probe().FS {
		b.Skip("Landlock filesystem rules are not enforced here")
	}
	bin := kernelBinary(b)
	rules := sandbox.Rules{RestrictFS: true, ReadOnly: []string{"/bin", "/usr", "/lib", "/lib64", "/etc/ld.so.cache"}}
	w, err := sandbox.Wrap(rules, []string{"/bin/true"})
	if err != nil {
		b.Fatal(err)
	}
	netRules := rules
	netRules.RestrictNet, netRules.ConnectTCP = true, []uint16{443}
	wn, err := sandbox.Wrap(netRules, []string{"/bin/true"})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		argv []string
	}{{"floor", []string{"/bin/true"}}, {"fs", append([]string{bin}, w[1:]...)}, {"fs+net", append([]string{bin}, wn[1:]...)}} {
		b.Run(c.name, func(b *testing.B) {
			if c.name == "fs+net" && !sandbox.Probe().Net {
				b.Skip("Landlock TCP rules are not enforced here")
			}
			for b.Loop() {
				if err := exec.Command(c.argv[0], c.argv[1:]...).Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
