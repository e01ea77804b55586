package results

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ScenarioPlanName is the plans/ file name of a query's plan as a scenario
// runs it: <scale>-<backend>-<scenario>-<query>.<ext>, so the file reads
// with the scenario names of every other file (point_lookup, not q1).
func ScenarioPlanName(scale, backend, scenario, query, ext string) string {
	return token(scale) + "-" + token(backend) + "-" + token(scenario) + "-" + token(query) + "." + ext
}

// FormatPlan lays out a plans/ file: the query's SQL and the parameters
// the plan was made with, then the plan. A JSON plan (ext "json") cannot
// hold comments, so it gets {"sql", "parameters", "plan"} instead.
func FormatPlan(sql string, args []any, plan, ext string) string {
	if ext == "json" {
		params := make([]string, len(args))
		for i, a := range args {
			params[i] = fmt.Sprint(a)
		}
		s, _ := json.Marshal(sql) // strings always marshal
		p, _ := json.Marshal(params)
		return fmt.Sprintf("{\"sql\": %s,\n \"parameters\": %s,\n \"plan\": %s}\n", s, p, strings.TrimSpace(plan))
	}
	var b strings.Builder
	b.WriteString("-- SQL\n")
	b.WriteString(strings.TrimSpace(sql))
	b.WriteString("\n\n-- parameters\n")
	if len(args) == 0 {
		b.WriteString("(none)\n")
	}
	for i, a := range args {
		fmt.Fprintf(&b, "$%d = %#v\n", i+1, a)
	}
	b.WriteString("\n-- plan\n")
	b.WriteString(strings.TrimSpace(plan))
	b.WriteString("\n")
	return b.String()
}
