package resolve_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all" // the drivers the bank spec uses
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// validateBank validates testdata/bank/bank.hcl with each of edits
// (old, new) applied, as a file of a temporary directory.
func validateBank(t *testing.T, edits ...string) (hcl.Diagnostics, string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "bank", "bank.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(text, edits[i]) {
			t.Fatalf("the bank spec has no %q", edits[i])
		}
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	path := filepath.Join(t.TempDir(), "bank.hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	return diags, path
}

// errorAt finds the error whose summary and detail hold want, and checks
// it is placed on line of the spec.
func errorAt(t *testing.T, diags hcl.Diagnostics, line int, want ...string) {
	t.Helper()
	for _, d := range diags {
		text := d.Summary + ": " + d.Detail
		ok := d.Severity == hcl.DiagError
		for _, w := range want {
			ok = ok && strings.Contains(text, w)
		}
		if !ok {
			continue
		}
		if d.Subject == nil || d.Subject.Start.Line != line {
			t.Errorf("%q is at %v, want line %d", text, d.Subject, line)
		}
		return
	}
	t.Errorf("no error with %q in:\n%s", want, diags.Error())
}

func TestBankSpecIsValid(t *testing.T) {
	if diags, _ := validateBank(t); len(diags) > 0 {
		t.Fatal(diags.Error())
	}
}

func TestValidateRefuses(t *testing.T) {
	cases := []struct {
		name  string
		edits []string
		line  int
		want  []string
	}{
		{"threshold of an operation not declared",
			[]string{`op       = "deposit"`, `op       = "deposits"`}, 101,
			[]string{"Unknown op", `"deposits"`, `Did you mean "deposit"?`}},
		{"threshold op far from any name",
			[]string{`op       = "deposit"`, `op       = "zzzzzz"`}, 101,
			[]string{"Unknown op", "balance", "read", "total"}},
		{"threshold of another scenario's operation",
			[]string{"threshold \"fast_deposits\" {", "scenario \"other\" {\n  read {\n    operation \"audit\" {\n      weight = 1\n      query  = query.count\n    }\n  }\n}\n\nthreshold \"fast_deposits\" {",
				`op       = "deposit"`, `op       = "audit"`}, 110,
			[]string{"Unknown op", `"audit"`, "The ops are: ", "balance", "deposit"}},
		{"write operation of a generator not declared",
			[]string{`write  = "deposit"`, `write  = "deposits"`}, 84,
			[]string{"Unknown write generator", `"deposits"`, `Did you mean "deposit"?`}},
		{"insert parameter no write binds",
			[]string{`:account_num`, `:account_numb`}, 69,
			[]string{"Unbound query parameter", ":account_numb", `query "open_account"`, "INSERT INTO cur_text", ":account_num,", `Did you mean "account_num"?`}},
		{"update parameter no write binds",
			[]string{`SET v = :v,`, `SET v = :value,`}, 65,
			[]string{"Unbound query parameter", ":value", `query "deposit"`, "an update binds :e"}},
		{"more writers than clients",
			[]string{"  read {\n", "  read {\n    writers = 5\n"}, 78,
			[]string{"More writers than clients", "writers = 5", "at most 2 client(s)"}},
		{"write_mixed of a generator not declared",
			[]string{"scenario \"bank\" {", mixed("deposits", "deposit") + "scenario \"bank\" {"}, 79,
			[]string{"Unknown write generator", `Did you mean "deposit"?`}},
		{"write_mixed's write using what it does not bind",
			[]string{"scenario \"bank\" {", mixed("deposit", "balance") + "scenario \"bank\" {"}, 56,
			[]string{"Unbound query parameter", `query "balance"`, ":account", "a write binds :e, :a, :v, :tx and :k"}},
		{"check on a truth the writes make unknowable",
			[]string{`expect_values = { n = truth.accounts }`, `expect_values = { n = truth.total_balance }`}, 93,
			[]string{"Check cannot be true after the writes", "truth.total_balance"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diags, _ := validateBank(t, c.edits...)
			errorAt(t, diags, c.line, c.want...)
		})
	}
}

// TestThresholdLimitOfWrongType: a limit that is not a number is a type
// error at the attribute, and the threshold is not also "without a limit".
func TestThresholdLimitOfWrongType(t *testing.T) {
	diags, _ := validateBank(t, `p99_ms   = 50`, `p99_ms   = "fast"`)
	errorAt(t, diags, 102, "Incorrect attribute value type", "p99_ms must be a number")
	for _, d := range diags {
		if strings.Contains(d.Summary, "without a limit") {
			t.Errorf("also reported: %s: %s", d.Summary, d.Detail)
		}
	}
}

func TestThresholdOpForms(t *testing.T) {
	for _, op := range []string{"read", "write", "total", "balance", "open", "read@500", "cold_balance", "warm_count"} {
		t.Run(op, func(t *testing.T) {
			if diags, _ := validateBank(t, `op       = "deposit"`, `op       = "`+op+`"`); len(diags) > 0 {
				t.Errorf("op %q refused: %s", op, diags.Error())
			}
		})
	}
}

// TestPairedWithOneBackend: order = "paired" with one backend selected is
// a warning at the order attribute (the reps interleave, nothing is
// paired); with two backends it is silent.
func TestPairedWithOneBackend(t *testing.T) {
	paired := "sampling {\n  order = \"paired\"\n}\n\nscale \"xs\" {"
	diags, _ := validateBank(t, `scale "xs" {`, "matrix {\n  backends = [\"lite\"]\n}\n"+paired)
	if diags.HasErrors() || len(diags) != 1 {
		t.Fatalf("want one warning, got: %s", diags.Error())
	}
	d := diags[0]
	if d.Severity != hcl.DiagWarning || d.Summary != "Nothing to pair" || !strings.Contains(d.Detail, "selects one backend (lite)") ||
		d.Subject == nil || d.Subject.Start.Line != 8 {
		t.Errorf("%v %s: %s at %v", d.Severity, d.Summary, d.Detail, d.Subject)
	}
	if diags, _ := validateBank(t, `scale "xs" {`, paired); len(diags) > 0 {
		t.Errorf("two backends paired: %s", diags.Error())
	}
}

// TestMisspeltChooserIsOneError: a misspelt chooser in a write block is
// reported there, once, not again as every operation running an
// "unknown" write generator.
func TestMisspeltChooserIsOneError(t *testing.T) {
	diags, _ := validateBank(t, `target = ref("account")`, `target = zipff("account", 0.99)`)
	if len(diags) != 1 || diags[0].Summary != "Call to unknown function" || diags[0].Subject == nil || diags[0].Subject.Start.Line != 37 {
		t.Errorf("want one error at the chooser (line 37), got:\n%s", diags.Error())
	}
}

// mixed is a write_mixed scenario of generator running query, declared
// before the bank scenario (its generator = line is the bank spec's 79).
func mixed(generator, query string) string {
	return "scenario \"mixed\" {\n  kind = \"write_mixed\"\n  duration_s = 1\n  write {\n    generator = \"" + generator + "\"\n    query = query." + query + "\n  }\n}\n\n"
}
