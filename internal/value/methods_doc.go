package value

import (
	"sort"
	"sync"
)

// MethodDoc documents a method name for people (`help NAME`): one entry per
// name, whatever kinds register it; MethodOwners says which do.
type MethodDoc struct {
	// Summary is one line: what it does.
	Summary string
	// Usage is the call's synopsis, e.g. ".sort_by(f)".
	Usage string
	// Example is one or more lines of Shoal; a test parses each.
	Example string
}

// MethodHelp is the documentation of the method called name.
func MethodHelp(name string) (MethodDoc, bool) {
	d, ok := methodDocs()[name]
	return d, ok
}

// MethodOwners lists the kinds that have a method called name, sorted.
func MethodOwners(name string) []string { return mOwners(name) }

// AllMethodNames lists every registered method name once, sorted.
func AllMethodNames() []string {
	seen := map[string]bool{}
	var out []string
	t := methodTable()
	for k := range numKinds {
		for n := range t[k] {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// KindNamed is the kind whose name (Kind.String) is name.
func KindNamed(name string) (Kind, bool) {
	for k := range numKinds {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}

// methodDocs is the help of every method name, built when help is first
// asked for; a test fails when a registered name has none.
var methodDocs = sync.OnceValue(func() map[string]MethodDoc {
	return map[string]MethodDoc{
		"abs":         {"the absolute value", ".abs()", "(-3).abs()"},
		"ago":         {"the datetime this long before now", ".ago()", "(2h).ago()"},
		"all":         {"whether every item satisfies the predicate", ".all(f)", "[2, 4].all(x => x % 2 == 0)"},
		"also":        {"call f with the value for its side effect and return the value unchanged", ".also(f)", "[3, 1].also(xs => { touch \"seen.txt\" }).sort()"},
		"any":         {"whether some item satisfies the predicate", ".any(f)", "ls.any(.size > 1mb)"},
		"buffer":      {"let a slow reader fall behind by up to N items", ".buffer([n])", "every(1s).buffer(16).take(3).collect()"},
		"ceil":        {"round up to an integer", ".ceil()", "2.1.ceil()"},
		"chars":       {"the characters of a string, as a list", ".chars()", "\"abc\".chars()"},
		"chunks":      {"split into lists of n items (the last may be shorter)", ".chunks(n)", "[1, 2, 3, 4, 5].chunks(2)"},
		"collect":     {"gather every item into a list (a stream is read to its end)", ".collect()", "(1..4).collect()"},
		"columns":     {"the column names of a table", ".columns()", "ls.columns()"},
		"contains":    {"whether it holds the item, substring or key", ".contains(x)", "\"shoal\".contains(\"oa\")\n[1, 2].contains(2)"},
		"count":       {"the number of items (as len)", ".count()", "[1, 2, 3].count()\nls.where(.type == \"dir\").count()"},
		"day":         {"the day of the month", ".day()", "now().day()"},
		"debounce":    {"pass an item only after the stream is quiet for the duration", ".debounce(d)", "watch(\"src\").debounce(200ms)"},
		"display":     {"the text a value displays as (lossy for bytes)", ".display()", "3.5.display()"},
		"dedupe":      {"drop an item equal to the one just before it", ".dedupe()", "every(1s).map(x => 1).dedupe().take(1).collect()"},
		"distinct":    {"drop items seen before, anywhere in the stream", ".distinct()", "every(1s).map(x => 1).distinct().take(1).collect()"},
		"each":        {"call f on every item, for its effect", ".each(f)", "[\"a.txt\", \"b.txt\"].each(f => { touch (f) })"},
		"ends_with":   {"whether the string ends with the suffix", ".ends_with(s)", "\"notes.md\".ends_with(\".md\")"},
		"enumerate":   {"pair each item with its index: [index, item]", ".enumerate()", "[\"a\", \"b\"].enumerate()"},
		"filter":      {"keep the items that satisfy f (like where)", ".filter(f)", "[1, 2, 3, 4].filter(x => x > 2)"},
		"find":        {"the first item that satisfies f, or null", ".find(f)", "ls.find(.name == \"README.md\")"},
		"first":       {"the first item (or the first n, as a list)", ".first([n])", "[3, 1, 2].first()\nls.first(5)"},
		"flat_map":    {"map each item to a list and join the lists", ".flat_map(f)", "[1, 2].flat_map(x => [x, x])"},
		"flatten":     {"join nested lists one level", ".flatten()", "[[1, 2], [3]].flatten()"},
		"floor":       {"round down to an integer", ".floor()", "2.9.floor()"},
		"fold":        {"combine the items from an initial value (like reduce)", ".fold(init, f)", "[1, 2, 3].fold(0, (acc, x) => acc + x)"},
		"from_now":    {"the datetime this long after now", ".from_now()", "(30m).from_now()"},
		"get":         {"the item at an index or the field of a key, or a default", ".get(key, [default])", "[1, 2].get(5, 0)\n{a: 1}.get(\"b\", 2)"},
		"group":       {"group items by a key: a table of {key, values} (like group_by)", ".group(f)", "[1, 2, 3, 4].group(x => x % 2)"},
		"group_by":    {"group items by a key: a table of {key, values}", ".group_by(f)", "ls.group_by(.type)"},
		"hour":        {"the hour", ".hour()", "now().hour()"},
		"is_empty":    {"whether it has no items, characters or fields", ".is_empty()", "\"\".is_empty()\n[].is_empty()"},
		"items":       {"the fields of a record as [key, value] pairs", ".items()", "{a: 1, b: 2}.items()"},
		"join":        {"the items as text joined by a separator", ".join([sep])", "[\"a\", \"b\"].join(\", \")"},
		"json":        {"the value as JSON text", ".json()", "{ok: true, n: 3}.json()"},
		"keys":        {"the field names of a record", ".keys()", "{a: 1, b: 2}.keys()"},
		"last":        {"the last item (or the last n, as a list)", ".last([n])", "[3, 1, 2].last()"},
		"len":         {"the number of items, characters, bytes or fields", ".len()", "\"shoal\".len()\nls.len()"},
		"lines":       {"the lines of a string", ".lines()", "\"a\\nb\".lines()"},
		"lower":       {"the string in lower case", ".lower()", "\"ShOaL\".lower()"},
		"map":         {"apply f to every item", ".map(f)", "[1, 2, 3].map(x => x * 10)\nls.map(.name)"},
		"match":       {"the text of the first match of a regex, or null", ".match(re)", "\"v1.2.3\".match(re\"[0-9]+\")"},
		"matches":     {"whether the string matches a regex", ".matches(re)", "\"v1.2.3\".matches(re\"^v[0-9]\")"},
		"max":         {"the largest item", ".max()", "[3, 9, 2].max()\nls.map(.size).max()"},
		"merge":       {"a record with another's fields added (theirs win); two streams interleaved", ".merge(other)", "{a: 1}.merge({b: 2})"},
		"min":         {"the smallest item", ".min()", "[3, 9, 2].min()"},
		"minute":      {"the minute", ".minute()", "now().minute()"},
		"month":       {"the month, 1 to 12", ".month()", "now().month()"},
		"parse_float": {"read the string as a float", ".parse_float()", "\"2.5\".parse_float()"},
		"parse_int":   {"read the string as an int", ".parse_int()", "\"42\".parse_int()"},
		"pattern":     {"the text of a glob", ".pattern()", "glob(\"*.md\").pattern()"},
		"reduce":      {"combine the items with f, from an initial value", ".reduce(init, f)", "[1, 2, 3].reduce(0, (acc, x) => acc + x)"},
		"replace":     {"replace every occurrence of a substring or regex", ".replace(from, to)", "\"a-b-c\".replace(\"-\", \"+\")"},
		"reverse":     {"the items (or characters) in reverse order", ".reverse()", "[1, 2, 3].reverse()"},
		"round":       {"round to the nearest integer", ".round()", "2.5.round()"},
		"scan":        {"running results of f from an initial value, one per item", ".scan(init, f)", "every(1s).scan(0, (acc, x) => acc + 1).take(3).collect()"},
		"second":      {"the second", ".second()", "now().second()"},
		"select":      {"keep only the named columns", ".select(col...)", "ls.select(\"name\", \"size\")"},
		"set":         {"a record with one field set", ".set(key, value)", "{a: 1}.set(\"b\", 2)"},
		"skip":        {"drop the first n items", ".skip(n)", "[1, 2, 3, 4].skip(2)"},
		"sort":        {"the items in ascending order", ".sort()", "[3, 1, 2].sort()"},
		"sort_by":     {"the items ordered by a key", ".sort_by(f)", "ls.sort_by(.size)\n[\"bb\", \"a\"].sort_by(x => x.len())"},
		"split":       {"split the string at a separator (whitespace by default)", ".split([sep])", "\"a,b,c\".split(\",\")"},
		"starts_with": {"whether the string starts with the prefix", ".starts_with(s)", "\"shoal\".starts_with(\"sh\")"},
		"str":         {"the value as a string (bytes must be UTF-8)", ".str()", "42.str()"},
		"stream":      {"a lazy stream over the items", ".stream()", "[1, 2, 3].stream().map(x => x * 2).collect()"},
		"sum":         {"the sum of the items", ".sum()", "[1, 2, 3].sum()\nls.map(.size).sum()"},
		"take":        {"the first n items", ".take(n)", "[1, 2, 3, 4].take(2)"},
		"take_until":  {"items until the predicate holds or the signal stream yields", ".take_until(f)", "[1, 2, 5, 3].stream().take_until(x => x > 3).collect()"},
		"tap":         {"call f with the value for its side effect and return the value unchanged", ".tap(f)", "[1, 2].tap(xs => { touch \"seen.txt\" }).sum()"},
		"tee":         {"n independent readers of the same items", ".tee([n])", "let pair = [1, 2].tee()"},
		"throttle":    {"pass at most one item per duration", ".throttle(d)", "every(100ms).throttle(1s).take(2).collect()"},
		"trim":        {"the string without surrounding whitespace", ".trim()", "\"  hi  \".trim()"},
		"uniq":        {"drop repeated items, keeping the first of each", ".uniq()", "[1, 1, 2, 1].uniq()"},
		"upper":       {"the string in upper case", ".upper()", "\"shoal\".upper()"},
		"values":      {"the field values of a record", ".values()", "{a: 1, b: 2}.values()"},
		"where":       {"keep the items (rows) that satisfy f", ".where(f)", "ls.where(.size > 1kb)\n[1, 2, 3].where(x => x != 2)"},
		"window":      {"group items into lists of n, or per duration", ".window(n | d)", "every(100ms).window(3).take(1).collect()"},
		"words":       {"the whitespace-separated words of a string", ".words()", "\"a b  c\".words()"},
		"year":        {"the year", ".year()", "now().year()"},
		"zip":         {"pair items with another collection's: [a, b] lists", ".zip(other)", "[1, 2].zip([\"a\", \"b\"])"},
	}
})
