package history

import (
	"strings"
	"testing"
)

func TestLocation(t *testing.T) {
	for _, c := range []struct {
		loc, password, display string
	}{
		{"results/history.db", "", "results/history.db"},
		{"postgres://bench@db.example/history", "", "postgres://bench@db.example/history"},
		{"postgres://bench:s3cret-pw@db.example:5432/history?sslmode=require", "s3cret-pw", "postgres://bench:xxxxx@db.example:5432/history?sslmode=require"},
		{"postgresql://bench@db.example/history?password=s3cret-pw", "s3cret-pw", "postgresql://bench@db.example/history?password=xxxxx"},
		{"postgres://bench:p%40ss%2Fword@db.example/history", "p@ss/word", "postgres://bench:xxxxx@db.example/history"},
		// net/url refuses it (a bare % in the password); found by hand.
		{"postgres://bench:100%pw@db.example/history", "100%pw", "postgres://bench:xxxxx@db.example/history"},
	} {
		if got := Password(c.loc); got != c.password {
			t.Errorf("Password(%q) = %q, want %q", c.loc, got, c.password)
		}
		got := Display(c.loc)
		if got != c.display {
			t.Errorf("Display(%q) = %q, want %q", c.loc, got, c.display)
		}
		if c.password != "" && strings.Contains(got, c.password) {
			t.Errorf("Display(%q) shows the password", c.loc)
		}
	}
	t.Setenv(EnvVar, "postgres://u@h/db")
	if got := Locate(""); got != "postgres://u@h/db" {
		t.Errorf("Locate with %s: %q", EnvVar, got)
	}
	if got := Locate("x.db"); got != "x.db" {
		t.Errorf("-db over %s: %q", EnvVar, got)
	}
	t.Setenv(EnvVar, "")
	if got := Locate(""); got != DefaultPath {
		t.Errorf("Locate: %q", got)
	}
}
