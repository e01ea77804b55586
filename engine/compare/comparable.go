package compare

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Difference is one env.txt entry that differs between OLD and NEW; a
// side that lacks the entry reads "(absent)".
type Difference struct{ Key, Old, New string }

const absent = "(absent)"

// comparableKey reports whether an env.txt key must be equal for two runs
// to be compared: the spec's content, the dataset and scales, the
// sampling, every variable, the engine's version, and each backend's
// driver, version, settings in force and the driver options that change
// what is measured (protocol, io, stable_plans, ...). Machine facts (host,
// kernel) and the options that only say where the store lives (path, dsn,
// database) are left out: compare is for runs on the same kind of machine,
// which the reader vouches for.
func comparableKey(k string) bool {
	switch k {
	case "spec_sha256", "dataset", "scales", "sampling", "mentat_spec_version":
		return true
	}
	if strings.HasPrefix(k, "var.") || strings.HasPrefix(k, "dataset.") {
		return true
	}
	if rest, ok := strings.CutPrefix(k, "backend."); ok {
		// backend.<name>.<scale>.<field>...
		f := strings.SplitN(rest, ".", 3)
		if len(f) != 3 {
			return false
		}
		if opt, ok := strings.CutPrefix(f[2], "option."); ok {
			return !locationOptions[opt]
		}
		return f[2] == "driver" || f[2] == "version" || strings.HasPrefix(f[2], "setting.")
	}
	return false
}

// locationOptions are driver options that say where a store lives, not how
// it is measured: two runs of the same spec in other directories or
// databases still compare.
var locationOptions = map[string]bool{"path": true, "dsn": true, "database": true}

// backendPrefix returns "backend.<name>.<scale>." of a backend key.
func backendPrefix(k string) (string, bool) {
	rest, ok := strings.CutPrefix(k, "backend.")
	if !ok {
		return "", false
	}
	f := strings.SplitN(rest, ".", 3)
	if len(f) < 3 {
		return "", false
	}
	return "backend." + f[0] + "." + f[1] + ".", true
}

// envValue drops what does not change a run from a value: where a
// variable's value came from ("true (from -var)" equals "true (from
// default)").
func envValue(k, v string) string {
	if strings.HasPrefix(k, "var.") {
		if i := strings.LastIndex(v, " (from "); i >= 0 && strings.HasSuffix(v, ")") {
			return v[:i]
		}
	}
	return v
}

// Differences lists what makes two results directories not comparable,
// from their env.txt (each key's latest value): see comparableKey. A
// backend's entries are compared only for the backends and scales both
// ran (a backend or scale present on one side shows in the variables or
// scales anyway). When a directory has no env.txt nothing can be
// checked: that is said in notes, not treated as a difference.
func Differences(oldRun, newRun *results.Run) (diffs []Difference, notes []string, err error) {
	oldEnv, newEnv := oldRun.Env, newRun.Env
	for _, x := range []struct {
		side string
		run  *results.Run
	}{{"OLD", oldRun}, {"NEW", newRun}} {
		if !x.run.Has(results.EnvFile) {
			notes = append(notes, x.side+" has no env.txt: cannot check that the runs are comparable")
		}
	}
	if !oldRun.Has(results.EnvFile) || !newRun.Has(results.EnvFile) {
		return nil, notes, nil
	}
	oldMap, newMap := map[string]string{}, map[string]string{}
	oldBackends, newBackends := map[string]bool{}, map[string]bool{}
	var keys []string
	add := func(env []results.KV, m map[string]string, backends map[string]bool) {
		for _, kv := range env {
			if !comparableKey(kv.Key) {
				continue
			}
			if p, ok := backendPrefix(kv.Key); ok {
				backends[p] = true
			}
			if _, seen := oldMap[kv.Key]; !seen {
				if _, seen := newMap[kv.Key]; !seen {
					keys = append(keys, kv.Key)
				}
			}
			m[kv.Key] = envValue(kv.Key, kv.Value)
		}
	}
	add(oldEnv, oldMap, oldBackends)
	add(newEnv, newMap, newBackends)
	for _, k := range keys {
		if p, ok := backendPrefix(k); ok && !(oldBackends[p] && newBackends[p]) {
			continue
		}
		o, inOld := oldMap[k]
		n, inNew := newMap[k]
		if inOld && inNew && o == n {
			continue
		}
		if !inOld {
			o = absent
		}
		if !inNew {
			n = absent
		}
		diffs = append(diffs, Difference{Key: k, Old: o, New: n})
	}
	return diffs, notes, nil
}

// writeDifferences prints the differences side by side.
func writeDifferences(b *strings.Builder, diffs []Difference, refused, variants bool) {
	if len(diffs) == 0 {
		return
	}
	if variants {
		b.WriteString("the variants differ in (what the comparison measures):\n")
	} else {
		b.WriteString("OLD and NEW are not comparable:\n")
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  \tOLD\tNEW\n")
	for _, d := range slices.Clone(diffs) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", d.Key, results.OneLine(d.Old), results.OneLine(d.New))
	}
	tw.Flush()
	switch {
	case variants:
	case refused:
		b.WriteString("compare refused: use -force to compare them anyway\n")
	default:
		b.WriteString("compared anyway (-force)\n")
	}
}
