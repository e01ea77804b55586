package results

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixtureRun copies testdata/<name> into a temporary directory whose
// measured files carry a fixed modification time, so reports that show
// the run's duration are the same on every checkout.
func fixtureRun(t *testing.T, name string, end time.Time) string {
	t.Helper()
	src := filepath.Join("testdata", name)
	dst := filepath.Join(t.TempDir(), filepath.Base(name))
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return err
		}
		return os.Chtimes(to, end, end)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

var fixtureEnd = time.Date(2026, 11, 30, 10, 4, 25, 0, time.UTC)

func TestLoadEveryFile(t *testing.T) {
	r, err := Load(fixtureRun(t, "report/run1", fixtureEnd))
	if err != nil {
		t.Fatal(err)
	}
	counts := []struct {
		what      string
		got, want int
	}{
		{"timings", len(r.Timings), 67},
		{"raw", len(r.Raw), 67},
		{"loads", len(r.Loads), 6},
		{"windows", len(r.Windows), 24},
		{"checks", len(r.Checks), 13},
		{"sizes", len(r.Sizes), 6},
		{"plans", len(r.Plans), 1},
		{"logs", len(r.Logs), 1},
		{"invocations", len(r.Invocations), 1},
	}
	for _, c := range counts {
		if c.got != c.want {
			t.Errorf("%s: %d rows, want %d", c.what, c.got, c.want)
		}
	}
	if r.Name != "run1" {
		t.Errorf("name %q, want the directory's", r.Name)
	}
	if !r.LastWrite.Equal(fixtureEnd) || r.LastWrite.Sub(r.Started()) != 4*time.Minute+25*time.Second {
		t.Errorf("started %v, last write %v", r.Started(), r.LastWrite)
	}
	if got := strings.Join(r.Scales(), " "); got != "xs s" {
		t.Errorf("scales %q, want smallest first", got)
	}
	if got := strings.Join(r.Backends(), " "); got != "duckdb postgres sqlite" {
		t.Errorf("backends %q", got)
	}
	w := r.Windows[0]
	if w.Scenario != "sustained" || w.Op != "read" || w.Clients != 4 || w.Count == 0 || w.P99Ms <= w.P50Ms {
		t.Errorf("window row %+v", w)
	}
	var seqscan string
	for _, s := range r.BackendSettings() {
		if s.Backend == "postgres" && s.Key == "setting.enable_seqscan" {
			seqscan = s.Value(r.Scales())
		}
		if s.Key == CacheSettingKey {
			t.Errorf("the driver's cache setting is listed as a setting in force: %+v", s)
		}
		if s.Backend == "duckdb" && s.Key == "setting.threads" {
			if got := s.Value(r.Scales()); got != "xs: 4; s: 8" {
				t.Errorf("a setting that differs by scale reads %q", got)
			}
		}
	}
	if seqscan != "off" {
		t.Errorf("postgres enable_seqscan reads %q, want off", seqscan)
	}
	if got := r.EnvValue("backend.duckdb.s." + CacheSettingKey); got != "memory_limit" {
		t.Errorf("duckdb's cache setting reads %q", got)
	}
}

func TestLoadTolerates(t *testing.T) {
	write := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	t.Run("empty directory", func(t *testing.T) {
		r, err := Load(write(t, nil))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Timings)+len(r.Loads)+len(r.Checks)+len(r.Env)+len(r.Plans) != 0 {
			t.Errorf("rows from nothing: %+v", r)
		}
	})
	t.Run("windows of a sustained run", func(t *testing.T) {
		r, err := Load(write(t, map[string]string{WindowsFile: WindowsHeader + "\nsoak,sqlite,xs,2,write,1,10,20,500,1,2,3,4,50,0,0\n"}))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Windows) != 1 || r.Windows[0].Op != "write" || r.Windows[0].StartS != 10 || r.Windows[0].Count != 500 || r.Windows[0].P50Ms != 1 {
			t.Errorf("windows %+v", r.Windows)
		}
	})
	errs := []struct{ name, file, body string }{
		{"timings without a column", TimingsFile, "scenario,backend\nx,y\n"},
		{"a number that is not one", TimingsFile, TimingsHeader + "\npull,sqlite,xs,1000,1,read,ten,1,1,1,1,1,0,1\n"},
		{"windows without backend", WindowsFile, "scenario,ops\nx,1\n"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Load(write(t, map[string]string{tt.file: tt.body})); err == nil {
				t.Error("no error")
			}
		})
	}
	t.Run("missing directory", func(t *testing.T) {
		if _, err := Load(filepath.Join(t.TempDir(), "nope")); err == nil {
			t.Error("no error")
		}
	})
}
