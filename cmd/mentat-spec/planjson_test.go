package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanJSON checks plan -json's structure on the release spec: a cell
// per scale and backend, every point with its estimate inside the cell's,
// off scenarios marked, and the missing DSN a warning at the backend
// block (gone with a DSN), while validate stays as it was.
func TestPlanJSON(t *testing.T) {
	t.Setenv("MENTAT_SPEC_PG_DSN", "")
	tests := []struct {
		name     string
		args     []string
		cells    int
		warnings int
	}{
		{"no DSN", []string{"-var", `scales=["xs","s"]`}, 6, 1},
		{"a DSN", []string{"-var", `scales=["xs"]`, "-var", "pg_dsn=postgres://u@127.0.0.1:1/postgres"}, 3, 0},
		{"one scenario", []string{"-var", `scales=["xs"]`, "-var", `backends=["sqlite"]`, "-var", `scenarios=["point_lookup"]`}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runT(t, append([]string{"plan", "-json", fullSpec}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			var out PlanJSON
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			if out.FormatVersion != "2.1" || !out.Valid || len(out.Cells) != tt.cells || out.WarningCount != tt.warnings || out.Estimate == nil {
				t.Fatalf("format %s, valid %v, %d cells, %d warnings, estimate %v; want 2.0, true, %d, %d",
					out.FormatVersion, out.Valid, len(out.Cells), out.WarningCount, out.Estimate, tt.cells, tt.warnings)
			}
			if strings.Contains(stdout, `"plan":`) {
				t.Error("plan -json still carries the plan's text")
			}
			for _, d := range out.Diagnostics {
				if d.Severity == "warning" && (d.Summary != "Backend cannot be configured" || !strings.HasSuffix(d.File, "full.hcl") || d.Line < 1 || d.Column < 1 || !strings.Contains(d.Detail, `backend "postgres"`)) {
					t.Errorf("warning %+v, want the postgres backend's block", d)
				}
			}
			var total float64
			for _, c := range out.Cells {
				var sum float64
				if c.LoadEstimate != nil {
					sum += c.LoadEstimate.BestS
				}
				running, off := 0, 0
				for _, pt := range c.Points {
					switch {
					case pt.Off:
						off++
						if pt.OffReason == "" || pt.EstimateS != nil {
							t.Errorf("%s/%s: off point %+v", c.Scale, c.Backend, pt)
						}
					case pt.EstimateS == nil || pt.EstimateLoS == nil || pt.EstimateHiS == nil || pt.Describe == "":
						t.Errorf("%s/%s: point %+v without its estimate", c.Scale, c.Backend, pt)
					default:
						running++
						if !(*pt.EstimateLoS <= *pt.EstimateS && *pt.EstimateS <= *pt.EstimateHiS) {
							t.Errorf("%s/%s: point %+v: best outside its range", c.Scale, c.Backend, pt)
						}
						sum += *pt.EstimateS
					}
				}
				if running == 0 || (tt.name == "one scenario") != (off > 10) {
					t.Errorf("%s/%s: %d points running, %d off", c.Scale, c.Backend, running, off)
				}
				if d := sum - c.Estimate.BestS; d > 1e-6 || d < -1e-6 {
					t.Errorf("%s/%s: points and load sum to %gs, the cell says %gs", c.Scale, c.Backend, sum, c.Estimate.BestS)
				}
				total += c.Estimate.BestS
			}
			if d := total - out.Estimate.BestS; d > 1e-6 || d < -1e-6 {
				t.Errorf("cells sum to %gs, the plan says %gs", total, out.Estimate.BestS)
			}
		})
	}
	// validate -json is as it was: format 1.0, no warning for the DSN.
	code, stdout, _ := runT(t, "validate", "-json", fullSpec)
	var res JSONResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != exitOK || res.FormatVersion != "1.0" || res.WarningCount != 0 {
		t.Errorf("validate -json: exit %d, %+v, %v", code, res, err)
	}
}

// TestPlanWarnsUnconfigured: the text plan prints the warning with the
// backend block's place and the fix, and still exits 0.
func TestPlanWarnsUnconfigured(t *testing.T) {
	t.Setenv("MENTAT_SPEC_PG_DSN", "")
	code, stdout, stderr := runT(t, "plan", fullSpec, "-var", `scales=["xs"]`)
	if code != exitOK || !strings.Contains(stdout, "backend postgres (driver postgres)") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"Warning: Backend cannot be configured", "full.hcl line ", `backend "postgres"`, "scripts/pg.sh up"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestPlanEstimateFrom: a results directory that does not exist, or
// holds nothing of the plan, is an error that says so.
func TestPlanEstimateFrom(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name, dir, want string
	}{
		{"missing", filepath.Join(empty, "nope"), "estimate from"},
		// A run of another spec (engine/plan's matrix.hcl).
		{"nothing matches", filepath.Join("..", "..", "engine", "plan", "testdata", "history"), "no scenario or load of this plan ran there"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runT(t, "plan", fullSpec, "-var", `scales=["xs"]`, "-var", `backends=["sqlite"]`, "-estimate-from", tt.dir)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, exitUsage, tt.want, stderr)
			}
		})
	}
}
