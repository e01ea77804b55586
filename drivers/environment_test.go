package drivers_test

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

type detailedDriver struct {
	nopDriver
	keys []string
	name string
}

func (d detailedDriver) DetailedKeys() []string { return d.keys }
func (d detailedDriver) DetailedName() string   { return d.name }

func TestRegistryDetailed(t *testing.T) {
	r := drivers.NewRegistry()
	r.MustRegister("a", detailedDriver{keys: []string{"a_setting."}, name: "A's settings"})
	r.MustRegister("b", detailedDriver{keys: []string{"compiled"}, name: "B's build"})
	r.MustRegister("plain", nopDriver{})
	for _, tc := range []struct {
		key, name string
		ok        bool
	}{
		{"a_setting.threads", "A's settings", true},
		{"compiled", "B's build", true},
		{"compiled.x", "", false}, // a whole key, not a prefix
		{"a_setting", "", false},
		{"setting.threads", "", false},
	} {
		if name, ok := r.Detailed(tc.key); name != tc.name || ok != tc.ok {
			t.Errorf("Detailed(%q) = %q, %v; want %q, %v", tc.key, name, ok, tc.name, tc.ok)
		}
	}
	if k := r.DetailedKeys("a"); len(k) != 1 || k[0] != "a_setting." {
		t.Errorf("DetailedKeys(a) = %v", k)
	}
	if k := r.DetailedKeys("plain"); k != nil {
		t.Errorf("DetailedKeys(plain) = %v", k)
	}
}
