// Package auth keeps the bearer-token store shared by shoal-kernel and
// shoal-token.
//
// A token names a principal (the identity Leash policy is evaluated for), a
// profile label and capability labels. Its bearer secret is 32 random bytes,
// shown once to the operator as "shoal_" followed by unpadded base64url, and
// never written anywhere: the store keeps only HMAC-SHA256(key, secret),
// where key is 32 random bytes generated when the store is first written.
//
// # Store file
//
// The store is one JSON document (see [StorePath] and [ResolveStorePath]),
// mode 0600, in a directory created 0700. Every change takes an exclusive
// flock on a sibling "<store>.lock" file, re-reads the store, writes a
// complete new document to a temporary file in the same directory, fsyncs
// it, renames it over the store and fsyncs the directory. Readers therefore
// always see either the old or the new document, and concurrent writers in
// any number of processes never lose each other's changes.
//
// # Trusting the file
//
// The store is read and written only when nobody but its owner could have
// written it: the file and its directory must be owned by the process's
// effective uid and writable by neither group nor others, the file must be
// a regular file of at most [MaxStoreBytes], and it is opened relative to
// the checked directory with O_NOFOLLOW and O_NONBLOCK, so a symbolic link
// is refused (never followed, its target never chmodded) and a FIFO cannot
// hang the reader. Anything else fails closed with [ErrStoreUnavailable]
// wrapping [ErrNotPrivate] and a message saying what is wrong. The lock
// and temporary files are opened the same way.
//
// No token may name the kernel owner: [CheckPrincipal] refuses uid:* and
// the other reserved names, Create refuses them, and Validate refuses a
// stored token that has one (a hand-edited store cannot mint the owner).
// Secrets are compared exactly: no white space is trimmed and only the
// canonical encoding is accepted.
//
// # Threat model
//
// The HMAC key lives in the store file itself rather than in a separate
// file. The reasoning:
//
//   - Someone who can read the store learns principals, profiles, caps and
//     digests, but cannot recover or forge a bearer: HMAC is one-way and a
//     secret has 256 bits of entropy, so checking guesses offline against a
//     digest (even with the key) is hopeless. A separate key file would add
//     nothing here.
//   - Someone who can write the store can add records and thereby mint
//     tokens, whatever happens to the key; write access to the state
//     directory is equivalent to holding every token. Protect it with the
//     0700/0600 modes this package uses.
//   - One file means one atomic rename: the key and the digests made with it
//     can never be out of step after a crash or a restore from backup.
//
// Secrets are compared as digests with [hmac.Equal] against every record,
// so validation time does not depend on which record (if any) matches.
//
// # Live reload and failing closed
//
// A [Store] opened by a long-lived process notices changes made by other
// processes: every read checks the file's identity (device, inode, size,
// modification time) and re-reads it when that changed, or when the last
// read is older than half a second. A store that cannot be read or does
// not decode fails closed: [Store.Validate] rejects every secret with
// [ErrStoreUnavailable] until the file is repaired, and never falls back to
// an earlier good copy. A missing store (or a missing state directory) is an empty one.
package auth
