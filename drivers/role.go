package drivers

import "context"

// Role is what the engine opens a session for. Most drivers open every
// session alike; one whose store cares (an adapter program told whether
// its session reads, writes, loads or checks) reads it with SessionRole.
type Role string

// Roles of a session.
const (
	RoleClient  Role = "client"  // a client of a point, and the engine's own sessions
	RoleReader  Role = "reader"  // a client that only reads
	RoleWriter  Role = "writer"  // a writing session: write_mixed's writer, a stream's shared writers
	RoleLoader  Role = "loader"  // one bulk-load job
	RoleChecker Role = "checker" // the session a scenario's checks run on
)

type roleKey struct{}

// WithRole returns ctx carrying the role of the session opened with it:
// Backend.Session, ReaderSession and NewLoader take a context, so the
// role reaches every driver through any layer (a kind's environment, a
// worker) without another method.
func WithRole(ctx context.Context, r Role) context.Context {
	return context.WithValue(ctx, roleKey{}, r)
}

// SessionRole is the role ctx carries; RoleClient when it carries none.
func SessionRole(ctx context.Context) Role {
	if r, ok := ctx.Value(roleKey{}).(Role); ok && r != "" {
		return r
	}
	return RoleClient
}
