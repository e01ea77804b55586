package runner_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// newDriver is a driver the engine has never heard of, registered by a
// test alone: it keeps SQLite's stores under its own name and declares
// its own store costs. The engine must give it estimates and admission
// with no edit of its own.
type newDriver struct {
	drivers.Driver
	cost drivers.StoreCost
}

func (d newDriver) StoreCost() drivers.StoreCost { return d.cost }

func (d newDriver) StorePath(cfg drivers.Config) (string, error) {
	return d.Driver.(drivers.StoreLocator).StorePath(cfg)
}

var registerOnce sync.Once

// registerNewDrivers adds "newdb_huge" (a terabyte per datom) and
// "newdb_small" to the default registry.
func registerNewDrivers(t *testing.T) {
	t.Helper()
	registerOnce.Do(func() {
		base, ok := drivers.Default.Lookup("sqlite")
		if !ok {
			t.Fatal("no sqlite driver")
		}
		drivers.Default.MustRegister("newdb_huge", newDriver{Driver: base, cost: drivers.StoreCost{BytesPerDatom: 1e12, SecondsPerDatom: 1}})
		drivers.Default.MustRegister("newdb_small", newDriver{Driver: base, cost: drivers.StoreCost{BytesPerDatom: 100, SecondsPerDatom: 1e-6}})
	})
}

func TestNewDriverGetsEstimatesAndAdmission(t *testing.T) {
	registerNewDrivers(t)
	for _, tc := range []struct {
		driver  string
		refused bool
	}{{"newdb_huge", true}, {"newdb_small", false}} {
		t.Run(tc.driver, func(t *testing.T) {
			spec, data := tinyQuickstart(t, `driver = "sqlite"`, `driver = "`+tc.driver+`"`)
			var log strings.Builder
			o, _ := apply(t, spec, runner.Options{Log: &log}, config.VarArg{Name: "data_dir", Value: data},
				config.VarArg{Name: "backends", Value: `["sqlite"]`}, config.VarArg{Name: "scenarios", Value: `["point_lookup"]`})
			if !strings.Contains(log.String(), "store of about") {
				t.Errorf("no estimate logged for a driver the engine does not know:\n%s", log.String())
			}
			refused := len(o.Failures) > 0 && strings.Contains(o.Failures[0], "refusing to load")
			if refused != tc.refused {
				t.Fatalf("refused %v, want %v: %v", refused, tc.refused, o.Failures)
			}
			if tc.refused && !strings.Contains(o.Failures[0], filepath.Clean(data)) {
				t.Errorf("the refusal names the directory without room: %v", o.Failures)
			}
		})
	}
}
