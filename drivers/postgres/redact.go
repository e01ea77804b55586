package postgres

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// The password of a URL DSN (scheme://user:password@host) and of a
// keyword/value DSN (password=...), for DSNs pgx cannot parse.
var (
	urlPassword = regexp.MustCompile(`(://[^:/@\s]*:)[^@\s]*@`)
	kvPassword  = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:\\.|[^'])*'|[^\s]+)`)
)

const redacted = "xxxxx"

// dsnSecrets extracts the password of a DSN even when it does not parse,
// in its raw and its decoded form.
func dsnSecrets(dsn string) []string {
	var out []string
	add := func(s string) {
		s = strings.Trim(s, "'")
		if s != "" {
			out = append(out, s)
		}
	}
	if m := urlPassword.FindStringSubmatch(dsn); m != nil {
		pw := strings.TrimSuffix(strings.TrimPrefix(m[0], m[1]), "@")
		add(pw)
		if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
			add(dec)
		}
	}
	for _, m := range kvPassword.FindAllStringSubmatch(dsn, -1) {
		add(m[2])
	}
	return out
}

// redactedError hides secrets in the text of an error. It unwraps only to
// the parts of the chain that cannot hold a DSN: context errors and server
// errors, so errors.Is(err, context.DeadlineExceeded) still works.
type redactedError struct {
	msg  string
	safe []error
}

func (e *redactedError) Error() string   { return e.msg }
func (e *redactedError) Unwrap() []error { return e.safe }

func safeCauses(err error) []error {
	var out []error
	for _, target := range []error{context.DeadlineExceeded, context.Canceled} {
		if errors.Is(err, target) {
			out = append(out, target)
		}
	}
	if errors.Is(err, drivers.ErrConnLost) {
		out = append(out, drivers.ErrConnLost)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		out = append(out, pgErr)
	}
	return out
}

// redact returns err with every secret and DSN password in its text
// replaced.
func redact(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := redactString(err.Error(), secrets)
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, safe: safeCauses(err)}
}

func redactString(s string, secrets []string) string {
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, redacted)
	}
	s = urlPassword.ReplaceAllString(s, "${1}"+redacted+"@")
	return kvPassword.ReplaceAllString(s, "${1}"+redacted)
}

// dsnParseError reports a DSN that does not parse without quoting it: the
// parser's message holds the DSN with only its password masked, and the
// README promises a DSN never appears in output (user, host and database
// name included).
func dsnParseError(name, dsn string, err error, secrets []string) error {
	reason := err.Error()
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		// "cannot parse `<dsn>`: reason": keep what follows the quoted DSN.
		if i := strings.LastIndex(reason, "`: "); i >= 0 {
			reason = reason[i+len("`: "):]
		}
		if pce.ConnString != "" {
			reason = strings.ReplaceAll(reason, pce.ConnString, "<dsn>")
		}
	}
	if dsn != "" {
		reason = strings.ReplaceAll(reason, dsn, "<dsn>")
	}
	return &redactedError{msg: name + ": option dsn does not parse: " + redactString(reason, secrets), safe: safeCauses(err)}
}
