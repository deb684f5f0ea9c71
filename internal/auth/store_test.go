package auth

import (
	"bytes"
	"crypto/hmac"
	"encoding/base64"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCreateValidate(t *testing.T) {
	tests := []struct {
		name      string
		principal string
		profile   string
		caps      []string
		ttl       time.Duration
		advance   time.Duration
		revoke    bool
		wantErr   error
	}{
		{name: "no expiry", principal: "agent:ci", profile: "ci", caps: []string{"fs.read", "proc.spawn"}},
		{name: "no caps", principal: "agent:x", profile: "default"},
		{name: "within ttl", principal: "agent:ci", profile: "ci", ttl: time.Hour, advance: 59 * time.Minute},
		{name: "at expiry", principal: "agent:ci", profile: "ci", ttl: time.Hour, advance: time.Hour, wantErr: ErrTokenExpired},
		{name: "past expiry", principal: "agent:ci", profile: "ci", ttl: time.Second, advance: time.Minute, wantErr: ErrTokenExpired},
		{name: "negative ttl", principal: "agent:ci", profile: "ci", ttl: -time.Second, wantErr: ErrTokenExpired},
		{name: "never expires after years", principal: "p", profile: "q", advance: 10 * 365 * 24 * time.Hour},
		{name: "revoked", principal: "agent:ci", profile: "ci", revoke: true, wantErr: ErrTokenRevoked},
		{name: "revoked and expired", principal: "agent:ci", profile: "ci", ttl: time.Second, advance: time.Hour, revoke: true, wantErr: ErrTokenRevoked},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, c := newTestStore(t)
			// A second token makes sure the right record is matched.
			mustCreate(t, s, "other", "other", nil, 0)
			id, secret := mustCreate(t, s, tc.principal, tc.profile, tc.caps, tc.ttl)
			if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(id) {
				t.Errorf("id %q is not 16 hex chars", id)
			}
			if !regexp.MustCompile(`^shoal_[A-Za-z0-9_-]{43}$`).MatchString(secret) {
				t.Errorf("secret %q has the wrong shape", secret)
			}
			if tc.revoke {
				if err := s.Revoke(id); err != nil {
					t.Fatalf("Revoke: %v", err)
				}
			}
			c.advance(tc.advance)
			tok, err := s.Validate(secret)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || tok != nil {
					t.Fatalf("Validate = %v, %v; want error %v", tok, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if tok.ID != id || tok.Principal != tc.principal || tok.Profile != tc.profile ||
				!slices.Equal(tok.Caps, tc.caps) && len(tok.Caps)+len(tc.caps) > 0 {
				t.Errorf("Validate = %+v; want id %s principal %q profile %q caps %q", tok, id, tc.principal, tc.profile, tc.caps)
			}
			if tok.Revoked {
				t.Errorf("valid token reported revoked")
			}
		})
	}
}

func TestValidateRejectsMalformedAndUnknown(t *testing.T) {
	s, _ := newTestStore(t)
	_, secret := mustCreate(t, s, "agent:a", "p", nil, 0)
	_, fresh, err := newSecret()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		"",
		"shoal_",
		"shoal",
		strings.TrimPrefix(secret, SecretPrefix), // missing prefix
		secret[:len(secret)-1],                   // truncated
		secret + "A",                             // extended
		secret[:len(secret)-1] + "!",             // not base64url
		"Bearer " + secret,
		fresh, // well formed but never issued
	} {
		if tok, err := s.Validate(bad); !errors.Is(err, ErrUnknownToken) {
			t.Errorf("Validate(%q) = %v, %v; want ErrUnknownToken", bad, tok, err)
		}
	}
	// Secrets are compared exactly: white space is not trimmed, and only
	// the canonical base64url form is accepted.
	alias := secret[:len(secret)-1] + nonCanonical(t, secret[len(secret)-1:])
	if a, b := mustDecodeLoose(t, alias), mustDecodeLoose(t, secret); !bytes.Equal(a, b) {
		t.Fatalf("alias %q does not decode loosely to the same secret", alias)
	}
	for _, bad := range []string{" " + secret, secret + "\n", " " + secret + "\n", "\t" + secret, secret + " ", alias} {
		if _, err := s.Validate(bad); !errors.Is(err, ErrUnknownToken) {
			t.Errorf("Validate(%q) = %v; want ErrUnknownToken", bad, err)
		}
	}
	if _, err := s.Validate(secret); err != nil {
		t.Errorf("Validate(exact secret) = %v", err)
	}
}

func TestValidateMissingStore(t *testing.T) {
	s, _ := newTestStore(t)
	_, fresh, _ := newSecret()
	if _, err := s.Validate(fresh); !errors.Is(err, ErrUnknownToken) {
		t.Errorf("Validate on a missing store = %v; want ErrUnknownToken", err)
	}
	toks, err := s.List()
	if err != nil || len(toks) != 0 {
		t.Errorf("List on a missing store = %v, %v; want empty", toks, err)
	}
	if err := s.Check(); err != nil {
		t.Errorf("Check on a missing store = %v", err)
	}
}

