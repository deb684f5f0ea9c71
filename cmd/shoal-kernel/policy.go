package main

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/BurntSushi/toml"
)

// checkPolicy reads a Leash policy file far enough to refuse a missing or
// malformed one at start. Enforcement belongs to the leash package.
func checkPolicy(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("policy %s: %w", path, err)
	}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return fmt.Errorf("policy %s: malformed TOML: %w", path, err)
	}
	if err := checkPolicyDoc(doc); err != nil {
		return fmt.Errorf("policy %s: %w", path, err)
	}
	return nil
}

// stringListFields are per-principal fields holding string arrays.
var stringListFields = map[string]bool{
	"net_connect": true, "net": true, "net_listen": true, "proc_spawn": true,
	"env_read": true, "env_write": true, "secret_use": true,
	"fs.read": true, "fs.write": true, "fs.delete": true,
}

var enumFields = map[string][]string{
	"auto_apply": {"never", "in-grant", "reversible"},
	"opaque":     {"deny", "ask", "allow"},
}

func checkPolicyDoc(doc map[string]any) error {
	raw, ok := doc["principal"]
	if !ok {
		return nil
	}
	principals, ok := raw.(map[string]any)
	if !ok {
		return errors.New(`"principal" must be a table of principals`)
	}
	names := make([]string, 0, len(principals))
	for n := range principals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		p, ok := principals[name].(map[string]any)
		if !ok {
			return fmt.Errorf("principal %q must be a table", name)
		}
		if err := checkPrincipal(name, "", p); err != nil {
			return err
		}
	}
	return nil
}

func checkPrincipal(name, prefix string, p map[string]any) error {
	for k, v := range p {
		key := prefix + k
		if sub, ok := v.(map[string]any); ok && key == "fs" {
			if err := checkPrincipal(name, "fs.", sub); err != nil {
				return err
			}
			continue
		}
		switch {
		case stringListFields[key]:
			list, ok := v.([]any)
			if !ok {
				return fmt.Errorf("principal %q: %s must be an array of strings", name, key)
			}
			for _, item := range list {
				if _, ok := item.(string); !ok {
					return fmt.Errorf("principal %q: %s must be an array of strings", name, key)
				}
			}
		case enumFields[key] != nil:
			s, _ := v.(string)
			if !contains(enumFields[key], s) {
				return fmt.Errorf("principal %q: %s must be one of %v", name, key, enumFields[key])
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
