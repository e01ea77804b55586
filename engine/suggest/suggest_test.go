package suggest

import "testing"

func TestClosest(t *testing.T) {
	cases := []struct {
		name  string
		cands []string
		want  string
	}{
		{"deposits", []string{"deposit", "withdraw", "total"}, "deposit"},
		{"aply", []string{"apply", "plan"}, "apply"},
		{"zipff", []string{"zipf", "ref", "latest"}, "zipf"},
		{"read", []string{"read", "write"}, ""},  // exact: nothing to suggest
		{"xyzzy", []string{"read", "write"}, ""}, // too far
		{"ab", []string{"cd"}, ""},               // 2 edits of a short name
		{"Deposit", []string{"deposit"}, ""},     // case only is the same name
		{"scrambled_zip", []string{"scrambled_zipf", "zipf"}, "scrambled_zipf"},
	}
	for _, c := range cases {
		if got := Closest(c.name, c.cands); got != c.want {
			t.Errorf("Closest(%q, %v) = %q, want %q", c.name, c.cands, got, c.want)
		}
	}
	if got := DidYouMean("deposits", []string{"deposit"}); got != ` Did you mean "deposit"?` {
		t.Errorf("DidYouMean = %q", got)
	}
}

// TestHint: the near name when there is one, else every name.
func TestHint(t *testing.T) {
	tests := []struct {
		name  string
		cands []string
		want  string
	}{
		{"sqlit", []string{"sqlite", "duckdb"}, ` Did you mean "sqlite"?`},
		{"oracle", []string{"sqlite", "duckdb"}, " The backends are: sqlite, duckdb."},
		{"x", nil, " The backends are: ."},
	}
	for _, tt := range tests {
		if got := Hint(tt.name, tt.cands, "backends"); got != tt.want {
			t.Errorf("Hint(%q, %q) = %q, want %q", tt.name, tt.cands, got, tt.want)
		}
	}
}
