package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every bearer secret.
const SecretPrefix = "shoal_"

const (
	secretLen = 32 // random bytes in a bearer secret
	keyLen    = 32 // bytes of HMAC key
	idLen     = 8  // random bytes in a token id (16 hex chars)
)

// Errors reported by the store. Test for them with errors.Is.
var (
	// ErrUnknownToken: the secret is malformed or matches no record.
	ErrUnknownToken = errors.New("unknown token")
	// ErrTokenRevoked: the secret matches a revoked record.
	ErrTokenRevoked = errors.New("token revoked")
	// ErrTokenExpired: the secret matches a record past its expiry.
	ErrTokenExpired = errors.New("token expired")
	// ErrUnknownID: no record has the id given to Revoke.
	ErrUnknownID = errors.New("unknown token id")
	// ErrStoreUnavailable: the store cannot be read or decoded; every
	// secret is refused until it is repaired.
	ErrStoreUnavailable = errors.New("token store unavailable")
	// ErrInvalid: Create was given an unusable principal, profile or cap.
	ErrInvalid = errors.New("invalid token field")
)

// Token is one record of the store as callers see it. It never carries the
// secret or its digest.
type Token struct {
	ID        string
	Principal string
	Profile   string
	Caps      []string
	Created   time.Time
	Expires   time.Time // zero: never expires
	Revoked   bool
	RevokedAt time.Time // zero unless Revoked
}

// State is "revoked", "expired" or "active" at time now.
func (t *Token) State(now time.Time) string {
	switch {
	case t.Revoked:
		return "revoked"
	case t.Expired(now):
		return "expired"
	default:
		return "active"
	}
}

// Expired reports whether t has an expiry at or before now.
func (t *Token) Expired(now time.Time) bool {
	return !t.Expires.IsZero() && !now.Before(t.Expires)
}

func (t *Token) clone() *Token {
	c := *t
	c.Caps = slices.Clone(t.Caps)
	return &c
}

// newSecret returns fresh secret bytes and their printed form.
func newSecret() ([]byte, string, error) {
	b := make([]byte, secretLen)
	if _, err := rand.Read(b); err != nil {
		return nil, "", err
	}
	return b, SecretPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// parseSecret decodes a printed secret. It is taken exactly as given:
// white space around it, or any encoding but the canonical one, makes it
// malformed.
func parseSecret(s string) ([]byte, bool) {
	rest, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok || len(rest) != base64.RawURLEncoding.EncodedLen(secretLen) {
		return nil, false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(rest)
	if err != nil || len(b) != secretLen {
		return nil, false
	}
	return b, true
}

// digest is the keyed digest persisted for a secret.
func digest(key, secret []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(secret)
	return m.Sum(nil)
}

func newID() (string, error) {
	b := make([]byte, idLen)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// checkLabel rejects empty labels and labels with control characters or
// white space at either end, which would make list output ambiguous.
func checkLabel(what, s string) error {
	if s == "" {
		return &fieldError{what, s, "is empty"}
	}
	if strings.TrimSpace(s) != s {
		return &fieldError{what, s, "has leading or trailing white space"}
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return &fieldError{what, s, "contains a control character"}
		}
	}
	return nil
}

type fieldError struct{ what, value, why string }

func (e *fieldError) Error() string {
	return "invalid " + e.what + " " + quote(e.value) + ": " + e.why
}

func (e *fieldError) Unwrap() error { return ErrInvalid }

func quote(s string) string {
	const max = 64
	if len(s) > max {
		return strconv.Quote(s[:max]) + "…"
	}
	return strconv.Quote(s)
}

// checkCap is checkLabel plus no commas, which separate caps in listings.
func checkCap(c string) error {
	if err := checkLabel("cap", c); err != nil {
		return err
	}
	if strings.ContainsRune(c, ',') {
		return &fieldError{"cap", c, "contains a comma"}
	}
	return nil
}
