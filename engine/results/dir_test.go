package results

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func openT(t *testing.T, dir string) *Dir {
	t.Helper()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)) }
	return d
}

func closeT(t *testing.T, d *Dir) CheckCounts {
	t.Helper()
	c, err := d.Close()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var sample = Row{Scenario: "point_lookup", Backend: "postgres", Scale: "s", NDatoms: 984803, Clients: 1, Op: "read",
	Rep: 1, Count: 1000, P50Ms: 0.41, P95Ms: 0.5, P99Ms: 0.61, MaxMs: 3.2, Throughput: 2400.5, Errors: 1, Reps: 3}

func TestDirRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d := openT(t, dir)
	odd := sample
	odd.Scenario = `odd, "name"`
	post, vacuum := 2.41, 0.4
	load := LoadRow{Backend: "postgres", Scale: "s", NDatoms: 984803, WallS: 7.5, DatomsPerS: 131098.2, PostLoadS: &post, VacuumS: &vacuum, Jobs: 2, Ceiling: true}
	must(t, d.AppendRaw(sample))
	must(t, d.AppendRaw(odd))
	must(t, d.AppendTiming(sample))
	must(t, d.AppendLoad(load))
	must(t, d.AppendSize(SizeRow{Scale: "s", Backend: "postgres", Bytes: 858993459, SharedBuffers: 1 << 34}))
	closeT(t, d)

	raw, err := ReadRaw(dir)
	must(t, err)
	wantRaw := []Row{sample, odd}
	for i := range wantRaw {
		wantRaw[i].Reps = 0
	}
	if len(raw) != 2 || raw[0] != wantRaw[0] || raw[1] != wantRaw[1] {
		t.Errorf("raw: got %+v\nwant %+v", raw, wantRaw)
	}
	timings, err := ReadTimings(dir)
	must(t, err)
	wantT := sample
	wantT.Rep = 0
	if len(timings) != 1 || timings[0] != wantT {
		t.Errorf("timings: got %+v, want %+v", timings, wantT)
	}
	loads, err := ReadLoads(dir)
	must(t, err)
	if len(loads) != 1 || !reflect.DeepEqual(loads[0], load) {
		t.Errorf("loads: got %+v, want %+v", loads, load)
	}
	sizes, err := readSizes(dir)
	must(t, err)
	if len(sizes) != 1 || sizes[0].Bytes != 858993459 || sizes[0].SharedBuffers != 1<<34 {
		t.Errorf("sizes: %+v", sizes)
	}
	if err := d.AppendRaw(sample); err == nil {
		t.Error("append after Close: no error")
	}
	if _, err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := ReadTimings(filepath.Join(dir, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing dir: err %v, want fs.ErrNotExist", err)
	}
}

func TestDirResume(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		d := openT(t, dir)
		must(t, d.AppendTiming(sample))
		closeT(t, d)
	}
	got := readFile(t, filepath.Join(dir, TimingsFile))
	if n := strings.Count(got, TimingsHeader); n != 1 {
		t.Errorf("%d headers after a resume:\n%s", n, got)
	}
	rows, err := ReadTimings(dir)
	must(t, err)
	if len(rows) != 2 {
		t.Errorf("%d rows, want 2", len(rows))
	}
	// Files no row was written to are not created.
	if _, err := os.Stat(filepath.Join(dir, LoadsFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("loads.csv created without rows: %v", err)
	}
}

func TestDirTornLine(t *testing.T) {
	dir := t.TempDir()
	torn := TimingsHeader + "\npoint_lookup,postgres,s,984803,1,read,10,0.4\n" + `pull,post` // a crash mid-row
	must(t, os.WriteFile(filepath.Join(dir, TimingsFile), []byte(torn), 0o644))
	d := openT(t, dir)
	must(t, d.AppendTiming(sample))
	closeT(t, d)
	rows, err := ReadTimings(dir)
	must(t, err)
	if len(rows) != 1 || rows[0].Scenario != "point_lookup" || rows[0].Reps != 3 {
		t.Errorf("rows %+v: want only the whole appended row", rows)
	}
	if got := readFile(t, filepath.Join(dir, TimingsFile)); !strings.HasPrefix(got, torn+"\n") {
		t.Errorf("existing bytes changed:\n%s", got)
	}
}

func TestOpenRejects(t *testing.T) {
	tests := []struct {
		name, file, content, want string
	}{
		{"other header", TimingsFile, "scenario,backend,p50\n", "not a results file"},
		{"raw with the timings header", RawFile, TimingsHeader + "\n", "not a results file"},
		// A device or a binary file: the error quotes a short head of it.
		{"no newline in 1 MiB", TimingsFile, strings.Repeat("\x00", 1<<20), "... (65536 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.content), 0o644))
			_, err := Open(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
			if err != nil && len(err.Error()) > 1024 {
				t.Errorf("the error is %d bytes long", len(err.Error()))
			}
		})
	}
	if _, err := Open(""); err == nil {
		t.Error("empty name: no error")
	}
}

func TestBadRows(t *testing.T) {
	d := openT(t, t.TempDir())
	defer closeT(t, d)
	tests := []struct {
		name string
		err  error
	}{
		{"raw without op", d.AppendRaw(Row{Scenario: "a", Backend: "b", Scale: "c"})},
		{"timing without scenario", d.AppendTiming(Row{Backend: "b", Scale: "c", Op: "read"})},
		{"load without scale", d.AppendLoad(LoadRow{Backend: "b"})},
		{"size without backend", d.AppendSize(SizeRow{Scale: "s"})},
		{"check with a bad status", d.AppendCheck(CheckLine{Status: "OK", Name: "x"})},
	}
	for _, tc := range tests {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestWriteEnv(t *testing.T) {
	dir := t.TempDir()
	d := openT(t, dir)
	must(t, d.WriteEnv([]KV{
		{"kernel", "6.12"},
		{"pg_dsn", "postgres://bench:hunter2@db/x"},
		{"backend.postgres.url", "postgres://bench:hunter2@db:5432/x?sslmode=disable"},
		{"conn", "host=db user=bench password=hunter2 dbname=x"},
		{"MENTAT_TOKEN", "abc"},
		{"custom", "visible-to-default-but-marked"},
		{"settings", "work_mem=64MB\nshared_buffers=8GB"},
		{"", "dropped"},
	}, func(k string) bool { return k == "custom" }))
	must(t, d.WriteEnv([]KV{{"kernel", "6.13"}}, nil))
	must(t, d.WriteEnvLines([]KV{{"backend.pg.s.version", "15.8"}, {"backend.pg.s.option.dsn", "host=x"}}, func(k string) bool { return strings.HasSuffix(k, ".dsn") }))
	must(t, d.WriteEnvLines(nil, nil))
	closeT(t, d)
	got := readFile(t, filepath.Join(dir, EnvFile))
	want := `# invocation 2026-01-02T02:04:05Z
kernel: 6.12
pg_dsn: (redacted)
backend.postgres.url: postgres://bench:(redacted)@db:5432/x?sslmode=disable
conn: host=db user=bench password=(redacted) dbname=x
MENTAT_TOKEN: (redacted)
custom: (redacted)
settings: work_mem=64MB\nshared_buffers=8GB
# invocation 2026-01-02T02:04:05Z
kernel: 6.13
backend.pg.s.version: 15.8
backend.pg.s.option.dsn: (redacted)
`
	if got != want {
		t.Errorf("env.txt:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "hunter2") {
		t.Error("a password reached env.txt")
	}
	env, err := ReadEnv(dir)
	must(t, err)
	if env[0] != (KV{"kernel", "6.13"}) || env[6].Value != "work_mem=64MB\nshared_buffers=8GB" {
		t.Errorf("ReadEnv: %+v", env)
	}
}

func TestChecksTotal(t *testing.T) {
	// A run that checked nothing still writes checks.txt with its TOTAL.
	empty := t.TempDir()
	closeT(t, openT(t, empty))
	if got := readFile(t, filepath.Join(empty, ChecksFile)); got != "TOTAL 0 PASS, 0 FAIL, 0 SKIP\n" {
		t.Errorf("checks.txt of a run without checks: %q", got)
	}
	dir := t.TempDir()
	d := openT(t, dir)
	must(t, d.AppendCheck(CheckLine{Status: Pass, Scenario: "pull", Backend: "sqlite", Scale: "s", Name: "title of fixed issues", Detail: "20/20"}))
	must(t, d.AppendCheck(CheckLine{Status: Fail, Scenario: "since", Backend: "sqlite", Scale: "s", Name: "distinct count", Detail: "6491 != 6492"}))
	closeT(t, d)
	// A second invocation counts the whole file; one that adds no check
	// writes no TOTAL line.
	d = openT(t, dir)
	must(t, d.AppendCheck(CheckLine{Status: Skip, Scenario: "as_of", Backend: "sqlite", Scale: "s", Name: "pre-update states", Detail: "timeout"}))
	if got := closeT(t, d); got != (CheckCounts{Skip: 1}) {
		t.Errorf("Close counts %+v, want this invocation's: one SKIP", got)
	}
	d = openT(t, dir)
	if got := closeT(t, d); got != (CheckCounts{}) {
		t.Errorf("Close counts %+v, want none", got)
	}
	got := readFile(t, filepath.Join(dir, ChecksFile))
	want := `PASS pull sqlite s title of fixed issues: 20/20
FAIL since sqlite s distinct count: 6491 != 6492
TOTAL 1 PASS, 1 FAIL, 0 SKIP
SKIP as_of sqlite s pre-update states: timeout
TOTAL 1 PASS, 1 FAIL, 1 SKIP
`
	if got != want {
		t.Errorf("checks.txt:\n%s\nwant:\n%s", got, want)
	}
	lines, err := readChecks(dir)
	must(t, err)
	if len(lines) != 3 || lines[1].Name != "distinct count" || lines[1].Detail != "6491 != 6492" {
		t.Errorf("readChecks: %+v", lines)
	}
}

func TestPlanAndLog(t *testing.T) {
	dir := t.TempDir()
	d := openT(t, dir)
	defer closeT(t, d)
	name := ScenarioPlanName("s", "postgres", "lookup", "q1", "json")
	for i := 0; i < 2; i++ {
		w, err := d.Plan(name)
		must(t, err)
		_, err = w.Write([]byte("plan\n"))
		must(t, err)
		must(t, w.Close())
		l, err := d.Log("load-postgres-s")
		must(t, err)
		_, err = l.Write([]byte("line\n"))
		must(t, err)
		must(t, l.Close())
	}
	if got := readFile(t, filepath.Join(dir, PlansDir, name)); got != "plan\nplan\n" {
		t.Errorf("plan %q: want appended twice", got)
	}
	if got := readFile(t, filepath.Join(dir, LogsDir, "load-postgres-s.log")); got != "line\nline\n" {
		t.Errorf("log %q: want appended twice", got)
	}
	for _, bad := range []string{"", "../x", "a/b", ".", "..", ".hidden"} {
		if _, err := d.Plan(bad); err == nil {
			t.Errorf("plan name %q: no error", bad)
		}
		if _, err := d.Log(bad); err == nil && bad != "" {
			t.Errorf("log name %q: no error", bad)
		}
	}
}

func TestDirConcurrent(t *testing.T) {
	dir := t.TempDir()
	d := openT(t, dir)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				r := sample
				r.Rep = i
				if err := d.AppendRaw(r); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	closeT(t, d)
	rows, err := ReadRaw(dir)
	must(t, err)
	if len(rows) != 400 {
		t.Errorf("%d rows, want 400", len(rows))
	}
}
