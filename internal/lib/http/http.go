// Package http is the http namespace: http.get, http.post, http.put and
// http.delete send a request through the session's host gate
// (host.Host.HTTP, which asks net_connect of the URL's host:port and of
// every redirect) and answer a record {status, ok, body, json, headers}.
// A secret travels only as a header value. Its entries are one registry
// Part.
package http

import (
	"errors"
	neturl "net/url"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/value"
)

// Register adds the http namespace to p.
func Register(p *eval.Part) { p.Namespace(httpNamespace()) }

// Part is http's registry part, for eval.NewRegistry.
func Part() *eval.Part {
	p := &eval.Part{}
	Register(p)
	return p
}

// httpNamespace performs HTTP requests through the host (Host.HTTP, which
// asks net_connect of the URL's host:port and of every redirect):
//
//	http.get(url, headers: {…})        http.delete(url, headers: {…})
//	http.post(url, body, headers: {…}) http.put(url, body, headers: {…})
//
// headers may also be the last positional argument. The answer is a record
// {status, ok, body, json, headers}; a 4xx or 5xx status is an answer, not
// an error. Transport failures are net_error, a refusal denied.
func httpNamespace() *eval.Namespace {
	// verb is a member sending verb; rev is what the request may do at the
	// server (a GET changes nothing there; the others may).
	verb := func(name, verb string, withBody bool, rev, summary, example string) *eval.Member {
		usage := "http." + name + "(URL, headers: {…})"
		if withBody {
			usage = "http." + name + "(URL, BODY, headers: {…})"
		}
		return &eval.Member{Name: name, Value: httpMethod(name, verb, withBody),
			Effects: func(d *leash.Deriver) {
				if !d.Field() {
					d.Connect(rev)
				}
			},
			Help: eval.Help{Summary: summary, Usage: usage, Example: example}}
	}
	return &eval.Namespace{Name: "http",
		Help: eval.Help{Summary: "HTTP requests; each answer is {status, ok, body, json, headers}", Usage: "http.VERB(URL, ...)", Example: "http.get(\"https://example.com/\").status"},
		Members: []*eval.Member{
			verb("get", "GET", false, leash.Reversible, "send a GET request", "http.get(\"https://example.com/\").status"),
			verb("delete", "DELETE", false, leash.Irreversible, "send a DELETE request", "http.delete(\"https://example.com/item/1\")"),
			verb("post", "POST", true, leash.Irreversible, "send a POST request with a body (a record goes as JSON)", "http.post(\"https://example.com/items\", {name: \"x\"})"),
			verb("put", "PUT", true, leash.Irreversible, "send a PUT request with a body (a record goes as JSON)", "http.put(\"https://example.com/item/1\", {name: \"x\"})"),
		}}
}

// httpMethod is the member name sending verb; withBody says whether its
// second positional argument is the request body.
func httpMethod(name, verb string, withBody bool) *value.Builtin {
	fn := "http." + name
	return &value.Builtin{Name: fn, Fn: func(env value.Env, a value.Args) (value.Value, error) {
		c, ok := eval.ContextOf(env)
		if !ok {
			return nil, value.Errorf(value.CodeType, "%s needs an evaluation context", fn)
		}
		req, err := httpRequest(c, fn, verb, withBody, a)
		if err != nil {
			return nil, err
		}
		resp, err := c.Host().HTTP(c.Ctx(), req)
		if err != nil {
			return nil, eval.HostError(err)
		}
		return httpAnswer(fn, resp)
	}}
}

