package planbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// specEnv records the spec's files, their content hash, the matrix, every
// variable (with where its value came from) and the sampling, for env.txt.
// It also returns the keys whose values are secrets.
func specEnv(spec *config.Spec, p *plan.Plan) ([]results.KV, map[string]bool) {
	kv := []results.KV{
		{Key: "spec_files", Value: strings.Join(spec.Files, " ")},
		{Key: "spec_sha256", Value: specHash(spec.Dir, spec.Files)},
		{Key: "dataset", Value: p.Dataset},
		{Key: "scales", Value: strings.Join(p.Matrix.Scales, " ")},
		{Key: "backends", Value: strings.Join(p.Matrix.Backends, " ")},
		{Key: "scenarios", Value: strings.Join(p.Matrix.Scenarios, " ")},
	}
	s := spec.Sampling.Values
	kv = append(kv,
		results.KV{Key: "sampling", Value: fmt.Sprintf("warmup=%d min_s=%g min_n=%d max_s=%g reps=%d probe_s=%g check_s=%g load_max_s=%g precision=%g precision_p99=%g order=%s",
			s.Warmup, s.MinS, s.MinN, s.MaxS, s.Reps, s.ProbeS, s.CheckS, s.LoadMax, s.Precision, s.PrecisionP99, s.Order)})
	secret := spec.SensitiveVariables()
	sensitive := map[string]bool{}
	for _, v := range spec.Variables {
		val := "(redacted)"
		if secret[v.Name] != nil {
			sensitive["var."+v.Name] = true
		} else {
			val = ctyText(v.Value)
		}
		kv = append(kv, results.KV{Key: "var." + v.Name, Value: val + " (from " + v.Source + ")"})
	}
	for _, sp := range p.Scales {
		st := sp.Stats
		kv = append(kv, results.KV{Key: "dataset." + sp.Name, Value: fmt.Sprintf("%d datoms, %d txs, seed %d%s", st.Datoms, st.Txs, sp.Gen.Seed, statsDetail(st))})
	}
	return kv, sensitive
}

// specHash hashes the spec's files: each one's path relative to root (the
// spec's directory) and its content, so the same spec run from another
// working directory, or named another way (./x.hcl, an absolute path),
// hashes the same, while a file renamed or moved does not.
func specHash(root string, files []string) string {
	h := sha256.New()
	absRoot, rootErr := filepath.Abs(root)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		name := filepath.Base(f)
		if abs, err := filepath.Abs(f); err == nil && rootErr == nil {
			if rel, err := filepath.Rel(absRoot, abs); err == nil {
				name = rel
			}
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(name), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ctyText renders a variable's value as JSON (strings unquoted).
func ctyText(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	if v.Type() == cty.String && v.IsKnown() {
		return v.AsString()
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return v.GoString()
	}
	return string(b)
}

// statsDetail lists the entities per kind and the history datoms per
// history, as the seed suite's dataset line did ("1600 users, 130000 issues,
// 6492 history updates").
func statsDetail(st datagen.Stats) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(st.Entities)) {
		sep := ", "
		if i == 0 {
			sep = "; entities: "
		}
		fmt.Fprintf(&b, "%s%s %d", sep, k, st.Entities[k])
	}
	for i, k := range slices.Sorted(maps.Keys(st.HistoryDatoms)) {
		sep := ", "
		if i == 0 {
			sep = "; history datoms: "
		}
		fmt.Fprintf(&b, "%s%s %d", sep, k, st.HistoryDatoms[k])
	}
	return b.String()
}
