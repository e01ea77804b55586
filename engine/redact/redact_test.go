package redact

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The set is process-wide: every test registers its own values.
const secret = `tok<"a'b&c d\e>`

func TestStringForms(t *testing.T) {
	Add(secret)
	jsonHTML, _ := json.Marshal(secret)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	enc.Encode(secret)
	for _, tt := range []struct{ name, text string }{
		{"plain", "x=" + secret + ";"},
		{"json", string(jsonHTML)},
		{"json without HTML escaping", plain.String()},
		{"go quoted", strconv.Quote(secret)},
		{"html", "<td>" + html.EscapeString(secret) + "</td>"},
		{"sql literal", "'" + strings.ReplaceAll(secret, "'", "''") + "'"},
		{"csv field", `"` + strings.ReplaceAll(secret, `"`, `""`) + `"`},
		{"twice", secret + secret},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.text)
			if !strings.Contains(got, Text) || strings.Contains(got, "a'b&c") || strings.Contains(got, "a''b&c") || strings.Contains(got, "a&#39;b") {
				t.Errorf("String(%q) = %q", tt.text, got)
			}
			if !Contains(tt.text) {
				t.Errorf("Contains(%q) is false", tt.text)
			}
		})
	}
	if got := String("nothing here"); got != "nothing here" {
		t.Errorf("a text without a value changed: %q", got)
	}
	if !Sensitive(secret) || Sensitive("tok") {
		t.Error("Sensitive is not exact")
	}
}

// A value cut across writes is still redacted; what cannot start one is
// written at once.
func TestWriterSplitValue(t *testing.T) {
	const v = "hunter-two-42"
	Add(v)
	for cut := 0; cut <= len(v); cut++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		for _, part := range []string{"a " + v[:cut], v[cut:] + " b\n", "tail " + v[:5]} {
			if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("Write(%q) = %d, %v", part, n, err)
			}
		}
		if got := out.String(); got != "a "+Text+" b\ntail " {
			t.Fatalf("cut %d: before Flush %q", cut, got)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != "a "+Text+" b\ntail "+v[:5] {
			t.Fatalf("cut %d: after Close %q", cut, got)
		}
	}
}

func TestWriteFileAndFile(t *testing.T) {
	Add("file-secret-9")
	p := filepath.Join(t.TempDir(), "f.txt")
	if err := WriteFile(p, []byte("x file-secret-9 y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "x "+Text+" y" {
		t.Errorf("file holds %q", b)
	}
	if f, ok := File(NewWriter(NewWriter(os.Stderr))); !ok || f != os.Stderr {
		t.Error("File does not see the *os.File beneath two writers")
	}
	if _, ok := File(&bytes.Buffer{}); ok {
		t.Error("File found a file in a buffer")
	}
}

// A command's environment has the value in force, over this process's.
func TestEnvironOverrides(t *testing.T) {
	t.Setenv("REDACT_TEST_VAR", "from-env")
	SetEnv("REDACT_TEST_VAR", "from-var")
	n := 0
	for _, kv := range Environ() {
		if strings.HasPrefix(kv, "REDACT_TEST_VAR=") {
			n++
			if kv != "REDACT_TEST_VAR=from-var" {
				t.Errorf("%s", kv)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d entries for the key", n)
	}
}
