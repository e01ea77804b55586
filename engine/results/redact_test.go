package results

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// Every way this package writes a file of a results directory redacts the
// sensitive values: rows, env.txt, logs, plans, the truth.
func TestDirRedactsSensitive(t *testing.T) {
	const secret = "dir-secret-5150"
	redact.Add(secret)
	dir := filepath.Join(t.TempDir(), "run")
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.AppendCheck(CheckLine{Status: Fail, Scenario: "s", Backend: "b", Scale: "xs", Name: "c " + secret, Detail: fmt.Sprintf("got %q", secret)}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteEnv([]KV{{Key: "note", Value: "x " + secret}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, open := range []func(string) (io.WriteCloser, error){
		d.Log,
		func(n string) (io.WriteCloser, error) { return d.Plan(n + ".txt") },
	} {
		w, err := open("f")
		if err != nil {
			t.Fatal(err)
		}
		// Cut across writes.
		fmt.Fprintf(w, "a %s", secret[:6])
		fmt.Fprintf(w, "%s b\n", secret[6:])
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteTruth(dir, "xs", map[string]string{"k": secret}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		n++
		if strings.Contains(string(b), secret) || !strings.Contains(string(b), redact.Text) {
			t.Errorf("%s:\n%s", p, b)
		}
		return nil
	})
	if n != 5 {
		t.Errorf("%d files written, want 5", n)
	}
}
