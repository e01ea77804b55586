package history

import (
	"context"
	"errors"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// detailDriver declares detailed settings this package names nowhere.
type detailDriver struct{}

func (detailDriver) Dialect() string        { return "detailtest" }
func (detailDriver) OptionNames() []string  { return nil }
func (detailDriver) DetailedKeys() []string { return []string{"detail_setting.", "build_flags"} }
func (detailDriver) DetailedName() string   { return "the test database's settings" }
func (detailDriver) Open(context.Context, drivers.Config) (drivers.Backend, error) {
	return nil, errors.New("not opened")
}

func init() { drivers.Default.MustRegister("detailtest-history", detailDriver{}) }

// A driver's detailed settings make two runs differ like the settings a
// spec names; other backend lines do not.
func TestReportedKeyDetailedFromDriver(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"backend.d.xs.detail_setting.threads", true},
		{"backend.d.xs.build_flags", true},
		{"backend.d.xs.setting.cache", true},
		{"backend.d.xs.driver", true},
		{"backend.d.xs.build_flags_extra", false},
		{"backend.d.xs.cache_setting", false},
		{"backend.d.xs.option.path", false},
		{"backend.d.s.detail_setting.threads", false}, // another scale
	} {
		if got := reportedKey(tc.key, "d", "xs"); got != tc.want {
			t.Errorf("reportedKey(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
}
