package eval

// The topics of `help TOPIC`, kept as data: prose paragraphs and code
// blocks apart, so a test can run every Shoal block (HelpExamples) and a
// broken example fails it instead of teaching code that does not parse.

import (
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// helpTopic is one topic of `help TOPIC`.
type helpTopic struct {
	name, summary string
	parts         []topicPart
}

// topicPart is a paragraph of prose (text) or a code block (code, shown
// indented). A code block is Shoal unless lang names another language
// (its examples are then not run). A part built from data elsewhere (the
// error codes) is gen, called when the topic is shown, not at init.
type topicPart struct {
	text, code, lang string
	gen              func() string
}

// prose and code build topic parts.
func prose(s string) topicPart { return topicPart{text: s} }
func code(s string) topicPart  { return topicPart{code: s} }

// render is the topic's text: parts separated by a blank line, code
// indented by two spaces.
func (tp helpTopic) render() string {
	var b strings.Builder
	for i, p := range tp.parts {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if p.gen != nil {
			b.WriteString(p.gen())
			continue
		}
		if p.code == "" {
			b.WriteString(p.text)
			continue
		}
		for j, line := range strings.Split(p.code, "\n") {
			if j > 0 {
				b.WriteString("\n")
			}
			if line != "" {
				b.WriteString("  " + line)
			}
		}
	}
	return b.String()
}

// helpTopics are the topics `help` lists.
var helpTopics = []helpTopic{
	{"values", "the kinds of values and their literals", []topicPart{
		prose(`Values are typed: null, bool, int, float, str, bytes, path, glob, regex,
size, duration, datetime, range, list, record, table, outcome, error,
closure, task, stream.`),
		code(`[42, 3.5, "text", 'raw', ./src/main.go, 10kb, 1.5s, 1..10]
[[1, 2, 3], {name: "api", port: 8080}, x => x * 2]`),
		prose(`Every value has methods: help TYPE lists them (help str, help list).`),
	}},
	{"commands", "commands, arguments, outcomes and external programs", []topicPart{
		prose(`A line that starts with a word is a command: a builtin (ls, cd, rm), a
function or alias you defined, or a program on PATH.`),
		code(`ls src                      # a builtin: its value is a table
git status                  # an adapted program: its output becomes a table
^git status                 # ^ skips the adapter: git's own output
let r = (git status)        # captured: r.ok, r.status, r.stdout, r.out
run("ls", "-la")            # the program where a builtin has its name`),
		prose(`A command that fails in statement position raises cmd_failed; capture it
to inspect it instead. NAME --help describes a builtin.`),
	}},
	{"pipelines", "chaining methods instead of text pipes", []topicPart{
		prose(`Values flow through methods, not through text:`),
		code(`ls.where(.size > 1mb).sort_by(.size).reverse()
json.parse((cat data.json).out.str()).keys()
[3, 1, 2].sort().map(x => x * 10)`),
		prose(`A line that starts with . continues the expression before it:`),
		code(`(ls .)
  .where(.type == "file")
  .len()`),
		prose(`Bytes reach a program with .feed (there is no | between commands):`),
		code(`"b\na\n".feed(^sort)`),
	}},
	{"errors", "errors, codes, try and catch", []topicPart{
		prose(`Errors carry a code (type_error, not_found, cmd_failed, ...), a message and a hint.`),
		code(`try { rm missing.txt } catch err { echo "failed: {err.code}" }`),
		prose(`A failed external command in statement position raises cmd_failed; in
value position its outcome says ok: false.`),
		{gen: errorCodesHelp},
	}},
	{"jobs", "background tasks and job control", []topicPart{
		prose(`cmd & and { ... } & run in the background and return a task.
At the prompt, what a job prints and its end ([1] done  sleep 20s) are
shown before the next prompt; jobs lists id, state and the command.`),
		code(`sleep 1s &
jobs                        # the session's tasks
fg %1                       # wait for it on the terminal`),
		code(`sleep 20s &
kill %1                     # cancel it and its processes`),
		prose(`Ctrl-Z stops the command that has the terminal; bg lets it go on.`),
	}},
	{"config", "the configuration file and the prompt", []topicPart{
		prose(`$XDG_CONFIG_HOME/shoal/shoal.toml (default ~/.config/shoal/shoal.toml) sets
history, render (colour, paging, time precision), editor (emacs or vi),
completion, colours, aliases, env and init files; prompt.toml beside it
sets the prompt:`),
		{code: `[format]
left = "$directory$git_branch$exit_status$character"`, lang: "toml"},
		prose(`Unknown keys are warnings; a bad value is an error with its line and
column. NO_COLOR turns colour off.`),
	}},
	{"keys", "line editing keys", []topicPart{
		prose(`Tab completes; Ctrl-R searches history; Ctrl-C abandons the line or stops
the running statement; Ctrl-D on an empty line leaves; Ctrl-Z stops the
command that has the terminal. An open bracket, string or block continues
on the next line.`),
	}},
	{"shell", "habits from bash and zsh, and their Shoal spelling", []topicPart{
		prose(`Shoal is not a POSIX shell: values flow, not text. The usual habits and
what to write instead:`),
		code(`env.FOO = "bar"                      # export FOO=bar
env.HOME                             # $HOME (a variable of yours: its name)
(pwd)                                # $(pwd)
(2 + 3)                              # $((2 + 3))
alias ll = ls --all                  # alias ll='ls -la'
for f in glob("*.txt") { echo (f) }  # for f in *.txt; do ...; done
path("notes.txt").is_file()          # [ -f notes.txt ]
try { ls missing.txt } catch err { }  # ls missing.txt 2>/dev/null
(cat notes.txt).feed(^wc -l)         # cat notes.txt | wc -l
ls --all                             # ls -la (or run("ls", "-la"))`),
		prose(`history shows the lines you typed (in a kernel session, the journal).`),
	}},
}

// HelpExample is one example `help` shows, for a test that runs it.
type HelpExample struct {
	// Where names it: "topic pipelines", "builtin ls", "function glob",
	// "method sort_by".
	Where string
	// Src is the Shoal source.
	Src string
}

// HelpExamples lists every Shoal example `help` shows: each topic's code
// blocks and each builtin's, function's and method's Example.
func (r *Registry) HelpExamples() []HelpExample {
	var out []HelpExample
	for _, tp := range helpTopics {
		for _, p := range tp.parts {
			if p.code != "" && p.lang == "" {
				out = append(out, HelpExample{"topic " + tp.name, p.code})
			}
		}
	}
	for _, n := range r.BuiltinNames() {
		if ex := r.builtins[n].Help.Example; ex != "" {
			out = append(out, HelpExample{"builtin " + n, ex})
		}
	}
	for _, n := range r.FuncNames() {
		if ex := r.funcs[n].Help.Example; ex != "" {
			out = append(out, HelpExample{"function " + n, ex})
		}
	}
	for _, n := range value.AllMethodNames() {
		if doc, ok := value.MethodHelp(n); ok && doc.Example != "" {
			out = append(out, HelpExample{"method " + n, doc.Example})
		}
	}
	return out
}
