// Package redact keeps the values of sensitive variables out of
// everything the engine writes: the files of a results directory, its
// logs, the console and the reports. The spec loader registers each
// sensitive value once it is known (Add); every writer of output passes
// its bytes through String, Bytes, a Writer or WriteFile, which replace
// each occurrence of a registered value, in the forms the engine writes
// text in (plain, JSON, HTML, CSV, SQL and Go quoting, URL escaping), by
// Text.
//
// The set is process-wide and only grows: a value registered by one spec
// stays redacted for the life of the process, so no writer needs to be
// told which run it serves.
package redact

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Text replaces a sensitive value wherever it would be written.
const Text = "(sensitive)"

// MinLen is the shortest value that can be redacted: a shorter one
// occurs by chance in names and numbers, and replacing it would garble
// the output (and the files the engine reads back).
const MinLen = 4

var set struct {
	mu      sync.RWMutex
	values  map[string]bool // every form registered
	longest int
	repl    *strings.Replacer
}

// Add registers sensitive values (empty ones are ignored) with the forms
// they take once encoded.
func Add(values ...string) {
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.values == nil {
		set.values = map[string]bool{}
	}
	changed := false
	for _, v := range values {
		if v == "" {
			continue
		}
		for _, f := range forms(v) {
			if f != "" && !set.values[f] {
				set.values[f] = true
				set.longest = max(set.longest, len(f))
				changed = true
			}
		}
	}
	if !changed {
		return
	}
	// Longest first: a value inside another one's encoded form must not
	// cut that form before it is matched whole.
	all := make([]string, 0, len(set.values))
	for f := range set.values {
		all = append(all, f)
	}
	slices.SortFunc(all, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	pairs := make([]string, 0, 2*len(all))
	for _, f := range all {
		pairs = append(pairs, f, Text)
	}
	set.repl = strings.NewReplacer(pairs...)
}

// forms is v as the engine's writers may spell it.
func forms(v string) []string {
	out := []string{v}
	if b, err := json.Marshal(v); err == nil { // HTML-safe JSON (<, >, & as \u003c ...)
		out = append(out, string(b[1:len(b)-1]))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		b := bytes.TrimSpace(buf.Bytes())
		out = append(out, string(b[1:len(b)-1]))
	}
	q := strconv.Quote(v) // Go's %q in error messages
	out = append(out, q[1:len(q)-1],
		html.EscapeString(v),
		strings.ReplaceAll(v, "'", "''"), // SQL literal
		strings.ReplaceAll(v, `"`, `""`), // CSV field
		url.QueryEscape(v), url.PathEscape(v),
		strings.NewReplacer(`\`, `\\`, "\r", `\r`, "\n", `\n`).Replace(v), // env.txt
	)
	return out
}

// Active reports whether any value is registered.
func Active() bool {
	set.mu.RLock()
	defer set.mu.RUnlock()
	return set.repl != nil
}

// String is s with every sensitive value replaced by Text.
func String(s string) string {
	set.mu.RLock()
	r := set.repl
	set.mu.RUnlock()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// Bytes is b with every sensitive value replaced by Text; b itself when
// it holds none.
func Bytes(b []byte) []byte {
	set.mu.RLock()
	r := set.repl
	set.mu.RUnlock()
	if r == nil {
		return b
	}
	s := r.Replace(string(b))
	if len(s) == len(b) && s == string(b) {
		return b
	}
	return []byte(s)
}

// Contains reports whether s holds a sensitive value.
func Contains(s string) bool { return String(s) != s }

// Sensitive reports whether s is itself one of the registered values.
func Sensitive(s string) bool {
	set.mu.RLock()
	defer set.mu.RUnlock()
	return set.values[s]
}

// longestPrefixTail is the length of the longest suffix of b that is a
// proper prefix of a registered form: the bytes a streaming writer holds
// back until it knows whether they start a value.
func longestPrefixTail(b []byte) int {
	set.mu.RLock()
	defer set.mu.RUnlock()
	best := 0
	for f := range set.values {
		n := min(len(f)-1, len(b))
		for ; n > best; n-- {
			if string(b[len(b)-n:]) == f[:n] {
				best = n
				break
			}
		}
	}
	return best
}

// Writer redacts what passes through it to w. A value cut across two
// writes is still found: the bytes that may start one are held back until
// the next write shows they do not, or until Flush.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte
}

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unwrap is the writer beneath, e.g. to ask whether it is a terminal.
func (rw *Writer) Unwrap() io.Writer { return rw.w }

// Write redacts p and writes what cannot start a sensitive value. It
// reports len(p) written when the writer beneath took everything it was
// given.
func (rw *Writer) Write(p []byte) (int, error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if !Active() && len(rw.held) == 0 {
		return rw.w.Write(p)
	}
	buf := append(rw.held, p...)
	out := Bytes(buf)
	keep := longestPrefixTail(out)
	if _, err := rw.w.Write(out[:len(out)-keep]); err != nil {
		rw.held = nil
		return 0, err
	}
	rw.held = append([]byte(nil), out[len(out)-keep:]...)
	return len(p), nil
}

// Flush writes the held bytes: nothing more follows them.
func (rw *Writer) Flush() error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if len(rw.held) == 0 {
		return nil
	}
	_, err := rw.w.Write(rw.held)
	rw.held = nil
	return err
}

// Close flushes, then closes w when it is a Closer.
func (rw *Writer) Close() error {
	err := rw.Flush()
	if c, ok := rw.w.(io.Closer); ok {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// WriteFile is os.WriteFile of the redacted data.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	return os.WriteFile(name, Bytes(data), perm)
}

// File returns the *os.File beneath w's redacting writers, if any, so a
// caller can ask whether it is a terminal.
func File(w io.Writer) (*os.File, bool) {
	for {
		switch x := w.(type) {
		case *os.File:
			return x, true
		case interface{ Unwrap() io.Writer }:
			w = x.Unwrap()
		default:
			return nil, false
		}
	}
}

var env struct {
	mu   sync.Mutex
	vars map[string]string
}

// SetEnv gives the commands the engine starts (samplers, restart and
// drop_caches) key=value in their environment: a sensitive value reaches
// a command there, never as an argument, which every user of the host
// can read.
func SetEnv(key, value string) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.vars == nil {
		env.vars = map[string]string{}
	}
	env.vars[key] = value
}

// Environ is the environment of a command the engine starts: this
// process's, with the entries of SetEnv in place of its own (a -var
// overrides the environment, as for the spec).
func Environ() []string {
	env.mu.Lock()
	defer env.mu.Unlock()
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := env.vars[k]; !ours {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(env.vars))
	for k := range env.vars {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+env.vars[k])
	}
	return out
}
