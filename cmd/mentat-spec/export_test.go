package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// k8sList is the part of the manifest the tests read.
type k8sList struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string            `json:"name"`
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			// Service
			ClusterIP string            `json:"clusterIP"`
			Selector  map[string]string `json:"selector"`
			Ports     []struct {
				Port int `json:"port"`
			} `json:"ports"`
			// Job
			CompletionMode string `json:"completionMode"`
			Completions    *int   `json:"completions"`
			Parallelism    *int   `json:"parallelism"`
			BackoffLimit   *int   `json:"backoffLimit"`
			Template       struct {
				Metadata struct {
					Labels map[string]string `json:"labels"`
				} `json:"metadata"`
				Spec struct {
					RestartPolicy string `json:"restartPolicy"`
					Containers    []struct {
						Image      string   `json:"image"`
						Command    []string `json:"command"`
						Args       []string `json:"args"`
						WorkingDir string   `json:"workingDir"`
						Env        []struct {
							Name      string `json:"name"`
							Value     string `json:"value"`
							ValueFrom *struct {
								SecretKeyRef *struct{ Name, Key string } `json:"secretKeyRef"`
								FieldRef     *struct {
									FieldPath string `json:"fieldPath"`
								} `json:"fieldRef"`
							} `json:"valueFrom"`
						} `json:"env"`
						Ports []struct {
							ContainerPort int `json:"containerPort"`
						} `json:"ports"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	} `json:"items"`
}

func TestExportK8s(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		workers int
		addr    string
	}{
		{"one process per client", []string{"-var", "client_model=process", "-var", "clients=[1,8,32]"}, 32, "mentat-spec-coordinator:7070"},
		{"explicit pods and namespace", []string{"-var", "client_model=process", "-var", "clients=[1,8]", "-workers", "3", "-namespace", "bench", "-port", "9000"}, 3, "mentat-spec-coordinator.bench.svc:9000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"export", "k8s", fullSpec, "-var", `backends=["postgres"]`, "-var", "pg_dsn=postgres://u:hunter2@db/x", "-image", "img:1"}, tc.args...)
			code, stdout, stderr := runT(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stdout, "hunter2") {
				t.Fatal("a sensitive variable's value is in the manifest")
			}
			var l k8sList
			if err := json.Unmarshal([]byte(stdout), &l); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			if l.APIVersion != "v1" || l.Kind != "List" || len(l.Items) != 3 {
				t.Fatalf("want a v1 List of 3 objects, got %s %s with %d", l.APIVersion, l.Kind, len(l.Items))
			}
			svc, coord, workers := l.Items[0], l.Items[1], l.Items[2]
			if svc.Kind != "Service" || coord.Kind != "Job" || workers.Kind != "Job" || coord.APIVersion != "batch/v1" || workers.APIVersion != "batch/v1" {
				t.Fatalf("kinds %s %s %s", svc.Kind, coord.Kind, workers.Kind)
			}
			// The Service reaches the coordinator's pod, on the port it listens on.
			if !reflect.DeepEqual(svc.Spec.Selector, coord.Spec.Template.Metadata.Labels) || svc.Spec.ClusterIP != "None" {
				t.Errorf("service selector %v, coordinator pod labels %v", svc.Spec.Selector, coord.Spec.Template.Metadata.Labels)
			}
			cc := coord.Spec.Template.Spec.Containers[0]
			port := svc.Spec.Ports[0].Port
			if len(cc.Ports) != 1 || cc.Ports[0].ContainerPort != port {
				t.Errorf("coordinator ports %v, service port %d", cc.Ports, port)
			}
			if !strings.Contains(strings.Join(cc.Args, " "), "apply ../../specs/full.hcl -var backends=[\"postgres\"]") ||
				!strings.Contains(strings.Join(cc.Args, " "), "-worker-listen 0.0.0.0:"+itoa(port)) {
				t.Errorf("coordinator args %q", cc.Args)
			}
			if *coord.Spec.Completions != 1 || *coord.Spec.BackoffLimit != 0 || coord.Spec.Template.Spec.RestartPolicy != "Never" {
				t.Errorf("coordinator job %+v", coord.Spec)
			}
			// The workers: an Indexed Job, one pod per worker, dialling the Service.
			ws := workers.Spec
			if ws.CompletionMode != "Indexed" || *ws.Completions != tc.workers || *ws.Parallelism != tc.workers || ws.Template.Spec.RestartPolicy != "Never" {
				t.Errorf("workers job: mode %q completions %d parallelism %d restart %q, want Indexed %d", ws.CompletionMode, *ws.Completions, *ws.Parallelism, ws.Template.Spec.RestartPolicy, tc.workers)
			}
			wc := ws.Template.Spec.Containers[0]
			if want := []string{"worker", "-connect", tc.addr, "-loop", "-wait", "5m"}; !reflect.DeepEqual(wc.Args, want) {
				t.Errorf("worker args %q, want %q", wc.Args, want)
			}
			if wc.Image != "img:1" || cc.Image != "img:1" || wc.WorkingDir != "/spec" || !reflect.DeepEqual(wc.Command, []string{"mentat-spec"}) {
				t.Errorf("worker container %+v", wc)
			}
			// Both load the spec, so both read the secret variable from the Secret.
			for who, c := range map[string][]string{"coordinator": envNames(cc.Env), "worker": envNames(wc.Env)} {
				if !strings.Contains(strings.Join(c, " "), "MENTAT_SPEC_VAR_pg_dsn<-secret:mentat-spec-vars/pg_dsn") {
					t.Errorf("%s env %v: want pg_dsn from the Secret", who, c)
				}
				if !strings.Contains(strings.Join(c, " "), "MENTAT_SPEC_WORKER_SECRET<-secret:mentat-spec-vars/worker_secret") {
					t.Errorf("%s env %v: want the worker secret from the Secret", who, c)
				}
			}
			if !strings.Contains(strings.Join(envNames(wc.Env), " "), "MENTAT_SPEC_WORKER_INDEX<-field:metadata.annotations['batch.kubernetes.io/job-completion-index']") {
				t.Errorf("worker env %v: want the completion index", envNames(wc.Env))
			}
		})
	}
}

func envNames[E any](env []E) []string {
	b, _ := json.Marshal(env)
	var es []struct {
		Name      string
		ValueFrom *struct {
			SecretKeyRef *struct{ Name, Key string }
			FieldRef     *struct{ FieldPath string }
		}
	}
	_ = json.Unmarshal(b, &es)
	var out []string
	for _, e := range es {
		s := e.Name
		switch {
		case e.ValueFrom == nil:
		case e.ValueFrom.SecretKeyRef != nil:
			s += "<-secret:" + e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		case e.ValueFrom.FieldRef != nil:
			s += "<-field:" + e.ValueFrom.FieldRef.FieldPath
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestExportK8sRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		args       []string
	}{
		{"goroutine clients only", "no backend of the plan runs its clients in processes", []string{fullSpec, "-var", `backends=["sqlite"]`, "-image", "img"}},
		{"no image", "Usage", []string{fullSpec, "-var", "client_model=process"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runT(t, append([]string{"export", "k8s"}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
	if code, _, _ := runT(t, "export", "helm"); code != exitUsage {
		t.Errorf("export helm: exit %d", code)
	}
}
