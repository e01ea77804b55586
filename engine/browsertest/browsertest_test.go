package browsertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestOpen: a clean page reports nothing; a page that logs an error,
// throws and asks for a file elsewhere reports each.
func TestOpen(t *testing.T) {
	exe := Exe(t)
	for _, tc := range []struct {
		name, html string
		want       []string
	}{
		{"clean", `<!doctype html><title>ok</title><body><p>fine</p>`, nil},
		{"noisy", `<!doctype html><title>bad</title><body><img src="http://127.0.0.1:9/x.png">
<script>console.error("boom"); throw new Error("thrown");</script>`,
			[]string{"console.error", "exception", "a request for http://127.0.0.1:9/x.png"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "page.html")
			if err := os.WriteFile(path, []byte(tc.html), 0o644); err != nil {
				t.Fatal(err)
			}
			page := Open(t, exe, path)
			title, err := chromedp.Run(page.Ctx, chromedp.Title())
			if err != nil {
				t.Fatal(err)
			}
			if title == "" {
				t.Error("the page has no title: it did not load")
			}
			// Events arrive on their own channel: wait for the wanted ones
			// a while rather than assume they came with the load.
			got := strings.Join(page.Problems(), "\n")
			for deadline := time.Now().Add(20 * time.Second); !containsAll(got, tc.want) && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
				got = strings.Join(page.Problems(), "\n")
			}
			if len(tc.want) == 0 && got != "" {
				t.Errorf("a clean page reported:\n%s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems lack %q:\n%s", w, got)
				}
			}
		})
	}
}

func containsAll(s string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
