package host

import (
	"context"
	"errors"

	"github.com/shoalgo/shoal/internal/secretstore"
)

// SecretUse reads a named secret from the secret store (Host.Secret); its
// op's target is the secret's name.
const SecretUse Effect = "secret_use"

// CheckSecretName reports why name cannot name a stored secret (see
// secretstore.CheckName).
func CheckSecretName(name string) error { return secretstore.CheckName(name) }

// WithSecretDir sets the secret store Secret reads ("" for none). Without
// it the store is secretstore.Dir of the host's own environment (Environ),
// never the session's: a program cannot move the store by setting a
// variable.
func WithSecretDir(dir string) Option {
	return func(o *OS) { o.secretDir, o.secretDirSet = dir, true }
}

// Secret reads the secret called name from the host's store
// (WithSecretDir), asking secret_use of the name first (and nothing of the
// file system: the store is the host's, not the program's). See package
// secretstore for what is trusted: a missing secret is fs.ErrNotExist, a
// file that is not private fs.ErrPermission, one too large ErrTooLarge.
func (o *OS) Secret(ctx context.Context, name string) ([]byte, error) {
	if err := secretstore.CheckName(name); err != nil {
		return nil, err
	}
	if err := o.authorize(ctx, Op{Effect: SecretUse, Target: name}); err != nil {
		return nil, err
	}
	dir := o.secretDir
	if !o.secretDirSet {
		dir = secretstore.Dir(o.environ())
	}
	data, err := secretstore.Read(dir, name)
	if errors.Is(err, secretstore.ErrTooLarge) {
		return nil, errors.Join(err, ErrTooLarge)
	}
	return data, err
}
