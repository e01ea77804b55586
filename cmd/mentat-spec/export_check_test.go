package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/k8scheck"
)

// k8sExport runs export k8s and returns its manifest, checked by export
// itself (it prints nothing it has not checked).
func k8sExport(t *testing.T, args ...string) []byte {
	t.Helper()
	code, stdout, stderr := runT(t, append([]string{"export", "k8s"}, args...)...)
	if code != exitOK {
		t.Fatalf("export k8s %q: exit %d: %s", args, code, stderr)
	}
	return []byte(stdout)
}

// docSecret is the Secret docs/distributed.md has the user create, as
// kubectl create secret generic ... --dry-run=client -o json prints it.
func docSecret(keys ...string) map[string]any {
	data := map[string]any{}
	for _, k := range keys {
		data[k] = "eA==" // "x": the check reads keys, never values
	}
	return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "mentat-spec-vars", "creationTimestamp": nil}, "data": data}
}

// TestExportK8sAPITypes: the manifests of specs/full.hcl and of the
// quickstart decode strictly into the API's types and pass every cross
// check, alone and with the Secret the docs say to create.
func TestExportK8sAPITypes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		pods  int
		needs string
	}{
		{"full, pg_dsn given", []string{fullSpec, "-var", `backends=["postgres"]`, "-var", "client_model=process", "-var", "pg_dsn=postgres://u:hunter2@db/x"}, 128,
			"Secret mentat-spec-vars with keys pg_dsn, worker_secret"},
		// As docs/distributed.md runs it: pg_dsn only in the Secret.
		{"full, as documented", []string{fullSpec, "-var", `backends=["postgres"]`, "-var", `scales=["m"]`, "-var", "clients=[1,8,32,64,128]", "-var", "client_model=process", "-var", `scenarios=["concurrency_sweep"]`}, 128,
			"Secret mentat-spec-vars with keys worker_secret"},
		// The quickstart's points each have one client.
		{"quickstart, processes", []string{quickstart, "-var", `backends=["postgres","sqlite","duckdb"]`, "-var", "client_model=2", "-namespace", "bench"}, 1,
			"Secret bench/mentat-spec-vars with keys worker_secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := k8sExport(t, append(tc.args, "-image", "img:1")...)
			m, err := k8scheck.Decode(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Services) != 1 || len(m.Jobs) != 2 {
				t.Fatalf("want 1 Service and 2 Jobs, got %d and %d", len(m.Services), len(m.Jobs))
			}
			want := k8scheck.Want{Pods: map[string]int{"mentat-spec-coordinator": 1, "mentat-spec-workers": tc.pods}}
			needs, err := k8scheck.Check(m, want)
			if err != nil {
				t.Fatal(err)
			}
			if len(needs) != 1 || needs[0].String() != tc.needs {
				t.Fatalf("needs %v, want %s", needs, tc.needs)
			}
			// With the Secret the docs create, nothing is missing.
			m.Add(secretManifest(t, docSecret("pg_dsn", "worker_secret")))
			if needs, err := k8scheck.Check(m, want); err != nil || len(needs) != 0 {
				t.Fatalf("with the documented Secret: needs %v, %v", needs, err)
			}
		})
	}
}

