package worker

import (
	"context"
	"crypto/hmac"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"
)

const (
	// authTimeout bounds a TCP connection's TLS handshake and proofs: a
	// peer that stalls costs one goroutine for this long, nothing more.
	authTimeout = 10 * time.Second
	// handshakeBytes bounds what a peer may send before it is
	// authenticated (its hello and its proof are a few hundred bytes).
	handshakeBytes = 64 << 10
)

// ErrRefused is returned by Serve when the coordinator refused the
// worker's proof: the worker does not hold this run's secret.
var ErrRefused = errors.New("the coordinator refused this worker")

// ErrWrongSecret is returned by Serve when the coordinator could not
// prove the worker's secret: another run's coordinator, another secret,
// or something in between.
var ErrWrongSecret = errors.New("the coordinator did not prove this run's secret over this connection (another run or another secret, or something in between): refusing it")

// AuthError is a TCP connection that did not prove it is one of the
// run's workers; it got nothing but the refusal.
type AuthError struct {
	Remote string
	Err    error
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("connection from %s refused: %v", e.Remote, e.Err)
}

func (e *AuthError) Unwrap() error { return e.Err }

// accept is the coordinator's side of a TCP connection: TLS, then the
// worker's hello with its nonce, the coordinator's challenge with its
// own proof, and the worker's proof. It returns the authenticated
// connection and its hello; on any failure the connection is closed and
// nothing of the run was sent on it.
func (s *Security) accept(nc net.Conn) (*Conn, Msg, error) {
	fail := func(c *Conn, err error) (*Conn, Msg, error) {
		if c != nil {
			_ = c.Send(Msg{Type: TypeRefused, Error: err.Error()})
		}
		nc.Close()
		return nil, Msg{}, &AuthError{Remote: nc.RemoteAddr().String(), Err: err}
	}
	_ = nc.SetDeadline(time.Now().Add(authTimeout))
	tc := tls.Server(nc, s.serverTLS())
	if err := tc.Handshake(); err != nil {
		return fail(nil, fmt.Errorf("TLS handshake: %w", err))
	}
	c := NewConn(tc, tc, tc)
	c.in.left.Store(handshakeBytes)
	hello, err := c.Recv()
	switch {
	case err != nil:
		return fail(nil, fmt.Errorf("no hello: %w", err))
	case hello.Type != TypeHello:
		return fail(c, fmt.Errorf("expected hello, got %q", hello.Type))
	case hello.Version != Version:
		return fail(c, fmt.Errorf("protocol version %d, the coordinator speaks %d", hello.Version, Version))
	case len(hello.Nonce) != nonceLen:
		return fail(c, fmt.Errorf("a hello without a %d-byte nonce", nonceLen))
	}
	ekm, err := exported(tc)
	if err != nil {
		return fail(c, err)
	}
	mine, err := nonce()
	if err != nil {
		return fail(c, err)
	}
	if err := c.Send(Msg{Type: TypeChallenge, Nonce: mine, Proof: proof(s.Secret, coordinatorLabel, hello.Nonce, mine, ekm)}); err != nil {
		return fail(nil, err)
	}
	m, err := c.Recv()
	switch {
	case err != nil:
		return fail(nil, fmt.Errorf("no proof: %w", err))
	case m.Type == TypeError:
		return fail(nil, fmt.Errorf("wrong secret: the worker holds another one (it refused the coordinator's proof: %s)", m.Error))
	case m.Type != TypeAuth:
		return fail(c, fmt.Errorf("expected auth, got %q", m.Type))
	case !hmac.Equal(m.Proof, proof(s.Secret, workerLabel, mine, hello.Nonce, ekm)):
		return fail(c, errors.New("wrong secret: the worker does not hold this run's secret"))
	}
	c.in.left.Store(0)
	_ = nc.SetDeadline(time.Time{})
	return c, hello, nil
}

// prove is the worker's side after its hello: it checks the
// coordinator's proof of the secret over this TLS session (so a relay or
// another run is refused before the worker acts on anything) and sends
// its own.
func (c *Conn) prove(ctx context.Context, in *inbox, mine []byte) error {
	m, err := in.next(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotAssigned, err)
	}
	switch {
	case m.Type == TypeRefused:
		return fmt.Errorf("%w: %s", ErrRefused, m.Error)
	case m.Type != TypeChallenge || len(m.Nonce) != nonceLen:
		return fmt.Errorf("expected the coordinator's challenge, got %q", m.Type)
	}
	ekm, err := exported(c.tls)
	if err != nil {
		return err
	}
	if !hmac.Equal(m.Proof, proof(c.creds.Secret, coordinatorLabel, mine, m.Nonce, ekm)) {
		return ErrWrongSecret
	}
	if err := c.Send(Msg{Type: TypeAuth, Proof: proof(c.creds.Secret, workerLabel, m.Nonce, mine, ekm)}); err != nil {
		return err
	}
	c.proved = true
	return nil
}
