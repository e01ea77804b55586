package evidence

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The plan changed: a structural diff of a query's plans/ files of two
// runs, the operator tree as lines (node type, relation, index), so that
// costs and timings, which differ in every run, do not count.

// analyzeSuffix marks a point's plan with actual rows; pointPart its
// point ("-p01-").
const analyzeSuffix = "-analyze"

var pointPart = regexp.MustCompile(`^p[0-9]+-`)

// planFiles maps each query of (scale, backend, scenario) in dir's plans/
// to its file: for point 0 the plan taken at load (the same in every
// run's layout) before a point's analyzed one; for a point, that point's
// analyzed plan before the plan taken at load.
func planFiles(dir, scale, backend, scenario string, point int) (map[string]string, error) {
	prefix := scale + "-" + backend + "-" + scenario + "-"
	names, err := filepath.Glob(filepath.Join(dir, results.PlansDir, glob(prefix)+"*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := map[string]string{}
	own := map[string]bool{} // the query's file is the preferred one
	for _, p := range names {
		base := strings.TrimPrefix(filepath.Base(p), prefix)
		q := strings.TrimSuffix(base, filepath.Ext(base))
		analyzed := strings.HasSuffix(q, analyzeSuffix)
		q = strings.TrimSuffix(q, analyzeSuffix)
		ofPoint := fmt.Sprintf("p%02d-", point)
		preferred := !analyzed
		if point > 0 {
			preferred = analyzed && strings.HasPrefix(q, ofPoint)
			if analyzed && !preferred {
				continue // another point's plan
			}
		}
		q = pointPart.ReplaceAllString(q, "")
		if own[q] || (out[q] != "" && !preferred) {
			continue
		}
		out[q], own[q] = p, preferred
	}
	return out, nil
}

// glob escapes the metacharacters of a file name for filepath.Glob.
func glob(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// planShapes is each query's plan of (scale, backend, scenario) in dir
// as its operator tree's lines (see planFiles for point).
func planShapes(dir, scale, backend, scenario string, point int) (map[string][]string, error) {
	files, err := planFiles(dir, scale, backend, scenario, point)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for q, f := range files {
		if out[q], err = planShape(f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// diffPlans says, per query whose plan's structure differs between the
// sides, what left and what came: the lines naming an index first. A
// query only one side has a plan of is not compared.
func diffPlans(a, b map[string][]string) []string {
	var queries []string
	for q := range a {
		if _, ok := b[q]; ok {
			queries = append(queries, q)
		}
	}
	sort.Strings(queries)
	var out []string
	for _, q := range queries {
		gone, came := diffLines(a[q], b[q])
		if len(gone) == 0 && len(came) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("plan changed (%s): %s -> %s", q, sayLines(gone), sayLines(came)))
	}
	// A plan that lost or gained an index is the likeliest cause: first.
	sort.SliceStable(out, func(i, j int) bool {
		return strings.Contains(strings.ToUpper(out[i]), "INDEX") && !strings.Contains(strings.ToUpper(out[j]), "INDEX")
	})
	return out
}

func sayLines(ls []string) string {
	if len(ls) == 0 {
		return "(nothing)"
	}
	// An index used is what a reader looks for: those lines first.
	sort.SliceStable(ls, func(i, j int) bool {
		return strings.Contains(strings.ToUpper(ls[i]), "INDEX") && !strings.Contains(strings.ToUpper(ls[j]), "INDEX")
	})
	return strings.Join(ls, "; ")
}

// diffLines are the lines of a not in b and of b not in a, as multisets.
func diffLines(a, b []string) (gone, came []string) {
	count := map[string]int{}
	for _, l := range b {
		count[l]++
	}
	for _, l := range a {
		if count[l] > 0 {
			count[l]--
			continue
		}
		gone = append(gone, l)
	}
	count = map[string]int{}
	for _, l := range a {
		count[l]++
	}
	for _, l := range b {
		if count[l] > 0 {
			count[l]--
			continue
		}
		came = append(came, l)
	}
	return gone, came
}

// planShape is a plan file's operator tree as lines: a JSON plan's nodes
// (PostgreSQL: node type, relation, index, join type), a text plan's
// lines after "-- plan" without tree drawing and numbers (SQLite's
// EXPLAIN QUERY PLAN, DuckDB's operators).
func planShape(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	if filepath.Ext(path) == ".json" {
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("plan %s: %w", filepath.Base(path), err)
		}
		if m, ok := doc.(map[string]any); ok && m["plan"] != nil {
			doc = m["plan"]
		}
		var out []string
		walkNodes(doc, &out)
		return out, nil
	}
	text := string(b)
	if i := strings.Index(text, "-- plan\n"); i >= 0 {
		text = text[i+len("-- plan\n"):]
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(strings.Map(func(r rune) rune {
			if strings.ContainsRune("│┌┐└┘─┬┴├┤┼", r) {
				return ' '
			}
			return r
		}, l))
		// Numbers (estimates, subquery ids, timings) differ run to run.
		l = strings.Join(strings.Fields(digits.ReplaceAllString(l, "N")), " ")
		if l != "" && l != "N" && !strings.HasPrefix(l, "~") {
			out = append(out, l)
		}
	}
	return out, nil
}

var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// walkNodes appends each plan node of v, depth first.
func walkNodes(v any, out *[]string) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			walkNodes(e, out)
		}
	case map[string]any:
		if t, ok := x["Node Type"].(string); ok {
			s := t
			for _, f := range []struct{ key, say string }{{"Join Type", " "}, {"Relation Name", " on "}, {"Index Name", " using "}} {
				if v, ok := x[f.key].(string); ok && v != "" {
					s += f.say + v
				}
			}
			*out = append(*out, s)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "Plan" || k == "Plans" {
				walkNodes(x[k], out)
			}
		}
	}
}
