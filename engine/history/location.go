package history

import (
	"net/url"
	"os"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// EnvVar names the environment variable that says where the history is
// when -db does not: a PostgreSQL URL carrying a password is then neither
// on a command line nor in a CI log.
const EnvVar = "MENTAT_SPEC_HISTORY_DB"

// Locate is where a history is: the -db value given, else EnvVar, else
// DefaultPath.
func Locate(flag string) string {
	if flag != "" {
		return flag
	}
	if v := os.Getenv(EnvVar); v != "" {
		return v
	}
	return DefaultPath
}

// IsURL reports whether loc names a PostgreSQL server rather than a file.
func IsURL(loc string) bool {
	return strings.HasPrefix(loc, "postgres://") || strings.HasPrefix(loc, "postgresql://")
}

// Password is the password loc carries, "" when none (a file, or a URL
// without one).
func Password(loc string) string {
	if !IsURL(loc) {
		return ""
	}
	u, err := url.Parse(loc)
	if err != nil || u.User == nil {
		return urlPasswordByHand(loc)
	}
	p, _ := u.User.Password()
	if q := u.Query().Get("password"); p == "" && q != "" {
		p = q
	}
	return p
}

// urlPasswordByHand finds the password of a URL net/url refuses (an
// unescaped character in it): between the scheme's "//", the first ":"
// and the last "@" before the path.
func urlPasswordByHand(loc string) string {
	rest := loc[strings.Index(loc, "//")+2:]
	if i := strings.IndexAny(rest, "/?"); i >= 0 && strings.LastIndex(rest[:i], "@") < 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, p, ok := strings.Cut(rest[:at], ":")
	if !ok {
		return ""
	}
	return p
}

// Display is loc as it may be printed: a URL's password replaced.
func Display(loc string) string {
	p := Password(loc)
	if p == "" {
		return loc
	}
	if u, err := url.Parse(loc); err == nil {
		if u.User != nil {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), "xxxxx")
			}
		}
		if q := u.Query(); q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	return strings.ReplaceAll(loc, p, "xxxxx")
}

// protect registers loc's password (and PGPASSWORD, which the driver
// reads too) with package redact, so that whatever the process writes
// through it, an error of the driver's included, never shows them.
func protect(loc string) {
	redact.Add(Password(loc), os.Getenv("PGPASSWORD"))
}
