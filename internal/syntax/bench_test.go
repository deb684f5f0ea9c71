package syntax

import (
	"sort"
	"strings"
	"testing"
	"time"
)

// benchChunk is a corpus-like script fragment mixing declarations,
// expressions, commands, strings, matches and interpreter blocks.
const benchChunk = `# Report helpers.
fn summarize(rows: list<record>, limit: int = 10) -> str {
  let total = rows.map(.size).sum()
  let names = rows.where(.size > 1kb).map(r => r.name).take(limit)
  "total {total} across {rows.len()} files: {names.join(", ")}"
}
var count = 0
for p in glob("src/**/*.go") { count += 1 }
let files = (ls ./src)
  .where(.type == "file")
  .sort_by(f => f.modified)
let status = match files.len() {
  0 => "empty"
  1 | 2 | 3 => "few"
  int n if n > 100 => "many"
  _ => "some"
}
git status --short --branch > ./status.txt
RUST_LOG=debug cargo test --workspace -- --nocapture &
let version = (^git describe --tags).out.str().trim()
let cfg = {name: "shoal", ready: true, port: 8080, tags: ["a", "b"], timeout: 250ms}
let out_json = json.stringify(cfg, pretty: true)
let r = try { path("config.toml").read() } catch e { e.msg }
let n = (1 / 0) catch 0
let data = sh { printf '{"n": 4}' }.out
with cwd: "sub", env: {MODE: "test"} { echo (count) }
if count > 10 && version != "" { echo "big" } else { echo small }
`

func benchSource() string {
	var b strings.Builder
	for b.Len() < 10*1024 {
		b.WriteString(benchChunk)
	}
	return b.String()
}

func TestBenchSourceParses(t *testing.T) {
	src := benchSource()
	if len(src) < 10*1024 {
		t.Fatalf("bench source is %d bytes", len(src))
	}
	if _, err := Parse(src, ParseOptions{}); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkParse10KB parses a ~10 kB script and reports the 99th-percentile
// single-parse latency as p99-ns.
func BenchmarkParse10KB(b *testing.B) {
	src := benchSource()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := Parse(src, ParseOptions{}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	p99 := times[(len(times)*99)/100]
	if len(times) > 0 && (len(times)*99)/100 >= len(times) {
		p99 = times[len(times)-1]
	}
	b.ReportMetric(float64(p99.Nanoseconds()), "p99-ns")
}

// BenchmarkLex10KB lexes the benchmark script start to end in expression
// mode: the raw cost of the lexer that the parser's lookahead pays per token.
func BenchmarkLex10KB(b *testing.B) {
	src := benchSource()
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		pos, n := 0, 0
		for {
			t := lex(src, pos, exprMode)
			if t.kind == tEOF {
				break
			}
			pos, n = t.end, n+1
		}
		if n == 0 {
			b.Fatal("no tokens")
		}
	}
}