func secretManifest(t *testing.T, s map[string]any) *k8scheck.Manifest {
	t.Helper()
	b, _ := json.Marshal(s)
	m, err := k8scheck.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// path steps through decoded JSON: a string is a key, an int an index.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

func set(v any, val any, path ...any) {
	parent := at(v, path[:len(path)-1]...)
	switch k := path[len(path)-1].(type) {
	case string:
		if val == nil {
			delete(parent.(map[string]any), k)
		} else {
			parent.(map[string]any)[k] = val
		}
	case int:
		parent.([]any)[k] = val
	}
}

// TestExportK8sCrossChecks takes the valid export of specs/full.hcl,
// breaks one thing, and sees the check catch it with a clear message.
func TestExportK8sCrossChecks(t *testing.T) {
	out := k8sExport(t, fullSpec, "-var", `backends=["postgres"]`, "-var", "client_model=process", "-var", "clients=[1,8]",
		"-var", "pg_dsn=postgres://u:hunter2@db/x", "-image", "img:1")
	want := k8scheck.Want{Pods: map[string]int{"mentat-spec-coordinator": 1, "mentat-spec-workers": 8}}
	const svc, coord, workers = 0, 1, 2
	pod := func(job int, rest ...any) []any {
		return append([]any{"items", job, "spec", "template", "spec"}, rest...)
	}
	ctr := func(job int, rest ...any) []any { return pod(job, append([]any{"containers", 0}, rest...)...) }
	jspec := func(job int, rest ...any) []any { return append([]any{"items", job, "spec"}, rest...) }
	secret := docSecret("pg_dsn", "worker_secret")
	for _, tc := range []struct {
		name   string
		breaks func(l any) // the export's List
		secret map[string]any
		want   string
	}{
		{"unknown field", func(l any) { set(l, 8, jspec(workers, "paralelism")...) },
			nil, `batch/v1 Job: unknown field "spec.paralelism"`},
		{"field names are case-sensitive", func(l any) { set(l, 8, jspec(workers, "Parallelism")...) },
			nil, `unknown field "spec.Parallelism"`},
		{"a field of the wrong type", func(l any) { set(l, "8", jspec(workers, "completions")...) },
			nil, "cannot unmarshal string into Go struct field JobSpec.spec.completions of type int32"},
		{"a quantity that is none", func(l any) { set(l, "lots", ctr(workers, "resources", "limits", "cpu")...) },
			nil, "quantities must match the regular expression"},
		{"a kind not checked", func(l any) { set(l, "Deployment", "items", coord, "kind") },
			nil, "batch/v1 Deployment: not a kind this check holds"},
		{"a Job under the core group", func(l any) { set(l, "v1", "items", coord, "apiVersion") },
			nil, "v1 Job: not a kind this check holds"},

		{"completions below the workers wanted", func(l any) { set(l, 7, jspec(workers, "completions")...) },
			nil, "Job mentat-spec-workers: spec.completions: Invalid value: \"7\": want 8: one completion per pod wanted"},
		{"parallelism below the workers wanted", func(l any) { set(l, 4, jspec(workers, "parallelism")...) },
			nil, "Job mentat-spec-workers: spec.parallelism: Invalid value: \"4\": want 8: every pod wanted runs at once"},
		{"two coordinators", func(l any) { set(l, 2, jspec(coord, "parallelism")...) },
			nil, "Job mentat-spec-coordinator: spec.parallelism: Invalid value: \"2\": want 1"},
		{"a negative backoff limit", func(l any) { set(l, -1, jspec(coord, "backoffLimit")...) },
			nil, "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
		{"the workers not Indexed while they read the index", func(l any) { set(l, nil, jspec(workers, "completionMode")...) },
			nil, "only the pods of a Job with completionMode Indexed have the completion index"},
		{"a completion mode that is none", func(l any) { set(l, "Indexd", jspec(workers, "completionMode")...) },
			nil, `spec.completionMode: Unsupported value: "Indexd"`},
		{"Indexed without completions", func(l any) { set(l, nil, jspec(workers, "completions")...) },
			nil, "spec.completions: Required value: when completionMode is Indexed"},

		{"a Job selector given without manualSelector", func(l any) {
			set(l, map[string]any{"matchLabels": at(l, jspec(workers, "template", "metadata", "labels")...)}, jspec(workers, "selector")...)
		}, nil, "`selector` not auto-generated"},
		{"a Job selector that disagrees with its labels", func(l any) {
			set(l, true, jspec(workers, "manualSelector")...)
			set(l, map[string]any{"matchLabels": map[string]any{"app.kubernetes.io/component": "coordinator"}}, jspec(workers, "selector")...)
		}, nil, "Job mentat-spec-workers: spec.selector: Invalid value: \"app.kubernetes.io/component=coordinator\": `selector` does not match template `labels`"},
		{"pod labels that are not labels", func(l any) {
			set(l, "not a value!", jspec(coord, "template", "metadata", "labels", "app.kubernetes.io/component")...)
		}, nil, "spec.template.metadata.labels: Invalid value: \"not a value!\""},

		{"the Secret without the worker secret", nil, docSecret("pg_dsn"),
			`Job mentat-spec-workers: spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef: Not found: "Secret mentat-spec-vars has no key \"worker_secret\""`},
		{"the Secret without a variable given", nil, docSecret("worker_secret"),
			`secretKeyRef: Not found: "Secret mentat-spec-vars has no key \"pg_dsn\""`},
		{"a reference to a key the Secret lacks", func(l any) { set(l, "pg-dsn", ctr(coord, "env", 1, "valueFrom", "secretKeyRef", "key")...) }, secret,
			`Job mentat-spec-coordinator: spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef: Not found: "Secret mentat-spec-vars has no key \"pg-dsn\""`},
		{"a reference to another Secret", func(l any) { set(l, "other-vars", ctr(coord, "env", 1, "valueFrom", "secretKeyRef", "name")...) }, secret,
			"needs Secret other-vars with keys pg_dsn"},

		{"the Service selecting no pod", func(l any) { set(l, "coordinater", "items", svc, "spec", "selector", "app.kubernetes.io/component") },
			nil, "Service mentat-spec-coordinator: spec.selector: Invalid value: {\"app.kubernetes.io/component\":\"coordinater\",\"app.kubernetes.io/name\":\"mentat-spec\"}: selects no pod of the manifest"},
		{"the Service missing the pod whose subdomain names it", func(l any) { set(l, "workers", "items", svc, "spec", "selector", "app.kubernetes.io/component") },
			nil, "does not select the pods of Job mentat-spec-coordinator, whose subdomain names this Service"},
		{"the Service selecting the workers too", func(l any) { set(l, nil, "items", svc, "spec", "selector", "app.kubernetes.io/component") },
			nil, "Service mentat-spec-coordinator: spec.ports[0].targetPort: Invalid value: \"7070\": selected pods of Job mentat-spec-workers have no container port 7070"},
		{"the Service sending to a port no container opens", func(l any) { set(l, 7071, "items", svc, "spec", "ports", 0, "targetPort") },
			nil, "selected pods of Job mentat-spec-coordinator have no container port 7071"},
		{"the coordinator's container port gone", func(l any) { set(l, nil, ctr(coord, "ports")...) },
			nil, "selected pods of Job mentat-spec-coordinator have no container port 7070"},
		{"a target port by a name no container has", func(l any) { set(l, "worker", "items", svc, "spec", "ports", 0, "targetPort") },
			nil, "have no container port worker"},
		{"a port out of range", func(l any) { set(l, 70000, "items", svc, "spec", "ports", 0, "port") },
			nil, "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535"},

		{"a Job name that is no DNS label", func(l any) { set(l, "Mentat_Spec-workers", "items", workers, "metadata", "name") },
			nil, "Job Mentat_Spec-workers: metadata.name: Invalid value: \"Mentat_Spec-workers\": a lowercase RFC 1123 label"},
		{"a Job name too long for its pods' label", func(l any) { set(l, strings.Repeat("w", 64), "items", workers, "metadata", "name") },
			nil, "must be no more than 63 characters"},
		{"a Service name starting with a digit", func(l any) { set(l, "7-coordinator", "items", svc, "metadata", "name") },
			nil, "Service 7-coordinator: metadata.name: Invalid value: \"7-coordinator\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character"},
		{"a namespace that is no DNS label", func(l any) { set(l, "Bench", "items", coord, "metadata", "namespace") },
			nil, "Job mentat-spec-coordinator: metadata.namespace: Invalid value: \"Bench\""},
		{"a container name that is no DNS label", func(l any) { set(l, "Worker", ctr(workers, "name")...) },
			nil, "spec.template.spec.containers[0].name: Invalid value: \"Worker\""},
		{"a pod subdomain that is no DNS label", func(l any) { set(l, "mentat.spec", pod(coord, "subdomain")...) },
			nil, "spec.template.spec.subdomain: Invalid value: \"mentat.spec\""},
		{"two Jobs of one name", func(l any) { set(l, "mentat-spec-coordinator", "items", workers, "metadata", "name") },
			nil, "Job mentat-spec-coordinator: two objects of this kind and name"},
		{"a Job not wanted", func(l any) { set(l, "mentat-spec-extra", "items", workers, "metadata", "name") },
			nil, "Job mentat-spec-workers: missing; the manifest should run it with 8 pods"},

		{"a restart policy a Job refuses", func(l any) { set(l, "Always", pod(workers, "restartPolicy")...) },
			nil, `spec.template.spec.restartPolicy: Unsupported value: "Always"`},
		{"an env var name that is none", func(l any) { set(l, "1BAD", ctr(workers, "env", 0, "name")...) },
			nil, "spec.template.spec.containers[0].env[0].name: Invalid value: \"1BAD\""},
		{"a pod field the downward API lacks", func(l any) {
			set(l, "metadata.annotation", ctr(workers, "env", 2, "valueFrom", "fieldRef", "fieldPath")...)
		},
			nil, "fieldRef.fieldPath: Invalid value: \"metadata.annotation\": not a pod field the downward API gives"},
		{"an env var with a value and a source", func(l any) { set(l, "x", ctr(workers, "env", 0, "value")...) },
			nil, "env[0].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty"},
		{"a mount of no volume", func(l any) { set(l, "result", ctr(coord, "volumeMounts", 0, "name")...) },
			nil, "spec.template.spec.containers[0].volumeMounts[0].name: Not found: \"result\""},
		{"a limit below the request", func(l any) { set(l, "500m", ctr(workers, "resources", "limits", "cpu")...) },
			nil, "resources.requests[cpu]: Invalid value: \"1\": must be less than or equal to cpu limit of 500m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l any
			if err := json.Unmarshal(out, &l); err != nil {
				t.Fatal(err)
			}
			if tc.breaks != nil {
				tc.breaks(l)
			}
			b, _ := json.Marshal(l)
			m, err := k8scheck.Decode(b)
			if err == nil {
				if tc.secret != nil {
					m.Add(secretManifest(t, tc.secret))
				}
				var needs []k8scheck.Need
				needs, err = k8scheck.Check(m, want)
				if err == nil && tc.secret != nil && len(needs) > 0 {
					err = k8scheck.Problems{"needs " + needs[0].String()}
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant an error with %q", err, tc.want)
			}
		})
	}
}

// TestExportK8sCheckCLI: export k8s prints nothing it has not checked:
// flags that make an invalid manifest exit 2, a -with Secret lacking a
// key the manifest references exits 1, and one holding them all passes.
func TestExportK8sCheckCLI(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v any) string {
		p := filepath.Join(dir, name)
		b, _ := json.Marshal(v)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", docSecret("pg_dsn", "worker_secret"))
	short := write("short.json", docSecret("pg_dsn"))
	other := write("other.json", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}})
	bad := write("bad.json", map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "mentat-spec-vars"}, "strinData": map[string]any{}})
	base := []string{"export", "k8s", fullSpec, "-var", `backends=["postgres"]`, "-var", "client_model=process", "-var", "pg_dsn=postgres://u:hunter2@db/x", "-image", "img:1"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a name that makes invalid object names", []string{"-name", "Mentat_Spec"}, exitUsage, `Service Mentat_Spec-coordinator: metadata.name: Invalid value: "Mentat_Spec-coordinator"`},
		{"a CPU that is no quantity", []string{"-cpu", "lots"}, exitUsage, "does not decode into the Kubernetes API's types"},
		{"a port out of range", []string{"-port", "70000"}, exitUsage, "must be between 1 and 65535"},
		{"more workers than an Indexed Job takes", []string{"-workers", "100001"}, exitUsage, "spec.completions: Invalid value: 100001: must be less than or equal to 100000 when completionMode is Indexed"},
		{"a negative memory", []string{"-memory", "-1Gi"}, exitUsage, `resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0`},
		{"a namespace that is no DNS label", []string{"-namespace", "Bench"}, exitUsage, `metadata.namespace: Invalid value: "Bench"`},
		{"no -with: what the Secret must hold", nil, exitOK, "the pods need Secret mentat-spec-vars with keys pg_dsn, worker_secret"},
		{"the Secret holding every key", []string{"-with", good}, exitOK, ""},
		{"the Secret lacking the worker secret", []string{"-with", short}, exitCheck, `Secret mentat-spec-vars has no key \"worker_secret\"`},
		{"no Secret among the -with files", []string{"-with", other}, exitCheck, "needs Secret mentat-spec-vars with keys pg_dsn, worker_secret, which no -with file holds"},
		{"a -with file with an unknown field", []string{"-with", bad}, exitUsage, `unknown field "strinData"`},
		{"a -with file that is not there", []string{"-with", filepath.Join(dir, "none.json")}, exitUsage, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runT(t, append(base, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if (code == exitOK) != (stdout != "") {
				t.Errorf("exit %d with %d bytes on stdout: a manifest is printed only when it passes", code, len(stdout))
			}
		})
	}
}

