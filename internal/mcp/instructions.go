package mcp

// instructions is the server's initialize instructions: a short primer of
// Shoal for a model that knows POSIX shells. Every form in it runs as
// written (TestInstructionsFormsRun runs them through a real kernel).
const instructions = `Shoal is a structured shell, not bash: commands answer typed values (tables, records, lists, outcomes) and you work on them with methods. Run source with shoal_exec.
- No | pipes: chain methods on the value, ` + "`ls.where(.size > 1kb).map(x => x.name)`" + `, or feed a value to a program's stdin, ` + "`(cat notes.txt).feed(^sort)`" + `, ` + "`\"payload\".feed(^wc -c)`" + `.
- Blocks and functions: ` + "`let n = 3`" + `, ` + "`for f in glob(\"*.md\") { echo (f) }`" + `, ` + "`if n > 0 { \"yes\" } else { \"no\" }`" + `, ` + "`fn twice(x) { x * 2 }`" + `, lambdas ` + "`x => x * 2`" + `.
- Variables have no $: read the environment as ` + "`env.HOME`" + ` or ` + "`env.PATH.split(\":\")`" + `, set it with ` + "`env.FOO = \"bar\"`" + `; put a value into a command's words with parentheses, ` + "`echo (env.HOME)`" + `.
- Redirects are >, >> and < (` + "`git log > log.txt`" + `); there is no 2>: a failed command's outcome has .status, .out and .err, and ` + "`try { cmd } catch err { err.stderr }`" + ` catches one.
- ^ runs a program without Shoal's adapter, words passed as written: ` + "`^git log --oneline -3`" + `; ` + "`run(\"ls\", \"-la\")`" + ` runs a program a builtin shadows; ` + "`sh { printf '%s\\n' \"$HOME\" | sort }`" + ` runs a POSIX shell snippet when nothing else will do.
- Every answer has a ref (out:N): read parts of it with shoal_get or shoal://out/N instead of running the command again.
- A failed call is a tool error {code, error, message, data, next}: error is a specific code (not_found, parse_error, approval_required…), next, when there is one, says what to do and which call does it.
- Approval: shoal_plan shows what source would do (effects, reversibility, the policy's verdict) without running it. A call the policy holds answers error approval_required with next.plan_ref: an approver approves that plan, then shoal_apply {plan_ref} runs it exactly as planned.`
