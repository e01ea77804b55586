package drivers

import "context"

// Describer is implemented by drivers that can say more about a backend
// than its options before any store is opened: the adapter driver starts
// the backend's program, reads its hello (name, version, protocol,
// capabilities) and ends it. plan prints the lines under the backend.
type Describer interface {
	Describe(ctx context.Context, options map[string]string) []string
}
