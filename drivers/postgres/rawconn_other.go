//go:build !linux

package postgres

import (
	"context"
	"net"
)

// rawAvailable reports whether io = raw has its own transport here: not
// on this system, where it dials Go's network poller instead.
const rawAvailable = false

func dialRaw(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
