package worker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// serveRemote runs a worker of this package (sleeping clients) that dials
// addr with creds, as `worker -connect` does.
func serveRemote(addr string, creds Credentials) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, addr, creds)
	if err != nil {
		return err
	}
	defer c.Close()
	return Serve(ctx, c, openSleepCell)
}

// A listening coordinator gives nothing to a connection that does not
// prove the run's secret: a raw TCP client that sends hello, a TLS client
// that sends a wrong proof. Each is refused and counted, the point waits
// on, and a worker with the secret then serves it.
func TestListenRefusesStrangers(t *testing.T) {
	sec := testSecurity(t)
	const value = "postgres://bench:hunter2-very-secret@db/x"
	l := &Launcher{Listen: "127.0.0.1:0", Security: sec, Spec: SpecRef{Paths: []string{"/spec.hcl"},
		Sensitive: []SensitiveVar{{Name: "pg_dsn", Hash: VarHash(sec.Secret, "pg_dsn", []byte(value))}}}}
	defer l.Close()
	var mu sync.Mutex
	var logged []string
	l.OnRefused(func(err *AuthError, n int64) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, err.Error())
	})
	if err := l.Listening(); err != nil {
		t.Fatal(err)
	}
	addr := l.Addr()
	started := make(chan error, 1)
	var pool *Pool
	go func() {
		p, err := l.Start(context.Background(), testAssigns(1))
		pool = p
		started <- err
	}()

	// A raw TCP client: its hello is not even TLS.
	nc, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(nc, `{"type":"hello","version":4,"pid":1}`+"\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(io.LimitReader(nc, 1<<20))
	nc.Close()
	for _, bad := range []string{"assign", "hunter2", "pg_dsn", "spec.hcl"} {
		if strings.Contains(string(got), bad) {
			t.Errorf("a raw TCP client received %q: %q", bad, got)
		}
	}

	// TLS, but the wrong secret: refused, with nothing of the run.
	if err := serveRemote(addr, Credentials{Secret: []byte("not-the-secret-of-this-run")}); err == nil {
		t.Fatal("a worker with the wrong secret served")
	} else if !errors.Is(err, ErrRefused) && !strings.Contains(err.Error(), "did not prove") {
		t.Fatalf("wrong secret: %v", err)
	}
	// A stranger that forges a proof: told it is refused, and nothing else.
	func() {
		tc, err := tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer tc.Close()
		_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
		c := NewConn(tc, tc, tc)
		if err := c.Send(Msg{Type: TypeHello, Version: Version, Nonce: make([]byte, nonceLen)}); err != nil {
			t.Fatal(err)
		}
		if m, err := c.Recv(); err != nil || m.Type != TypeChallenge {
			t.Fatalf("challenge: %+v %v", m, err)
		}
		if err := c.Send(Msg{Type: TypeAuth, Proof: make([]byte, 32)}); err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(tc)
		if !strings.Contains(string(rest), `"refused"`) || strings.Contains(string(rest), "assign") || strings.Contains(string(rest), "hunter2") {
			t.Errorf("a forged proof got %q", rest)
		}
	}()
	select {
	case err := <-started:
		t.Fatalf("the point ended on strangers' connections: %v", err)
	case <-time.After(100 * time.Millisecond):
	}

	// The run's own worker, pinning the certificate.
	served := make(chan error, 1)
	go func() { served <- serveRemote(addr, sec.Credentials()) }()
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	res, err := pool.Rep(context.Background())
	if err != nil || len(res) != 2 || res[0].Count == 0 {
		t.Fatalf("rep: %v %+v", err, res)
	}
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatalf("the run's worker: %v", err)
	}
	if n := l.Refused(); n != 3 {
		t.Errorf("refused %d connections, want 3", n)
	}
	mu.Lock()
	defer mu.Unlock()
	// The three strangers connect at once: their refusals come in any order.
	var tlsRefusals, secretRefusals int
	for _, l := range logged {
		switch {
		case strings.Contains(l, "TLS handshake"):
			tlsRefusals++
		case strings.Contains(l, "wrong secret"):
			secretRefusals++
		}
	}
	if len(logged) != 3 || tlsRefusals != 1 || secretRefusals != 2 {
		t.Errorf("refusals logged: %q; want one TLS handshake and two wrong secrets", logged)
	}
}

