// Package trust is the person's record of which project directories may
// steer their shell: $XDG_STATE_HOME/shoal/trust.json (default
// ~/.local/state/shoal/trust.json), one entry per directory holding the
// digest of its project files (reef.ProjectFiles: Reef's manifests and
// lock, the .shoal.toml config layer) as they were when the person ran
// `shoal trust`. A Store answers reef.Trust for the shoal command and the
// kernel (which reads its owner's store): a directory is trusted only
// while its files still digest to what was recorded.
//
// The file is written atomically (a private temporary file in the same
// directory, fsync, rename, fsync of the directory) with mode 0600, and
// read strictly: a file that is not a private regular file of this user,
// is larger than MaxStoreBytes, holds more than MaxEntries directories,
// or does not decode exactly is malformed, and a malformed store trusts
// nothing (Err says why). It opens the store's files and the project
// files `shoal trust` digests, and nothing else of the operating system.
package trust
