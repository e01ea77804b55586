package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/k8scheck"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/worker"
)

func runExport(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("export", "k8s PATH... [-var name=value] -image IMAGE",
		"Prints, as JSON that kubectl apply -f takes, what runs the spec's worker processes on a cluster (docs/distributed.md): a Service for the coordinator, the coordinator's Job (apply -worker-listen) and the workers' Indexed Job (worker -connect -loop), one pod per worker the largest point needs. The image must hold mentat-spec on its PATH and the spec under -workdir. Sensitive variables and the workers' secret (key worker_secret) are read from the Secret NAME-vars, never written into the manifest. The manifest is printed only once it decodes strictly into the Kubernetes API's types and passes the checks the API server and kubelet would make (exit 2 otherwise; with -with, a key the given Secret lacks exits 1).", stderr)
	sf.register(fs)
	image := fs.String("image", "", "container image with mentat-spec and the spec files (required)")
	name := fs.String("name", "mentat-spec", "name of the Jobs and the Service")
	namespace := fs.String("namespace", "", "namespace of every object (default: kubectl's)")
	port := fs.Int("port", 7070, "port the coordinator listens on for workers")
	workdir := fs.String("workdir", "/spec", "working directory in the image; spec paths are relative to it")
	nWorkers := fs.Int("workers", 0, "worker pods (default: the most workers any point of the plan needs)")
	cpu := fs.String("cpu", "1", "CPU request and limit of each worker pod")
	memory := fs.String("memory", "1Gi", "memory request and limit of each worker pod")
	var with repeated
	fs.Var(&with, "with", "a manifest of the Secret (or ConfigMap) the export refers to, e.g. kubectl create secret ... --dry-run=client -o json: checked with the export, every key referenced must be in it (repeatable)")
	if len(args) == 0 || args[0] != "k8s" {
		if len(args) > 0 {
			if h := strings.TrimLeft(args[0], "-"); h == "help" || h == "h" {
				fs.Usage()
				return exitOK
			}
		}
		fs.Usage()
		return exitUsage
	}
	paths, code, ok := parseOrExit(fs, args[1:])
	if !ok {
		return code
	}
	if len(paths) == 0 || *image == "" {
		fs.Usage()
		return exitUsage
	}
	spec, ok := loadSpec(paths, &sf, stderr)
	if !ok {
		return exitUsage
	}
	ctx, cancel := signalContext()
	defer cancel()
	p, diags := planbuild.Build(ctx, spec, plan.Drivers(drivers.Default), workers())
	printDiags(stderr, spec, diags)
	if diags.HasErrors() {
		return exitUsage
	}
	need := workersNeeded(p)
	if need == 0 {
		fmt.Fprintln(stderr, "mentat-spec export k8s: no backend of the plan runs its clients in processes (clients = \"process\" or processes = N; specs/full.hcl: -var client_model=process)")
		return exitUsage
	}
	if *nWorkers == 0 {
		*nWorkers = need
	}
	m := k8sManifest{name: *name, namespace: *namespace, image: *image, port: *port, workdir: *workdir,
		workers: *nWorkers, cpu: *cpu, memory: *memory, paths: paths, vars: sf.vars, sensitive: spec.SensitiveVariables()}
	out, err := json.MarshalIndent(m.list(), "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec export k8s: %v\n", err)
		return exitUnfinished
	}
	if code, ok := checkK8s(out, m.want(), with, stderr); !ok {
		return code
	}
	if _, err := stdout.Write(append(out, '\n')); err != nil {
		fmt.Fprintf(stderr, "mentat-spec export k8s: %v\n", err)
		return exitUnfinished
	}
	return exitOK
}

// workersNeeded is the most worker processes one point of the plan
// starts (0 when every backend runs its clients as goroutines).
func workersNeeded(p *plan.Plan) int {
	most := 0
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			if c.Backend.ClientModel == plan.ClientsGoroutine {
				continue
			}
			for _, sc := range c.Scenarios {
				for _, pt := range sc.Points {
					cp, ok := pt.(interface{ Clients() int })
					if !ok {
						continue
					}
					n := cp.Clients()
					if c.Backend.ClientModel == plan.ClientsProcesses {
						n = min(n, c.Backend.Processes)
					}
					most = max(most, n)
				}
			}
		}
	}
	return most
}

type k8sManifest struct {
	name, namespace, image, workdir, cpu, memory string
	port, workers                                int
	paths                                        []string
	vars                                         []config.VarArg
	sensitive                                    map[string]*config.Variable
}

type obj = map[string]any

// want is what the manifest runs: one coordinator pod and the workers.
func (m k8sManifest) want() k8scheck.Want {
	return k8scheck.Want{Pods: map[string]int{m.name + "-coordinator": 1, m.name + "-workers": m.workers}}
}

