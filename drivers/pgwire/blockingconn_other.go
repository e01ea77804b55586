//go:build !unix

package pgwire

import (
	"context"
	"net"
)

// DialBlocking falls back to Go's poller where blocking sockets are not
// implemented.
func DialBlocking(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
