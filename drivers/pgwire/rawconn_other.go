//go:build !linux

package pgwire

import (
	"context"
	"net"
)

// RawAvailable reports whether io = raw has its own transport here: not
// on this system, where DialRaw dials Go's network poller instead.
const RawAvailable = false

// DialRaw dials like net.Dialer: io = raw has no transport of its own here.
func DialRaw(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
