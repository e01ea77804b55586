package measure

import "context"

// A hook the caller may put in a run's context, called once every client
// has made its warmup calls and waits at the barrier, just before the
// clock starts: what is counted from then on (a database's statement
// statistics) leaves the warmup out. No call is in flight while it runs.
type windowStartKey struct{}

// WithWindowStart returns ctx with f as its window-start hook.
func WithWindowStart(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, windowStartKey{}, f)
}

// windowStart calls ctx's window-start hook, if any.
func windowStart(ctx context.Context) {
	if f, ok := ctx.Value(windowStartKey{}).(func()); ok && f != nil {
		f()
	}
}