func (m k8sManifest) meta(component string) obj {
	md := obj{"name": m.name + "-" + component, "labels": m.labels(component)}
	if m.namespace != "" {
		md["namespace"] = m.namespace
	}
	return md
}

func (m k8sManifest) labels(component string) obj {
	return obj{"app.kubernetes.io/name": m.name, "app.kubernetes.io/component": component}
}

// secretKey is the key of the Secret holding the run's worker secret.
const secretKey = "worker_secret"

// env passes every sensitive variable the spec declares from a Secret
// (one key per variable), to the coordinator and the workers alike: both
// load the spec. One given to export with -var must be in the Secret;
// any other is optional there (else the spec's default applies, as on the
// machine that exported). The same Secret holds the worker secret (key
// worker_secret) the workers prove they hold before the coordinator gives
// them anything.
func (m k8sManifest) env() []obj {
	out := []obj{{"name": worker.EnvSecret, "valueFrom": obj{
		"secretKeyRef": obj{"name": m.name + "-vars", "key": secretKey}}}}
	given := map[string]bool{}
	for _, v := range m.vars {
		given[v.Name] = v.Name != ""
	}
	for _, n := range slices.Sorted(maps.Keys(m.sensitive)) {
		ref := obj{"name": m.name + "-vars", "key": n}
		if !given[n] {
			ref["optional"] = true
		}
		out = append(out, obj{"name": config.EnvVarPrefix + n, "valueFrom": obj{"secretKeyRef": ref}})
	}
	return out
}

func (m k8sManifest) container(name string, args []string, extra obj) obj {
	c := obj{"name": name, "image": m.image, "command": []string{"mentat-spec"}, "args": args, "workingDir": m.workdir,
		"resources": obj{"requests": obj{"cpu": m.cpu, "memory": m.memory}, "limits": obj{"cpu": m.cpu, "memory": m.memory}}}
	if env := m.env(); len(env) > 0 {
		c["env"] = env
	}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func (m k8sManifest) list() obj {
	coordArgs := append([]string{"apply"}, m.paths...)
	for _, v := range m.vars {
		switch {
		case v.File != "":
			coordArgs = append(coordArgs, "-var-file", v.File)
		case m.sensitive[v.Name] == nil:
			coordArgs = append(coordArgs, "-var", v.Name+"="+v.Value)
		}
	}
	coordArgs = append(coordArgs, "-worker-listen", fmt.Sprintf("0.0.0.0:%d", m.port), "-o", "/results/run")
	service := obj{"apiVersion": "v1", "kind": "Service", "metadata": m.meta("coordinator"),
		"spec": obj{"clusterIP": "None", "selector": m.labels("coordinator"),
			"ports": []obj{{"name": "workers", "port": m.port, "targetPort": m.port}}}}
	coordinator := obj{"apiVersion": "batch/v1", "kind": "Job", "metadata": m.meta("coordinator"),
		"spec": obj{"completions": 1, "parallelism": 1, "backoffLimit": 0,
			"template": obj{"metadata": obj{"labels": m.labels("coordinator")},
				"spec": obj{"restartPolicy": "Never", "hostname": "coordinator", "subdomain": m.name + "-coordinator",
					"containers": []obj{m.container("coordinator", coordArgs, obj{
						"ports":        []obj{{"name": "workers", "containerPort": m.port}},
						"volumeMounts": []obj{{"name": "results", "mountPath": "/results"}}})},
					"volumes": []obj{{"name": "results", "emptyDir": obj{}}}}}}}
	addr := fmt.Sprintf("%s-coordinator:%d", m.name, m.port)
	if m.namespace != "" {
		addr = fmt.Sprintf("%s-coordinator.%s.svc:%d", m.name, m.namespace, m.port)
	}
	workerArgs := []string{"worker", "-connect", addr, "-loop", "-wait", "5m"}
	workersJob := obj{"apiVersion": "batch/v1", "kind": "Job", "metadata": m.meta("workers"),
		"spec": obj{"completionMode": "Indexed", "completions": m.workers, "parallelism": m.workers, "backoffLimit": 0,
			"template": obj{"metadata": obj{"labels": m.labels("workers")},
				"spec": obj{"restartPolicy": "Never",
					"containers": []obj{m.container("worker", workerArgs, obj{
						"env": append(m.env(), obj{"name": "MENTAT_SPEC_WORKER_INDEX", "valueFrom": obj{"fieldRef": obj{
							"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}),
					})}}}}}
	return obj{"apiVersion": "v1", "kind": "List", "items": []obj{service, coordinator, workersJob}}
}
