//go:build !unix

package postgres

import (
	"context"
	"net"
)

// dialBlocking falls back to Go's poller where blocking sockets are not
// implemented.
func dialBlocking(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
