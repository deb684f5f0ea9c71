package repl

import "context"

type pageTitleKey struct{}

// withPageTitle tells Config.Page what it pages: the statement typed.
func withPageTitle(ctx context.Context, src string) context.Context {
	return context.WithValue(ctx, pageTitleKey{}, src)
}

// PageTitle is the statement whose value Config.Page is showing ("" when
// not known), for the pager to name what it shows.
func PageTitle(ctx context.Context) string {
	s, _ := ctx.Value(pageTitleKey{}).(string)
	return s
}
