package runner

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// machineEnv describes the machine for env.txt.
func machineEnv() []results.KV {
	host, _ := os.Hostname()
	kv := []results.KV{
		{Key: "go", Value: runtime.Version()},
		{Key: "os_arch", Value: runtime.GOOS + "/" + runtime.GOARCH},
		{Key: "hostname", Value: host},
		{Key: "cpus", Value: fmt.Sprint(runtime.NumCPU())},
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kv = append(kv, results.KV{Key: "kernel", Value: strings.TrimSpace(string(b))})
	}
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		kv = append(kv, results.KV{Key: "cpu_model", Value: v})
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		kv = append(kv, results.KV{Key: "mem_total", Value: v})
	}
	return kv
}

// procField returns the first "name: value" of a /proc file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// specEnv records the spec's files, their content hash, every variable
// (sensitive ones redacted by the caller's Sensitive) and the sampling.
func (r *run) specEnv() []results.KV {
	spec := r.plan.Spec
	h := sha256.New()
	for _, f := range spec.Files {
		b, err := os.ReadFile(f)
		if err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
			h.Write(b)
		}
	}
	kv := []results.KV{
		{Key: "spec_files", Value: strings.Join(spec.Files, " ")},
		{Key: "spec_sha256", Value: hex.EncodeToString(h.Sum(nil))},
		{Key: "dataset", Value: r.plan.Dataset},
		{Key: "scales", Value: strings.Join(spec.Matrix.ScaleNames, " ")},
		{Key: "backends", Value: strings.Join(spec.Matrix.BackendNames, " ")},
		{Key: "scenarios", Value: strings.Join(spec.Matrix.ScenarioNames, " ")},
		{Key: "phase", Value: r.opts.Phase},
	}
	s := spec.Sampling.Values
	kv = append(kv,
		results.KV{Key: "sampling", Value: fmt.Sprintf("warmup=%d min_s=%g min_n=%d max_s=%g reps=%d probe_s=%g check_s=%g load_max_s=%g",
			s.Warmup, s.MinS, s.MinN, s.MaxS, s.Reps, s.ProbeS, s.CheckS, s.LoadMax)})
	for _, v := range spec.Variables {
		val := "(redacted)"
		if !v.Sensitive {
			val = ctyText(v.Value)
		}
		kv = append(kv, results.KV{Key: "var." + v.Name, Value: val + " (from " + v.Source + ")"})
	}
	for _, sp := range r.plan.Scales {
		st := sp.Stats
		kv = append(kv, results.KV{Key: "dataset." + sp.Scale.Name, Value: fmt.Sprintf("%d datoms, %d txs, seed %d", st.Datoms, st.Txs, sp.Gen.Seed)})
	}
	return kv
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