func TestRevoke(t *testing.T) {
	s, c := newTestStore(t)
	id, _ := mustCreate(t, s, "agent:a", "p", []string{"x"}, 0)
	keep, keepSecret := mustCreate(t, s, "agent:b", "p", nil, 0)

	if err := s.Revoke("0123456789abcdef"); !errors.Is(err, ErrUnknownID) {
		t.Errorf("Revoke(unknown) = %v; want ErrUnknownID", err)
	}
	if err := s.Revoke(""); !errors.Is(err, ErrUnknownID) {
		t.Errorf("Revoke(\"\") = %v; want ErrUnknownID", err)
	}
	if err := s.Revoke(id); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	first := c.now()
	c.advance(time.Minute)
	if err := s.Revoke(id); err != nil {
		t.Fatalf("second Revoke: %v", err)
	}
	toks, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != 2 {
		t.Fatalf("List after revoke has %d tokens; want 2 (records are kept)", len(toks))
	}
	for _, tok := range toks {
		switch tok.ID {
		case id:
			if !tok.Revoked || !tok.RevokedAt.Equal(first) || tok.State(c.now()) != "revoked" {
				t.Errorf("revoked token = %+v; want revoked at %v", tok, first)
			}
		case keep:
			if tok.Revoked {
				t.Errorf("revoking %s also revoked %s", id, keep)
			}
		}
	}
	if _, err := s.Validate(keepSecret); err != nil {
		t.Errorf("untouched token no longer validates: %v", err)
	}
}

func TestCreateRejectsBadFields(t *testing.T) {
	s, _ := newTestStore(t)
	tests := []struct {
		principal, profile string
		caps               []string
	}{
		{"", "p", nil},
		{"a", "", nil},
		{"a\tb", "p", nil},
		{"a", "p\n", nil},
		{" a", "p", nil},
		{"a", "p", []string{""}},
		{"a", "p", []string{"x,y"}},
		{"a", "p", []string{"x\x00"}},
	}
	for _, tc := range tests {
		if _, _, err := s.Create(tc.principal, tc.profile, tc.caps, 0); !errors.Is(err, ErrInvalid) {
			t.Errorf("Create(%q, %q, %q) = %v; want ErrInvalid", tc.principal, tc.profile, tc.caps, err)
		}
	}
	if toks, _ := s.List(); len(toks) != 0 {
		t.Errorf("rejected creates left %d tokens", len(toks))
	}
}

func TestListIsACopy(t *testing.T) {
	s, _ := newTestStore(t)
	_, secret := mustCreate(t, s, "agent:a", "p", []string{"fs.read"}, 0)
	toks, _ := s.List()
	toks[0].Caps[0] = "everything"
	toks[0].Principal = "root"
	tok, err := s.Validate(secret)
	if err != nil {
		t.Fatal(err)
	}
	tok.Caps[0] = "mutated"
	again, _ := s.Validate(secret)
	if again.Principal != "agent:a" || again.Caps[0] != "fs.read" {
		t.Errorf("store changed through returned values: %+v", again)
	}
}

// TestConstantTimeCompare checks that Validate compares the presented
// digest with hmac.Equal against every record, matching or not.
func TestConstantTimeCompare(t *testing.T) {
	s, _ := newTestStore(t)
	var secrets []string
	for i := 0; i < 5; i++ {
		_, sec := mustCreate(t, s, "agent:a", "p", nil, 0)
		secrets = append(secrets, sec)
	}
	orig := digestEqual
	t.Cleanup(func() { digestEqual = orig })
	calls := 0
	digestEqual = func(a, b []byte) bool { calls++; return orig(a, b) }

	_, unknown, _ := newSecret()
	for _, sec := range append([]string{unknown}, secrets...) {
		calls = 0
		_, _ = s.Validate(sec)
		if calls != len(secrets) {
			t.Errorf("Validate made %d digest comparisons; want one per record (%d)", calls, len(secrets))
		}
	}
	// The comparison really is hmac.Equal's constant-time one.
	if reflect.ValueOf(orig).Pointer() != reflect.ValueOf(hmac.Equal).Pointer() {
		t.Errorf("digestEqual is not hmac.Equal")
	}
}

// nonCanonical returns the base64url character that differs from c only in
// the two low bits, which the last character of a 43-character encoding of
// 32 bytes does not use.
func nonCanonical(t *testing.T, c string) string {
	t.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.Index(alphabet, c)
	if i < 0 || i&3 != 0 {
		t.Fatalf("last secret character %q is not canonical", c)
	}
	return alphabet[i|1 : i|1+1]
}

// mustDecodeLoose decodes a secret's base64url without the strictness the
// store applies.
func mustDecodeLoose(t *testing.T, secret string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
