package host

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// ErrNet is matched (errors.Is) by every transport failure of HTTP: a
// refused or reset connection, a DNS failure, a timeout, a body cut short.
// The evaluator reports it as net_error.
var ErrNet = errors.New("network error")

// HTTPRequest is one HTTP request. Header keeps the caller's order; a
// header's value is sent as given.
type HTTPRequest struct {
	Method string // GET, POST, PUT, DELETE, ...
	URL    string // absolute http:// or https:// URL
	Header [][2]string
	Body   []byte
}

// HTTPResponse is what a server answered: its status, its headers with
// lower-case names, sorted, a repeated name's values joined by ", ", and
// the whole body (at most MaxHTTPBody bytes).
type HTTPResponse struct {
	Status int
	Header [][2]string
	Body   []byte
}

// ConnectTarget is the net_connect subject of an http or https URL:
// "host:port" ("[v6]:port"), the port defaulting to 80 or 443.
func ConnectTarget(u *url.URL) (string, error) {
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("unsupported URL scheme %q (use http or https)", u.Scheme)
	}
	h := u.Hostname()
	if h == "" {
		return "", fmt.Errorf("URL %q has no host", u.Redacted())
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(h), port), nil
}

// httpClient is the OS hosts' one client: no proxy (the connection made is
// to the host the gate judged), bounded headers, connections reused. Made
// at the first request, by a sync.Once (a sync.OnceValue's closure would be
// made by a package initialiser at every start).
func httpClient() *http.Client {
	httpClientOnce.Do(func() { httpClientOnce.c = newHTTPClient() })
	return httpClientOnce.c
}

var httpClientOnce struct {
	sync.Once
	c *http.Client
}

func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                  nil,
		DialContext:            (&net.Dialer{Timeout: HTTPTimeout}).DialContext,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		MaxResponseHeaderBytes: MaxHTTPHeaderBytes,
		MaxIdleConns:           16,
		IdleConnTimeout:        HTTPTimeout,
		TLSHandshakeTimeout:    HTTPTimeout,
		ForceAttemptHTTP2:      true,
	}}
}

// HTTP performs one request, asking net_connect of the URL's host:port
// first and again for every redirect it follows, within HTTPTimeout and
// MaxHTTPBody. A status of 400 or more is an answer, not an error.
func (o *OS) HTTP(ctx context.Context, r *HTTPRequest) (*HTTPResponse, error) {
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, fmt.Errorf("invalid URL: %w", err)
	}
	target, err := ConnectTarget(u)
	if err != nil {
		return nil, err
	}
	if err := o.authorize(ctx, Op{Effect: NetConnect, Target: target}); err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, HTTPTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), strings.NewReader(string(r.Body)))
	if err != nil {
		return nil, fmt.Errorf("invalid request: %w", err)
	}
	if len(r.Body) == 0 {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for _, h := range r.Header {
		req.Header.Add(h[0], h[1])
	}
	client := *httpClient()
	client.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if len(via) >= MaxHTTPRedirects {
			return fmt.Errorf("%w: stopped after %d redirects", ErrNet, MaxHTTPRedirects)
		}
		t, err := ConnectTarget(next.URL)
		if err != nil {
			return err
		}
		return o.authorize(next.Context(), Op{Effect: NetConnect, Target: t})
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the message already
		}
		if parent.Err() != nil {
			return nil, parent.Err() // the evaluation was cancelled
		}
		if errors.Is(err, ErrDenied) || errors.Is(err, ErrNet) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s %s: %v", ErrNet, r.Method, u.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxHTTPBody+1))
	if err != nil && parent.Err() != nil {
		return nil, parent.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: reading the body of %s: %v", ErrNet, u.Redacted(), err)
	}
	if len(body) > MaxHTTPBody {
		return nil, fmt.Errorf("%w: the response body of %s is larger than %d bytes", ErrTooLarge, u.Redacted(), MaxHTTPBody)
	}
	names := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
	out := &HTTPResponse{Status: resp.StatusCode, Body: body, Header: make([][2]string, 0, len(names))}
	for _, k := range names {
		out.Header = append(out.Header, [2]string{strings.ToLower(k), strings.Join(resp.Header[k], ", ")})
	}
	return out, nil
}
