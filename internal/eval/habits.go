package eval

// Shell habits at run time: a builtin that shares its name with a
// familiar program (ls, rm, cp, ...) refuses that program's flags, so its
// error says how to reach the program itself.

import (
	"strconv"
	"strings"
)

// programNamed are the builtins a POSIX user knows as programs.
var programNamed = map[string]bool{
	"ls": true, "rm": true, "cp": true, "mv": true, "mkdir": true, "cat": true, "head": true,
	"ln": true, "touch": true, "which": true, "pwd": true, "sleep": true, "env": true, "stat": true,
	"cd": true,
}

// programHint is "; the ls program: run("ls", "-la")" for a builtin named
// like a program, spelling the call's flags as the program would get them.
func programHint(name string, flags []Flag) string {
	if !programNamed[name] || len(flags) == 0 {
		return ""
	}
	args := []string{strconv.Quote(name)}
	shorts := ""
	for _, f := range flags {
		if f.Short {
			shorts += f.Name
			continue
		}
		args = append(args, strconv.Quote("--"+f.Name))
	}
	if shorts != "" {
		args = append(args[:1], append([]string{strconv.Quote("-" + shorts)}, args[1:]...)...)
	}
	return "; the " + name + " program itself: run(" + strings.Join(args, ", ") + ")"
}
