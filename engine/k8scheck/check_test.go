package k8scheck

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// base is a valid manifest that refers to a ConfigMap and a Secret in
// every way a pod can: env keys, envFrom, volume items, projected items.
const base = `{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "spec-files"},
  "data": {"full.hcl": "x", "vars.tfvars": "y"}},
 {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds"}, "type": "Opaque",
  "stringData": {"dsn": "postgres://"}, "data": {"token": "eA=="}},
 {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "run"},
  "spec": {"selector": {"app": "run"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}},
 {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "run"},
  "spec": {"completions": 3, "parallelism": 3, "completionMode": "Indexed",
   "template": {"metadata": {"labels": {"app": "run"}}, "spec": {"restartPolicy": "OnFailure",
    "containers": [{"name": "main", "image": "img",
     "ports": [{"name": "http", "containerPort": 8080}],
     "env": [
      {"name": "DSN", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "dsn"}}},
      {"name": "VARS", "valueFrom": {"configMapKeyRef": {"name": "spec-files", "key": "vars.tfvars"}}},
      {"name": "INDEX", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}],
     "envFrom": [{"configMapRef": {"name": "spec-files"}}],
     "volumeMounts": [{"name": "spec", "mountPath": "/spec"}, {"name": "token", "mountPath": "/token"}, {"name": "all", "mountPath": "/all"}]}],
    "volumes": [
     {"name": "spec", "configMap": {"name": "spec-files", "items": [{"key": "full.hcl", "path": "full.hcl"}, {"key": "vars.tfvars", "path": "vars.tfvars"}]}},
     {"name": "token", "secret": {"secretName": "creds", "items": [{"key": "token", "path": "token"}]}},
     {"name": "all", "projected": {"sources": [
      {"secret": {"name": "creds", "items": [{"key": "dsn", "path": "dsn"}]}},
      {"configMap": {"name": "spec-files", "items": [{"key": "full.hcl", "path": "spec.hcl"}]}}]}}]}}}}
]}`

const (
	cmI, secI, svcI, jobI = 0, 1, 2, 3
)

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

// set sets (or, with nil, deletes) the value at path.
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

func pod(rest ...any) []any {
	return append([]any{"items", jobI, "spec", "template", "spec"}, rest...)
}

var want = Want{Pods: map[string]int{"run": 3}}

func TestBaseIsValid(t *testing.T) {
	m, err := Decode([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	needs, err := Check(m, want)
	if err != nil || len(needs) != 0 {
		t.Fatalf("needs %v, %v", needs, err)
	}
}

func TestDecodeStrict(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"a duplicate field", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "name": "b"}}`,
			`v1 ConfigMap: duplicate field "metadata.name"`},
		{"an unknown field", `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}, "strinData": {}}`,
			`v1 Secret: unknown field "strinData"`},
		{"a field in another case", `{"apiVersion": "v1", "kind": "Secret", "metadata": {"Name": "a"}}`,
			`unknown field "metadata.Name"`},
		{"an unknown field of the List", `{"apiVersion": "v1", "kind": "List", "item": []}`, `List: unknown field "item"`},
		{"a List of another version", `{"apiVersion": "v2", "kind": "List", "items": []}`, `List: apiVersion "v2", want v1`},
		{"an item of an unknown kind", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "apps/v1", "kind": "Deployment"}]}`,
			"items[0]: apps/v1 Deployment: not a kind this check holds"},
		{"not JSON", `apiVersion: v1`, "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	// One object, not in a List, as kubectl get prints it.
	m, err := Decode([]byte(`{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a", "namespace": "default", "uid": "0b4c", "resourceVersion": "7", "creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": [{"manager": "kubectl-create", "operation": "Update", "apiVersion": "v1", "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {".": {}, "f:k": {}}, "f:type": {}}}]}, "type": "Opaque", "data": {"k": "eA=="}}`))
	if err != nil || len(m.Secrets) != 1 || string(m.Secrets[0].Data["k"]) != "x" {
		t.Fatalf("one Secret: %+v, %v", m, err)
	}
}

