package mcp

import (
	"os/user"
	"strings"
)

// kernelEnv is the environment of a kernel the facade starts: its own,
// plus HOME from the user database when the MCP client started the
// facade without one (some pass only PATH), since the kernel locates its
// state directory under HOME when XDG_STATE_HOME is not set either.
func kernelEnv(env []string) []string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok && v != "" {
			return env
		}
	}
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		return env // the kernel says what is missing
	}
	return append(env[:len(env):len(env)], "HOME="+u.HomeDir)
}
