package auth

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestCheckPrincipal(t *testing.T) {
	tests := []struct {
		principal string
		reserved  bool // ErrReservedPrincipal, else just ErrInvalid
		ok        bool
	}{
		{"agent:evil", false, true},
		{"p", false, true},
		{"ci@build-3", false, true},
		{"team/alice+bot=1", false, true},
		{"localhost:agent", false, true}, // "localhost" is not "local"
		{"uidx", false, true},
		{"agent:uid:0", false, true}, // only the leading word counts
		{"x" + strings.Repeat("a", MaxPrincipal-1), false, true},

		{"uid:0", true, false},
		{"uid:1000", true, false},
		{"UID:0", true, false},
		{"Uid:0", true, false},
		{"uid", true, false},
		{"uid=0", true, false},
		{"uid0", true, false}, // the leading word is the run of letters
		{"uid-0", true, false},
		{"uid.0", true, false},
		{"root", true, false},
		{"ROOT:x", true, false},
		{"owner", true, false},
		{"local", true, false},
		{"local:me", true, false},
		{"kernel", true, false},
		{"self", true, false},
		{"0", true, false},
		{"1000", true, false},

		{"", false, false},
		{" agent:x", false, false},
		{"agent:x ", false, false},
		{"agent x", false, false},
		{"agent\x00x", false, false},
		{"agent:\u0445", false, false}, // Cyrillic look-alike of x
		{"u\u0456d:0", false, false},   // Cyrillic i in "uid"
		{"uid\uff1a0", false, false},   // fullwidth colon
		{":agent", false, false},       // must start with a letter or digit
		{"-agent", false, false},
		{"agent;rm", false, false},
		{"x" + strings.Repeat("a", MaxPrincipal), false, false},
	}
	for _, tc := range tests {
		err := CheckPrincipal(tc.principal)
		switch {
		case tc.ok && err != nil:
			t.Errorf("CheckPrincipal(%q) = %v; want ok", tc.principal, err)
		case !tc.ok && !errors.Is(err, ErrInvalid):
			t.Errorf("CheckPrincipal(%q) = %v; want ErrInvalid", tc.principal, err)
		case !tc.ok && errors.Is(err, ErrReservedPrincipal) != tc.reserved:
			t.Errorf("CheckPrincipal(%q) = %v; reserved = %v, want %v", tc.principal, err, !tc.reserved, tc.reserved)
		}
	}
}

// TestCreateRefusesOwner: no token is minted for the owner's principal or
// profile, and nothing is written.
func TestCreateRefusesOwner(t *testing.T) {
	s, _ := newTestStore(t)
	for _, c := range []struct{ principal, profile string }{
		{"uid:0", "p"},
		{"uid:" + strconv.Itoa(os.Geteuid()), "p"},
		{"UID:0", "p"},
		{"root", "p"},
		{"agent:x", OwnerProfile},
		{"agent:x", "Local-Human"},
	} {
		if _, _, err := s.Create(c.principal, c.profile, nil, 0); !errors.Is(err, ErrReservedPrincipal) {
			t.Errorf("Create(%q, %q) = %v; want ErrReservedPrincipal", c.principal, c.profile, err)
		}
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused creates wrote the store: %v", err)
	}
}

// TestValidateRefusesForgedOwner: a store edited by hand (or by an older
// shoal-token) to name the owner, or an invalid principal, does not
// validate, while other tokens in it still do.
func TestValidateRefusesForgedOwner(t *testing.T) {
	s, _ := newTestStore(t)
	idA, secretA := mustCreate(t, s, "agent:a", "p", nil, 0)
	_, secretB := mustCreate(t, s, "agent:b", "p", nil, 0)
	idC, secretC := mustCreate(t, s, "agent:c", "p", nil, 0)
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for i := range doc.Tokens {
		switch doc.Tokens[i].ID {
		case idA:
			doc.Tokens[i].Principal = "uid:0"
		case idC:
			doc.Tokens[i].Profile = OwnerProfile
		}
	}
	out, _ := json.Marshal(&doc)
	if err := os.WriteFile(s.Path(), out, 0o600); err != nil {
		t.Fatal(err)
	}
	s.invalidate()
	for _, secret := range []string{secretA, secretC} {
		if tok, err := s.Validate(secret); !errors.Is(err, ErrReservedPrincipal) || !errors.Is(err, ErrUnknownToken) {
			t.Errorf("forged owner token validated: %v, %v", tok, err)
		}
	}
	if _, err := s.Lookup(idA); !errors.Is(err, ErrReservedPrincipal) {
		t.Errorf("Lookup of the forged token = %v; want ErrReservedPrincipal", err)
	}
	if tok, err := s.Validate(secretB); err != nil || tok.Principal != "agent:b" {
		t.Errorf("the honest token beside it: %v, %v", tok, err)
	}
}
