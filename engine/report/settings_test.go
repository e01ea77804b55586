package report

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// detailDriver is a database this package has never heard of, declaring
// its own detailed settings.
type detailDriver struct{}

func (detailDriver) Dialect() string        { return "detailtest" }
func (detailDriver) OptionNames() []string  { return nil }
func (detailDriver) DetailedKeys() []string { return []string{"detail_setting.", "build_flags"} }
func (detailDriver) DetailedName() string   { return "the test database's whole configuration" }
func (detailDriver) Open(context.Context, drivers.Config) (drivers.Backend, error) {
	return nil, errors.New("not opened")
}

func init() { drivers.Default.MustRegister("detailtest-report", detailDriver{}) }

// The summary counts the lines a driver declares detailed, and names them
// as the driver does; the others are listed.
func TestSummaryDetailedSettingsFromDriver(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		results.TimingsFile: results.TimingsHeader + "\npoint_lookup,d,xs,1000,1,read,10,0.05,0.06,0.07,0.1,200,0,1\n",
		results.EnvFile: "backend.d.xs.driver: detailtest-report\nbackend.d.xs.setting.cache: 1\n" +
			"backend.d.xs.detail_setting.a: 1\nbackend.d.xs.detail_setting.b: 2\nbackend.d.xs.build_flags: X Y\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := summaryOf(t, dir)
	want := "The databases' full settings in force (3 lines: the test database's whole configuration) are in env.txt."
	if !strings.Contains(out, want) || !strings.Contains(out, "| d | setting.cache | 1 |") {
		t.Errorf("summary lacks %q or the listed setting:\n%s", want, out)
	}
	if strings.Contains(out, "detail_setting.a") || strings.Contains(out, "build_flags") {
		t.Errorf("summary lists a detailed setting:\n%s", out)
	}
}
