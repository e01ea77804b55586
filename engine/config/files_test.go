package config_test

import (
	"bufio"
	"fmt"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all" // the real drivers, as the CLI has them
)

// loadAndValidate loads a spec as the CLI does: Validate runs only when
// Load reported no error. Env is empty so the host's environment does not
// leak into the result.
func loadAndValidate(paths []string, opts config.Options) (*config.Spec, hcl.Diagnostics) {
	if opts.Env == nil {
		opts.Env = []string{}
	}
	spec, diags := config.Load(paths, opts)
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	return spec, diags
}

// marker is one expected diagnostic: "# ERROR: <summary>" at the end of
// the line the diagnostic's subject starts on.
type marker struct {
	Line    int
	Summary string
}

var markerRE = regexp.MustCompile(`#\s*ERROR:\s*(.+?)\s*$`)

func readMarkers(t *testing.T, path string) []marker {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []marker
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if m := markerRE.FindStringSubmatch(sc.Text()); m != nil {
			out = append(out, marker{Line: line, Summary: m[1]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func diagText(d *hcl.Diagnostic) string {
	where := "(no subject)"
	if d.Subject != nil {
		where = fmt.Sprintf("%s:%d", filepath.Base(d.Subject.Filename), d.Subject.Start.Line)
	}
	return fmt.Sprintf("%s: %s; %s", where, d.Summary, d.Detail)
}

// TestInvalidFiles loads each spec under testdata/invalid-files and
// requires the set of (line, summary) of its diagnostics to equal the
// file's # ERROR markers: a missing error, an error on another line and an
// unexpected extra error all fail.
func TestInvalidFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "invalid-files", "*.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no invalid-files fixtures")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := readMarkers(t, path)
			if len(want) == 0 {
				t.Fatalf("%s has no # ERROR marker", path)
			}
			_, diags := loadAndValidate([]string{path}, config.Options{})
			matched := make([]bool, len(want))
			seen := map[string]bool{}
			for _, d := range diags {
				if k := diagText(d) + fmt.Sprint(d.Subject); seen[k] {
					t.Errorf("error reported twice: %s", diagText(d))
				} else {
					seen[k] = true
				}
				if d.Severity != hcl.DiagError {
					t.Errorf("unexpected warning %s", diagText(d))
					continue
				}
				if d.Subject == nil {
					t.Errorf("error without a subject: %s", diagText(d))
					continue
				}
				if filepath.Clean(d.Subject.Filename) != filepath.Clean(path) {
					t.Errorf("error points at another file: %s", diagText(d))
					continue
				}
				found := false
				for i, m := range want {
					if m.Line == d.Subject.Start.Line && strings.HasPrefix(d.Summary, m.Summary) {
						matched[i], found = true, true
					}
				}
				if !found {
					t.Errorf("unexpected error %s", diagText(d))
				}
			}
			for i, m := range want {
				if !matched[i] {
					t.Errorf("%s:%d: missing error %q", filepath.Base(path), m.Line, m.Summary)
				}
			}
			if t.Failed() {
				var all []string
				for _, d := range diags {
					all = append(all, diagText(d))
				}
				sort.Strings(all)
				t.Logf("all diagnostics:\n%s", strings.Join(all, "\n"))
			}
		})
	}
}

// TestValidFiles loads each spec (file or directory) under
// testdata/valid-files and requires no diagnostic at all.
func TestValidFiles(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "valid-files"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() && !strings.HasSuffix(name, ".hcl") && !strings.HasSuffix(name, ".hcl.json") {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			spec, diags := loadAndValidate([]string{filepath.Join("testdata", "valid-files", name)}, config.Options{})
			for _, d := range diags {
				t.Errorf("%s", diagText(d))
			}
			if len(spec.Scales) == 0 || len(spec.Datasets) == 0 {
				t.Errorf("decoded %d scales and %d datasets", len(spec.Scales), len(spec.Datasets))
			}
		})
	}
	if n == 0 {
		t.Fatal("no valid-files fixtures")
	}
}

// TestDuplicateDetail: a duplicate names where the first one is.
func TestDuplicateDetail(t *testing.T) {
	path := filepath.Join("testdata", "invalid-files", "duplicates.hcl")
	_, diags := loadAndValidate([]string{path}, config.Options{})
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	n := 0
	for _, d := range diags {
		if !strings.HasPrefix(d.Summary, "Duplicate ") {
			continue
		}
		n++
		// The detail names the first declaration as file:line,col-col.
		m := regexp.MustCompile(`declared at [^:]+:(\d+),`).FindStringSubmatch(d.Detail)
		if m == nil {
			t.Errorf("%s: the detail names no position", diagText(d))
			continue
		}
		var line int
		fmt.Sscan(m[1], &line)
		if line >= d.Subject.Start.Line || line < 1 {
			t.Errorf("%s: the first declaration at line %d is not before it", diagText(d), line)
			continue
		}
		// The first declaration is the same kind of thing as the duplicate.
		first := strings.TrimSpace(lines[line-1])
		kind := strings.Fields(strings.TrimPrefix(d.Summary, "Duplicate "))[0]
		if kind != "local" && !strings.HasPrefix(first, kind) {
			t.Errorf("%s: line %d is %q, not a %s", diagText(d), line, first, kind)
		}
	}
	if n == 0 {
		t.Fatal("no duplicate reported")
	}
}