// TestExportK8sSensitiveFromSecret: every sensitive variable reaches the
// pods from the Secret; one given to export must be there, one not given
// may be (docs/distributed.md gives pg_dsn only in the Secret).
func TestExportK8sSensitiveFromSecret(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		optional bool
	}{
		{"given with -var", []string{"-var", "pg_dsn=postgres://u:hunter2@db/x"}, false},
		{"only in the Secret", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := k8sExport(t, append([]string{fullSpec, "-var", `backends=["postgres"]`, "-var", "client_model=process", "-image", "img:1"}, tc.args...)...)
			m, err := k8scheck.Decode(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range m.Jobs {
				var got []string
				for _, e := range j.Spec.Template.Spec.Containers[0].Env {
					if r := e.ValueFrom.SecretKeyRef; r != nil && e.Name == "MENTAT_SPEC_VAR_pg_dsn" {
						got = append(got, r.Name+"/"+r.Key)
						if opt := r.Optional != nil && *r.Optional; opt != tc.optional {
							t.Errorf("%s: pg_dsn optional %v, want %v", j.Name, opt, tc.optional)
						}
					}
				}
				if !reflect.DeepEqual(got, []string{"mentat-spec-vars/pg_dsn"}) {
					t.Errorf("%s: pg_dsn from %v, want once from mentat-spec-vars/pg_dsn", j.Name, got)
				}
			}
		})
	}
}