// A worker refuses a coordinator that cannot prove the secret (another
// run, or a relay) and one whose certificate is not the pinned one.
func TestWorkerRefusesCoordinator(t *testing.T) {
	mine := testSecurity(t)
	other := testSecurity(t)
	for _, tc := range []struct {
		name  string
		coord *Security
		creds Credentials
		want  string
	}{
		{"another run's coordinator", other, Credentials{Secret: mine.Secret}, "did not prove"},
		{"a certificate not pinned", other, Credentials{Secret: other.Secret, Fingerprint: mine.Fingerprint}, "not the pinned"},
		{"a short secret", mine, Credentials{Secret: []byte("short")}, "at least 16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &Launcher{Listen: "127.0.0.1:0", Security: tc.coord}
			defer l.Close()
			if err := l.Listening(); err != nil {
				t.Fatal(err)
			}
			err := serveRemote(l.Addr(), tc.creds)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCredentialsFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text, secret, fp, err string
	}{
		{"bare secret", "0123456789abcdef0123\n", "0123456789abcdef0123", "", ""},
		{"written by the coordinator", "# run x\nsecret=0123456789abcdef0123\nfingerprint=sha256:AB:cd\n", "0123456789abcdef0123", "abcd", ""},
		{"too short", "abc\n", "", "", "at least 16"},
		{"empty", "# nothing\n", "", "", "no secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if err := os.WriteFile(p, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := ParseCredentialsFile(p)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || string(c.Secret) != tc.secret || c.Fingerprint != tc.fp {
				t.Fatalf("got %+v %v", c, err)
			}
		})
	}
	// What the coordinator writes reads back, and only its user reads it.
	sec := testSecurity(t)
	p := filepath.Join(dir, "written")
	if err := WriteCredentialsFile(p, sec.Credentials(), "test"); err != nil {
		t.Fatal(err)
	}
	c, err := ParseCredentialsFile(p)
	if err != nil || string(c.Secret) != string(sec.Secret) || c.Fingerprint != sec.Fingerprint {
		t.Fatalf("read back %+v %v", c, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
}

func TestVarHash(t *testing.T) {
	a, b := []byte("secret-one-0123456789"), []byte("secret-two-0123456789")
	h := VarHash(a, "pg_dsn", []byte("postgres://x"))
	for _, tc := range []struct {
		secret []byte
		name   string
		value  string
		same   bool
	}{
		{a, "pg_dsn", "postgres://x", true},
		{a, "pg_dsn", "postgres://y", false},
		{a, "other", "postgres://x", false},
		{b, "pg_dsn", "postgres://x", false},
	} {
		if got := SameVar(tc.secret, tc.name, []byte(tc.value), h); got != tc.same {
			t.Errorf("%s=%s: same %v, want %v", tc.name, tc.value, got, tc.same)
		}
	}
	if strings.Contains(h, "postgres") {
		t.Errorf("hash %s shows the value", h)
	}
}

// A connection refused before the run listens for refusals (the port
// opens when apply starts, the results directory later) is still told.
func TestEarlyRefusalsReplayed(t *testing.T) {
	l := &Launcher{}
	l.refuse(errors.New("no proof"))
	l.refuse(&AuthError{Remote: "10.0.0.9:1", Err: errors.New("wrong secret")})
	var got []string
	l.OnRefused(func(e *AuthError, n int64) { got = append(got, fmt.Sprintf("%d %s %v", n, e.Remote, e.Err)) })
	l.refuse(&AuthError{Remote: "10.0.0.9:2", Err: errors.New("late")})
	want := []string{"1 ? no proof", "2 10.0.0.9:1 wrong secret", "3 10.0.0.9:2 late"}
	if fmt.Sprint(got) != fmt.Sprint(want) || l.Refused() != 3 {
		t.Errorf("refusals told %q (count %d), want %q", got, l.Refused(), want)
	}
}
