//go:build !linux

package postgres

import (
	"context"
	"net"
)

// dialAuto uses Go's poller alone where the kernel wait is not
// implemented.
func dialAuto(func() bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
}
