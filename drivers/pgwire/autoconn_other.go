//go:build !linux

package pgwire

import (
	"context"
	"net"
)

// DialAuto uses Go's poller alone where the kernel wait is not
// implemented.
func DialAuto(func() bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
}
