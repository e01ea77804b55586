package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/k8scheck"
)

// checkK8s reads the manifest export k8s is about to print into the
// Kubernetes API's types and checks it (engine/k8scheck), alone and then
// with the objects of the -with files. Nothing is printed unless both
// pass: a manifest the cluster would refuse, or whose pods would not
// start, is better never applied. A problem of the manifest alone comes
// (or its decoding) comes from the flags (exit 2); one found only with the -with files is a
// failed check (exit 1).
func checkK8s(manifest []byte, want k8scheck.Want, with []string, stderr io.Writer) (int, bool) {
	m, err := k8scheck.Decode(manifest)
	if err != nil {
		// Refused by the API's types: a flag's value (-cpu lots) is not one.
		fmt.Fprintf(stderr, "mentat-spec export k8s: the manifest does not decode into the Kubernetes API's types: %v\n", err)
		return exitUsage, false
	}
	needs, err := k8scheck.Check(m, want)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec export k8s: the manifest would not run:\n%v\n", indent(err.Error()))
		return exitUsage, false
	}
	if len(with) == 0 {
		// Made by hand: say what they must hold, as the pods would not start otherwise.
		for _, n := range needs {
			fmt.Fprintf(stderr, "mentat-spec export k8s: the pods need %s: create it before kubectl apply (-with checks it)\n", n)
		}
		return exitOK, true
	}
	all := &k8scheck.Manifest{}
	all.Add(m)
	for _, path := range with {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec export k8s: -with: %v\n", err)
			return exitUsage, false
		}
		o, err := k8scheck.Decode(data)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec export k8s: -with %s: %v\n", path, err)
			return exitUsage, false
		}
		all.Add(o)
	}
	needs, err = k8scheck.Check(all, want)
	if err == nil && len(needs) > 0 {
		var p k8scheck.Problems
		for _, n := range needs {
			p = append(p, "needs "+n.String()+", which no -with file holds")
		}
		err = p
	}
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec export k8s: with the -with objects, the manifest would not run:\n%v\n", indent(err.Error()))
		return exitCheck, false
	}
	return exitOK, true
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }
