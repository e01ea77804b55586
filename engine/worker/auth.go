package worker

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"
)

// Environment variables a worker reads its credentials from (never
// command-line arguments: those are visible to every user of the machine).
const (
	// EnvSecret is the run's secret.
	EnvSecret = "MENTAT_SPEC_WORKER_SECRET"
	// EnvFingerprint is the SHA-256 fingerprint of the coordinator's
	// certificate, which the worker then pins.
	EnvFingerprint = "MENTAT_SPEC_WORKER_FINGERPRINT"
)

// minSecret is the shortest secret accepted: 128 bits.
const minSecret = 16

// Labels of the proofs and of the TLS keying material they are bound to.
// Each side proves with its own label, so one side's proof is never a
// valid proof of the other.
const (
	exporterLabel    = "EXPORTER-mentat-spec-worker-v4"
	coordinatorLabel = "mentat-spec/4 coordinator proof"
	workerLabel      = "mentat-spec/4 worker proof"
	varLabel         = "mentat-spec/4 sensitive variable"
	nonceLen         = 32
)

// Credentials are what a worker holds to join a run over TCP: the run's
// secret and, optionally, how it verifies the coordinator's certificate
// (a pinned fingerprint, or CA roots for a certificate the user gave).
// Without either the coordinator is authenticated by its proof of the
// secret, which is bound to the TLS session (see docs/worker-protocol.md).
type Credentials struct {
	Secret      []byte
	Fingerprint string         // hex SHA-256 of the certificate's DER; "" when not pinned
	Roots       *x509.CertPool // verify the chain and host name against these
}

// GenerateSecret returns a fresh run secret: 32 random bytes, hex.
func GenerateSecret() ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("generating the run's secret: %w", err)
	}
	return []byte(hex.EncodeToString(b)), nil
}

// CheckSecret refuses a secret too short to resist guessing.
func CheckSecret(s []byte) error {
	if len(s) < minSecret {
		return fmt.Errorf("the worker secret has %d bytes; at least %d are needed", len(s), minSecret)
	}
	return nil
}

// ParseCredentialsFile reads a credentials file: either one line, the
// secret, or "secret=..." and "fingerprint=sha256:..." lines (as the
// coordinator writes them); # starts a comment.
func ParseCredentialsFile(path string) (Credentials, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Credentials{}, fmt.Errorf("reading the worker credentials: %w", err)
	}
	var c Credentials
	var bare []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		switch {
		case ok && k == "secret":
			c.Secret = []byte(strings.TrimSpace(v))
		case ok && k == "fingerprint":
			c.Fingerprint = NormalizeFingerprint(v)
		default:
			bare = append(bare, line)
		}
	}
	if c.Secret == nil && len(bare) == 1 {
		c.Secret = []byte(bare[0])
	}
	if c.Secret == nil {
		return Credentials{}, fmt.Errorf("%s holds no secret (one line, or secret=...)", path)
	}
	if err := CheckSecret(c.Secret); err != nil {
		return Credentials{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// WriteCredentialsFile writes c where only this user can read it.
func WriteCredentialsFile(path string, c Credentials, comment string) error {
	var b strings.Builder
	if comment != "" {
		fmt.Fprintf(&b, "# %s\n", comment)
	}
	fmt.Fprintf(&b, "secret=%s\n", c.Secret)
	if c.Fingerprint != "" {
		fmt.Fprintf(&b, "fingerprint=sha256:%s\n", c.Fingerprint)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing the worker credentials: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("writing the worker credentials: %w", err)
	}
	return f.Close()
}

// NormalizeFingerprint is a fingerprint as hex, lower case, without its
// "sha256:" prefix or colons.
func NormalizeFingerprint(s string) string {
	s = strings.TrimSpace(strings.ToLower(s))
	s = strings.TrimPrefix(s, "sha256:")
	return strings.ReplaceAll(s, ":", "")
}

// Fingerprint is the hex SHA-256 of a certificate's DER encoding.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// Security is the coordinator's side: the run's secret and the
// certificate its TCP listeners present.
type Security struct {
	Secret      []byte
	Cert        tls.Certificate
	Fingerprint string // of Cert's leaf
}

// NewSecurity makes the coordinator's side from the run's secret and,
// when certFile and keyFile are set, the user's certificate; otherwise a
// self-signed certificate made for this run (its key never leaves this
// process).
func NewSecurity(secret []byte, certFile, keyFile string) (*Security, error) {
	if err := CheckSecret(secret); err != nil {
		return nil, err
	}
	s := &Security{Secret: secret}
	var err error
	switch {
	case certFile != "" || keyFile != "":
		if certFile == "" || keyFile == "" {
			return nil, errors.New("a worker certificate needs both its certificate and its key file")
		}
		if s.Cert, err = tls.LoadX509KeyPair(certFile, keyFile); err != nil {
			return nil, fmt.Errorf("loading the worker certificate: %w", err)
		}
	default:
		if s.Cert, err = selfSigned(); err != nil {
			return nil, err
		}
	}
	s.Fingerprint = Fingerprint(s.Cert.Certificate[0])
	return s, nil
}

// selfSigned makes a certificate for one run: ECDSA P-256, valid for a
// week (a run's longest), for any name (workers pin it or rely on the
// secret's proof, never on the name).
func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generating the run's certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generating the run's certificate: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "mentat-spec coordinator"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generating the run's certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// serverTLS is the listeners' TLS configuration: TLS 1.3 only, whose
// exporter the proofs are bound to.
func (s *Security) serverTLS() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{s.Cert}, MinVersion: tls.VersionTLS13}
}

// Credentials are what a worker started by this coordinator gets: the
// secret and the certificate to pin.
func (s *Security) Credentials() Credentials {
	return Credentials{Secret: s.Secret, Fingerprint: s.Fingerprint}
}

// Environ is the credentials as a worker's environment.
func (c Credentials) Environ() []string {
	out := []string{EnvSecret + "=" + string(c.Secret)}
	if c.Fingerprint != "" {
		out = append(out, EnvFingerprint+"=sha256:"+c.Fingerprint)
	}
	return out
}

// clientTLS is a worker's TLS configuration for host: the pinned
// fingerprint when given, the roots when given, else any certificate
// (the coordinator then proves the secret over this very session).
func (c Credentials) clientTLS(host string) *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS13, ServerName: host}
	if c.Roots != nil && c.Fingerprint == "" {
		cfg.RootCAs = c.Roots
		return cfg
	}
	cfg.InsecureSkipVerify = true // checked below, or by the coordinator's proof
	if pin := c.Fingerprint; pin != "" {
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the coordinator presented no certificate")
			}
			got := Fingerprint(cs.PeerCertificates[0].Raw)
			if subtle.ConstantTimeCompare([]byte(got), []byte(pin)) != 1 {
				return fmt.Errorf("the coordinator's certificate is sha256:%s, not the pinned sha256:%s", got, pin)
			}
			return nil
		}
	}
	return cfg
}

// nonce is a fresh random challenge.
func nonce() ([]byte, error) {
	b := make([]byte, nonceLen)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("generating a nonce: %w", err)
	}
	return b, nil
}

// proof is HMAC-SHA256 with the secret over the label, both nonces and
// the TLS session's exported keying material: it shows the sender holds
// the secret, answers this challenge, and speaks over this TLS session
// (a relay between two sessions has two different exports).
func proof(secret []byte, label string, first, second, ekm []byte) []byte {
	m := hmac.New(sha256.New, secret)
	for _, part := range [][]byte{[]byte(label), first, second, ekm} {
		var n [4]byte
		n[0], n[1], n[2], n[3] = byte(len(part)>>24), byte(len(part)>>16), byte(len(part)>>8), byte(len(part))
		m.Write(n[:])
		m.Write(part)
	}
	return m.Sum(nil)
}

// exported is the session's keying material the proofs are bound to.
func exported(tc *tls.Conn) ([]byte, error) {
	cs := tc.ConnectionState()
	ekm, err := cs.ExportKeyingMaterial(exporterLabel, nil, 32)
	if err != nil {
		return nil, fmt.Errorf("exporting the TLS session's keying material: %w", err)
	}
	return ekm, nil
}

// VarHash is what an assignment carries of a sensitive variable instead
// of its value: HMAC-SHA256 with the run's secret over its name and
// value, hex. Without the secret it tells nothing of the value, however
// short the value is.
func VarHash(secret []byte, name string, value []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(varLabel))
	m.Write([]byte{0})
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(value)
	return hex.EncodeToString(m.Sum(nil))
}

// SameVar reports whether value hashes to want under secret.
func SameVar(secret []byte, name string, value []byte, want string) bool {
	got := VarHash(secret, name, value)
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