// TestCrossChecks breaks one thing of base at a time.
func TestCrossChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		breaks func(l any)
		want   string // a problem; empty: none
		needs  []string
	}{
		{"an env key the ConfigMap lacks", func(l any) {
			set(l, "var.tfvars", pod("containers", 0, "env", 1, "valueFrom", "configMapKeyRef", "key")...)
		},
			`Job run: spec.template.spec.containers[0].env[1].valueFrom.configMapKeyRef: Not found: "ConfigMap spec-files has no key \"var.tfvars\""`, nil},
		{"an env key the Secret lacks", func(l any) { set(l, nil, "items", secI, "stringData") },
			`env[0].valueFrom.secretKeyRef: Not found: "Secret creds has no key \"dsn\""`, nil},
		{"a volume item the ConfigMap lacks", func(l any) { set(l, "main.hcl", pod("volumes", 0, "configMap", "items", 0, "key")...) },
			`spec.template.spec.volumes[0].configMap.items[0].key: Not found: "ConfigMap spec-files has no key \"main.hcl\""`, nil},
		{"a volume item the Secret lacks", func(l any) { set(l, nil, "items", secI, "data") },
			`spec.template.spec.volumes[1].secret.items[0].key: Not found: "Secret creds has no key \"token\""`, nil},
		{"a projected item the Secret lacks", func(l any) {
			set(l, "pass", pod("volumes", 2, "projected", "sources", 0, "secret", "items", 0, "key")...)
		},
			`volumes[2].projected.sources[0].secret.items[0].key: Not found: "Secret creds has no key \"pass\""`, nil},
		{"two items to one path", func(l any) { set(l, "full.hcl", pod("volumes", 0, "configMap", "items", 1, "path")...) },
			`volumes[0].configMap.items[1].path: Duplicate value: "full.hcl"`, nil},
		{"a volume with two sources", func(l any) { set(l, map[string]any{}, pod("volumes", 0, "emptyDir")...) },
			`spec.template.spec.volumes[0]: Invalid value: "spec": 2 volume sources; a volume has exactly one`, nil},
		{"a ConfigMap key that is none", func(l any) { set(l, "x", "items", cmI, "data", "a/b") },
			`ConfigMap spec-files: data[a/b]: Invalid value: "a/b"`, nil},
		{"a key in data and binaryData", func(l any) { set(l, map[string]any{"full.hcl": "eA=="}, "items", cmI, "binaryData") },
			"binaryData[full.hcl]: Invalid value: \"full.hcl\": duplicate of key present in data", nil},
		{"an optional reference to a missing key", func(l any) {
			set(l, "absent", pod("containers", 0, "env", 0, "valueFrom", "secretKeyRef", "key")...)
			set(l, true, pod("containers", 0, "env", 0, "valueFrom", "secretKeyRef", "optional")...)
		}, "", nil},
		{"objects not in the manifest are needs", func(l any) {
			set(l, "other", pod("containers", 0, "envFrom", 0, "configMapRef", "name")...)
			set(l, "keys", pod("containers", 0, "env", 0, "valueFrom", "secretKeyRef", "name")...)
			set(l, "keys", pod("volumes", 1, "secret", "secretName")...)
		}, "", []string{"ConfigMap other", "Secret keys with keys dsn, token"}},
		{"a reference across namespaces", func(l any) {
			set(l, map[string]any{"name": "creds", "namespace": "a"}, "items", secI, "metadata")
			set(l, map[string]any{"name": "run", "namespace": "b"}, "items", jobI, "metadata")
		}, "", []string{"Secret b/creds with keys dsn, token"}},
		{"a Service port by a name no container has", func(l any) { set(l, "web", pod("containers", 0, "ports", 0, "name")...) },
			`Service run: spec.ports[0].targetPort: Invalid value: "http": selected pods of Job run have no container port http`, nil},
		{"a Service port by number where the container has another protocol", func(l any) {
			set(l, 8080, "items", svcI, "spec", "ports", 0, "targetPort")
			set(l, "UDP", pod("containers", 0, "ports", 0, "protocol")...)
		}, "selected pods of Job run have no container port 8080", nil},
		{"the completion index label outside an Indexed Job", func(l any) { set(l, "NonIndexed", "items", jobI, "spec", "completionMode") },
			"only the pods of a Job with completionMode Indexed have the completion index", nil},
		{"an empty Job selector", func(l any) {
			set(l, true, "items", jobI, "spec", "manualSelector")
			set(l, map[string]any{}, "items", jobI, "spec", "selector")
		}, "Job run: spec.selector: Required value: an empty selector selects every pod of the namespace", nil},
		{"a Job without the pods wanted", func(l any) { set(l, "other", "items", jobI, "metadata", "name") },
			"Job other: metadata.name: Forbidden: not a Job the manifest should run", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l any
			if err := json.Unmarshal([]byte(base), &l); err != nil {
				t.Fatal(err)
			}
			tc.breaks(l)
			b, _ := json.Marshal(l)
			m, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			needs, err := Check(m, want)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want no problem, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v\nwant a problem with %q", err, tc.want)
			}
			var got []string
			for _, n := range needs {
				got = append(got, n.String())
			}
			if !reflect.DeepEqual(got, tc.needs) {
				t.Errorf("needs %q, want %q", got, tc.needs)
			}
		})
	}
}