// httpRequest checks a call's arguments and builds its request.
func httpRequest(c eval.Context, fn, verb string, withBody bool, a value.Args) (*host.HTTPRequest, error) {
	usage := fn + "(url, headers: {…})"
	maxPos := 2
	if withBody {
		usage = fn + "(url, body, headers: {…})"
		maxPos = 3
	}
	if len(a.Pos) < 1 || len(a.Pos) > maxPos {
		return nil, value.Errorf(value.CodeArg, "%s takes a URL%s and headers; usage: %s", fn, map[bool]string{true: ", a body"}[withBody], usage)
	}
	var headers value.Value
	for _, na := range a.Named {
		switch {
		case na.Name == "headers":
			headers = na.Value
		case na.Name == "body" && withBody:
			if len(a.Pos) > 1 {
				return nil, value.Errorf(value.CodeArg, "%s: body given twice", fn)
			}
			a.Pos = append(a.Pos, na.Value)
		default:
			return nil, value.Errorf(value.CodeArg, "%s: unknown argument `%s`; usage: %s", fn, na.Name, usage)
		}
	}
	var url string
	switch u := a.Pos[0].(type) {
	case value.Str:
		url = string(u)
	case value.Path:
		url = string(u)
	default:
		return nil, value.Errorf(value.CodeType, "%s: the URL must be str or path, got %s", fn, value.TypeName(a.Pos[0]))
	}
	parsed, err := neturl.Parse(url)
	if err != nil {
		return nil, value.Errorf(value.CodeArg, "%s: invalid URL %q: %v", fn, url, errors.Unwrap(err))
	}
	if _, err := host.ConnectTarget(parsed); err != nil {
		return nil, value.Errorf(value.CodeArg, "%s: %v", fn, err)
	}
	rest := a.Pos[1:]
	req := &host.HTTPRequest{Method: verb, URL: url}
	if withBody && len(rest) > 0 {
		if rest[0].Kind() == value.KSecret {
			return nil, value.Errorf(value.CodeFeed, "%s: a secret cannot be a request body", fn).
				WithHint("send it as a header: headers: {Authorization: token}")
		}
		body, err := c.FeedBytes(rest[0])
		if err != nil {
			return nil, err
		}
		req.Body = body
		rest = rest[1:]
	}
	if len(rest) > 0 {
		if headers != nil {
			return nil, value.Errorf(value.CodeArg, "%s: headers given twice", fn)
		}
		headers = rest[0]
	}
	if headers != nil && headers.Kind() != value.KNull {
		rec, ok := headers.(*value.Record)
		if !ok {
			return nil, value.Errorf(value.CodeType, "%s: headers must be a record, got %s", fn, value.TypeName(headers))
		}
		for i, k := range rec.Keys() {
			v, err := headerValue(fn, k, rec.Values()[i])
			if err != nil {
				return nil, err
			}
			req.Header = append(req.Header, [2]string{k, v})
		}
	}
	return req, nil
}

// headerValue is the text sent for header name: a string as is, a
// secret's material (the one place a secret's text leaves the language,
// and never into a message), anything else rendered inline.
func headerValue(fn, name string, v value.Value) (string, error) {
	if !validHeaderName(name) {
		return "", value.Errorf(value.CodeArg, "%s: %q is not a valid header name", fn, name)
	}
	var text string
	switch x := v.(type) {
	case value.Str:
		text = string(x)
	case *value.Secret:
		text = x.Reveal()
		if text == "" {
			return "", value.Errorf(value.CodeArg, "%s: secret %s has no material here (a secret read back from the wire holds only its name)", fn, x.Name)
		}
	default:
		text = value.Interp(v)
	}
	if strings.ContainsAny(text, "\r\n\x00") {
		return "", value.Errorf(value.CodeArg, "%s: the value of header %s holds a line break or NUL", fn, name)
	}
	return text, nil
}

// validHeaderName reports a token of RFC 9110 (letters, digits and
// !#$%&'*+-.^_`|~).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// httpAnswer is the response record: {status, ok, body, json, headers}.
func httpAnswer(fn string, r *host.HTTPResponse) (value.Value, error) {
	if !utf8.Valid(r.Body) {
		return nil, value.Errorf(value.CodeUTF8, "%s: the response body (%d bytes) is not valid UTF-8 text", fn, len(r.Body))
	}
	body := string(r.Body)
	var parsed value.Value = value.Nil
	if trimmed := strings.TrimSpace(body); trimmed != "" {
		if v, err := namespaces.ParseJSON(trimmed); err == nil {
			parsed = v
		}
	}
	hk := make([]string, len(r.Header))
	hv := make([]value.Value, len(r.Header))
	for i, h := range r.Header {
		hk[i], hv[i] = h[0], value.Str(h[1])
	}
	return value.NewRecord(
		[]string{"status", "ok", "body", "json", "headers"},
		[]value.Value{value.Int(r.Status), value.Bool(r.Status >= 200 && r.Status <= 299), value.Str(body), parsed, value.NewRecord(hk, hv)},
	), nil
}
