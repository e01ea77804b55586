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
// to its file, the plan taken at load (the same in every run's layout)
// before a point's analyzed one.
func planFiles(dir string, k results.Key) (map[string]string, error) {
	prefix := k.Scale + "-" + k.Backend + "-" + k.Scenario + "-"
	names, err := filepath.Glob(filepath.Join(dir, results.PlansDir, glob(prefix)+"*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := map[string]string{}
	for _, p := range names {
		base := strings.TrimPrefix(filepath.Base(p), prefix)
		q := strings.TrimSuffix(base, filepath.Ext(base))
		analyzed := strings.HasSuffix(q, analyzeSuffix)
		q = pointPart.ReplaceAllString(strings.TrimSuffix(q, analyzeSuffix), "")
		if _, ok := out[q]; ok && analyzed {
			continue
		}
		out[q] = p
	}
	return out, nil
}

// glob escapes the metacharacters of a file name for filepath.Glob.
func glob(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// planReasons says, per query whose plan's structure differs between the
// runs, what left and what came: the lines naming an index first.
func planReasons(oldDir, newDir string, k results.Key) ([]string, error) {
	if oldDir == newDir {
		return nil, nil // two variants of one run: one dataset, one plan per backend
	}
	of, err := planFiles(oldDir, k)
	if err != nil {
		return nil, err
	}
	nf, err := planFiles(newDir, k)
	if err != nil {
		return nil, err
	}
	var queries []string
	for q := range of {
		if _, ok := nf[q]; ok {
			queries = append(queries, q)
		}
	}
	sort.Strings(queries)
	var out []string
	for _, q := range queries {
		a, err := planShape(of[q])
		if err != nil {
			return nil, err
		}
		b, err := planShape(nf[q])
		if err != nil {
			return nil, err
		}
		gone, came := diffLines(a, b)
		if len(gone) == 0 && len(came) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("plan changed (%s): %s -> %s", q, sayLines(gone), sayLines(came)))
	}
	// A plan that lost or gained an index is the likeliest cause: first.
	sort.SliceStable(out, func(i, j int) bool {
		return strings.Contains(strings.ToUpper(out[i]), "INDEX") && !strings.Contains(strings.ToUpper(out[j]), "INDEX")
	})
	return out, nil
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
