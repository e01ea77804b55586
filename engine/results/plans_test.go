package results

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFormatPlan(t *testing.T) {
	if got := ScenarioPlanName("xs", "sqlite", "point_lookup", "q1", "txt"); got != "xs-sqlite-point_lookup-q1.txt" {
		t.Errorf("name %q", got)
	}
	txt := FormatPlan("SELECT v FROM datoms WHERE e = ?", []any{int64(42)}, "SEARCH datoms USING INDEX eavt", "txt")
	for _, want := range []string{"-- SQL\nSELECT v FROM datoms WHERE e = ?\n", "-- parameters\n$1 = 42\n", "-- plan\nSEARCH datoms USING INDEX eavt\n"} {
		if !strings.Contains(txt, want) {
			t.Errorf("plan file lacks %q:\n%s", want, txt)
		}
	}
	js := FormatPlan("SELECT 1 WHERE $1 = 'a\"b'", []any{"x"}, `[{"Plan": {"Node Type": "Result"}}]`, "json")
	var v struct {
		SQL        string   `json:"sql"`
		Parameters []string `json:"parameters"`
		Plan       []any    `json:"plan"`
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil || v.SQL != `SELECT 1 WHERE $1 = 'a"b'` || len(v.Parameters) != 1 || len(v.Plan) != 1 {
		t.Errorf("json plan %v %+v:\n%s", err, v, js)
	}
}
