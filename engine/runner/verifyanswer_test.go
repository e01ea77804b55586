package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// stateNowJSON is state_now answering in one JSON value, as a store's
// query function does: its rows aggregated into [["open"], ["open"]].
const stateNowJSON = `SELECT json_group_array(json_array(v)) FROM (
  SELECT v FROM cur_text
  WHERE e = CAST(:e AS BIGINT) AND a = (SELECT a FROM attrs WHERE ident = 'issue/state')
  UNION ALL
  SELECT v FROM (
    SELECT v FROM log_text
    WHERE e = CAST(:e AS BIGINT) AND a = (SELECT a FROM attrs WHERE ident = 'issue/state') AND added
    ORDER BY tx DESC LIMIT 1
  ) latest
) s`

// write_mixed's verify read decodes a one-value answer as the checks do:
// the states in a JSON answer are judged (PASS), and an answer that does
// not decode is a FAIL saying so, not an error or a crash.
func TestWriteMixedVerifyDecodesAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, sql, want, detail string
	}{
		{"json", stateNowJSON, "PASS", "each a legal state"},
		{"corrupt", "SELECT substr((" + stateNowJSON + "), 1, 5)", "FAIL", "answer does not decode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, data := writeQuickstart(t, "fraction = 0.1", "fraction = 1")
			ov := filepath.Join(filepath.Dir(spec), "verify_override.hcl")
			body := "query \"state_now\" {\n  answer = \"json\"\n  sql = <<-SQL\n" + tc.sql + "\n  SQL\n}\n"
			if err := os.WriteFile(ov, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, dir := applyPaths(t, []string{spec, ov}, runner.Options{}, writeVars(data, "sqlite")...)
			line := checkStatus(t, dir)["concurrent_reads"]
			if !strings.HasPrefix(line, tc.want) || !strings.Contains(line, tc.detail) {
				t.Errorf("concurrent_reads: %q, want %s with %q", line, tc.want, tc.detail)
			}
		})
	}
}
