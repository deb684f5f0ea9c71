package auth

import (
	"errors"
	"strings"
)

// ErrReservedPrincipal reports a token whose principal or profile belongs
// to the kernel owner, or could be mistaken for it. Create refuses such a
// token and Validate never accepts one, whatever the store says.
var ErrReservedPrincipal = errors.New("reserved for the kernel owner")

// OwnerProfile is the profile of the kernel owner's tokenless attachment;
// no token may carry it.
const OwnerProfile = "local-human"

// reservedKinds are the leading words (the run of letters a principal
// starts with) that a token principal may not have, compared without regard
// to case: "uid:N" is how the kernel names its owner, and the others read
// as the owner to a person or a policy.
var reservedKinds = []string{"uid", "root", "owner", "local", "kernel", "self"}

// CheckPrincipal reports whether principal may be given to a token. A token
// principal is 1 to MaxPrincipal bytes of ASCII letters, digits and
// ". _ - : @ / + =", starting with a letter or digit (so nothing in it can
// be a look-alike of another name), is not all digits (a bare number reads
// as a uid), and does not lead with a reserved word: uid, root, owner,
// local, kernel or self in any case ("uid:0", "UID=0", "root-agent",
// "Owner"). Errors wrap ErrInvalid, and ErrReservedPrincipal for the
// reserved names.
func CheckPrincipal(principal string) error {
	if err := checkLabel("principal", principal); err != nil {
		return err
	}
	if len(principal) > MaxPrincipal {
		return &fieldError{"principal", principal, "is longer than 128 bytes"}
	}
	digits := true
	for i := 0; i < len(principal); i++ {
		c := principal[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if i == 0 && !alnum {
			return &fieldError{"principal", principal, "must start with an ASCII letter or digit"}
		}
		if !alnum && !strings.ContainsRune("._-:@/+=", rune(c)) {
			return &fieldError{"principal", principal, "may hold only ASCII letters, digits and . _ - : @ / + ="}
		}
		digits = digits && '0' <= c && c <= '9'
	}
	if digits {
		return &reservedError{fieldError{"principal", principal, "is a bare number, which reads as a uid"}}
	}
	kind := principal
	if i := strings.IndexFunc(principal, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }); i >= 0 {
		kind = principal[:i]
	}
	for _, r := range reservedKinds {
		if strings.EqualFold(kind, r) {
			return &reservedError{fieldError{"principal", principal, "is reserved for the kernel owner (" + r + ")"}}
		}
	}
	return nil
}

// checkProfile is checkLabel plus the owner's profile being reserved.
func checkProfile(profile string) error {
	if err := checkLabel("profile", profile); err != nil {
		return err
	}
	if strings.EqualFold(profile, OwnerProfile) {
		return &reservedError{fieldError{"profile", profile, "is the kernel owner's profile"}}
	}
	return nil
}

// reservedError is a fieldError that is also ErrReservedPrincipal.
type reservedError struct{ fieldError }

func (e *reservedError) Unwrap() []error { return []error{ErrInvalid, ErrReservedPrincipal} }

// checkIdentity is CheckPrincipal and checkProfile for a stored token.
func checkIdentity(t *Token) error {
	if err := CheckPrincipal(t.Principal); err != nil {
		return err
	}
	return checkProfile(t.Profile)
}
