package drivers

import "testing"

type limitedByRule struct{}

func (limitedByRule) WritingConnections() int { return 1 }

type limitedByOptions struct{ limitedByRule }

func (limitedByOptions) WritingConnectionsFor(opts map[string]string) (int, string) {
	if opts["writers"] == "3" {
		return 3, "its hello says 3"
	}
	return 0, "its hello says any number"
}

// TestWriteLimit: the options' limit wins over the driver's rule, which
// wins over none.
func TestWriteLimit(t *testing.T) {
	tests := []struct {
		name string
		d    any
		opts map[string]string
		n    int
		why  string
	}{
		{"no limit", struct{}{}, nil, 0, ""},
		{"the database's rule", limitedByRule{}, nil, 1, ""},
		{"the options'", limitedByOptions{}, map[string]string{"writers": "3"}, 3, "its hello says 3"},
		{"the options' none", limitedByOptions{}, nil, 0, "its hello says any number"},
	}
	for _, tt := range tests {
		if n, why := WriteLimit(tt.d, tt.opts); n != tt.n || why != tt.why {
			t.Errorf("%s: WriteLimit = %d, %q; want %d, %q", tt.name, n, why, tt.n, tt.why)
		}
	}
}
