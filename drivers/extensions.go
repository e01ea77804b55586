package drivers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Extension is one item of a backend's `extensions`: a loadable file
// (Path, with an optional EntryPoint) or an extension the database knows
// by Name (DuckDB's built-in ones, PostgreSQL's CREATE EXTENSION, with
// an optional Schema and Version there).
type Extension struct {
	Path       string `json:"path,omitempty"`
	Name       string `json:"name,omitempty"`
	EntryPoint string `json:"entry_point,omitempty"`
	Schema     string `json:"schema,omitempty"`
	Version    string `json:"version,omitempty"`
}

// String is the extension as plan shows it: the file or the name, then
// the other fields that are set.
func (e Extension) String() string {
	s := e.Path
	if s == "" {
		s = e.Name
	}
	if e.EntryPoint != "" {
		s += " (entry point " + e.EntryPoint + ")"
	}
	if e.Schema != "" {
		s += " (schema " + e.Schema + ")"
	}
	if e.Version != "" {
		s += " (version " + e.Version + ")"
	}
	return s
}

// ExtensionChecker is implemented by drivers that can tell, before any
// store is opened or loaded, that a backend's extensions cannot be loaded
// (a missing file, a wrong entry point, an extension the server does not
// have), with the database's own error. The runner asks every cell of a
// run before the first one loads, so a bad extension stops the run before
// anything is written.
type ExtensionChecker interface {
	CheckExtensions(ctx context.Context, cfg Config) error
}

// ExtensionReporter is implemented by backends that report the identity
// of the extensions in force (a file's path and SHA-256, a server
// extension's version), for env.txt.
type ExtensionReporter interface {
	ExtensionFacts(ctx context.Context) ([]Fact, error)
}

// FileExtensionFacts are the env.txt facts of a loaded file: its path,
// size and SHA-256, under extension.<i>.
func FileExtensionFacts(i int, e Extension) []Fact {
	p := "extension." + strconv.Itoa(i) + "."
	facts := []Fact{{Key: p + "path", Value: e.Path}}
	if e.EntryPoint != "" {
		facts = append(facts, Fact{Key: p + "entry_point", Value: e.EntryPoint})
	}
	sum, size, err := FileSHA256(e.Path)
	if err != nil {
		return append(facts, Fact{Key: p + "sha256", Value: "unknown (" + err.Error() + ")"})
	}
	return append(facts, Fact{Key: p + "sha256", Value: sum}, Fact{Key: p + "bytes", Value: strconv.FormatInt(size, 10)})
}

// FileSHA256 is the hex SHA-256 and size of the file at path.
func FileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
