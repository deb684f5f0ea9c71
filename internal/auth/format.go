package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// formatVersion is the store document version this package reads and writes.
const formatVersion = 1

// document is the store file's JSON shape.
type document struct {
	Version int      `json:"version"`
	Key     string   `json:"key"` // base64 (standard, padded) HMAC key
	Tokens  []record `json:"tokens"`
}

// record is one token as persisted.
type record struct {
	ID        string     `json:"id"`
	Principal string     `json:"principal"`
	Profile   string     `json:"profile"`
	Caps      []string   `json:"caps"`
	Created   time.Time  `json:"created"`
	Expires   *time.Time `json:"expires,omitempty"`
	Revoked   bool       `json:"revoked"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	Digest    string     `json:"digest"` // hex HMAC-SHA256 of the secret
}

// entry is a decoded, checked record.
type entry struct {
	tok    Token
	digest []byte
}

// snapshot is a decoded, checked store.
type snapshot struct {
	key     []byte
	entries []entry
}

// decode parses and checks a store file. Empty input is an empty store
// without a key. Errors describe the first problem found.
func decode(data []byte) (*snapshot, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &snapshot{}, nil
	}
	var doc document
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decoding: trailing data after the document")
	}
	if doc.Version != formatVersion {
		return nil, fmt.Errorf("unsupported version %d (want %d)", doc.Version, formatVersion)
	}
	key, err := base64.StdEncoding.DecodeString(doc.Key)
	if err != nil || len(key) != keyLen {
		return nil, fmt.Errorf("key is not %d base64 bytes", keyLen)
	}
	snap := &snapshot{key: key, entries: make([]entry, 0, len(doc.Tokens))}
	seen := make(map[string]bool, len(doc.Tokens))
	for i, r := range doc.Tokens {
		e, err := r.check()
		if err != nil {
			return nil, fmt.Errorf("token %d: %w", i, err)
		}
		if seen[r.ID] {
			return nil, fmt.Errorf("token %d: duplicate id %s", i, r.ID)
		}
		seen[r.ID] = true
		snap.entries = append(snap.entries, e)
	}
	return snap, nil
}

func (r *record) check() (entry, error) {
	if b, err := hex.DecodeString(r.ID); err != nil || len(b) == 0 {
		return entry{}, fmt.Errorf("id %s is not hex", quote(r.ID))
	}
	if err := checkLabel("principal", r.Principal); err != nil {
		return entry{}, err
	}
	if err := checkLabel("profile", r.Profile); err != nil {
		return entry{}, err
	}
	for _, c := range r.Caps {
		if err := checkCap(c); err != nil {
			return entry{}, err
		}
	}
	d, err := hex.DecodeString(r.Digest)
	if err != nil || len(d) != 32 {
		return entry{}, fmt.Errorf("digest of %s is not 32 hex bytes", r.ID)
	}
	t := Token{
		ID:        r.ID,
		Principal: r.Principal,
		Profile:   r.Profile,
		Caps:      append([]string{}, r.Caps...),
		Created:   r.Created,
		Revoked:   r.Revoked,
	}
	if r.Expires != nil {
		t.Expires = *r.Expires
	}
	if r.RevokedAt != nil {
		t.RevokedAt = *r.RevokedAt
	}
	return entry{tok: t, digest: d}, nil
}

// encode renders a snapshot as a store file.
func encode(s *snapshot) ([]byte, error) {
	doc := document{
		Version: formatVersion,
		Key:     base64.StdEncoding.EncodeToString(s.key),
		Tokens:  make([]record, len(s.entries)),
	}
	for i, e := range s.entries {
		t := &e.tok
		r := record{
			ID:        t.ID,
			Principal: t.Principal,
			Profile:   t.Profile,
			Caps:      t.Caps,
			Created:   t.Created,
			Revoked:   t.Revoked,
			Digest:    hex.EncodeToString(e.digest),
		}
		if r.Caps == nil {
			r.Caps = []string{}
		}
		if !t.Expires.IsZero() {
			x := t.Expires
			r.Expires = &x
		}
		if !t.RevokedAt.IsZero() {
			x := t.RevokedAt
			r.RevokedAt = &x
		}
		doc.Tokens[i] = r
	}
	out, err := json.MarshalIndent(&doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
