package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/mentat-spec/mentat-spec/engine/udiff"
)

func runFmt(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("fmt", "[PATH...] [-check] [-diff]",
		"Rewrites every .hcl file of the paths (files or directories, searched recursively; default: the current directory) in the canonical HCL layout, as terraform fmt does, and prints the name of each file it changed. With -check it changes nothing and exits 1 when a file would change.", stderr)
	check := fs.Bool("check", false, "change nothing; list the files that would change and exit 1 if any")
	diff := fs.Bool("diff", false, "print the changes as a unified diff")
	paths, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	files, err := hclFiles(paths)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec fmt: %v\n", err)
		return exitUsage
	}
	var diags hcl.Diagnostics
	parsed := map[string]*hcl.File{}
	changed := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec fmt: %v\n", err)
			return exitUnfinished
		}
		// A file that does not parse is reported, never rewritten.
		if file, d := hclsyntax.ParseConfig(src, f, hcl.InitialPos); d.HasErrors() {
			parsed[f] = file
			diags = append(diags, d...)
			continue
		}
		out := hclwrite.Format(src)
		if bytes.Equal(src, out) {
			continue
		}
		changed++
		fmt.Fprintln(stdout, f)
		if *diff {
			fmt.Fprint(stdout, udiff.Unified(f, f+" (formatted)", string(src), string(out)))
		}
		if *check {
			continue
		}
		if err := writeFileKeepMode(f, out); err != nil {
			fmt.Fprintf(stderr, "mentat-spec fmt: %v\n", err)
			return exitUnfinished
		}
	}
	if len(diags) > 0 {
		writeDiags(stderr, parsed, diags)
		return exitUsage
	}
	if *check && changed > 0 {
		fmt.Fprintf(stderr, "mentat-spec fmt: %d file(s) not formatted; run mentat-spec fmt to fix them\n", changed)
		return exitCheck
	}
	return exitOK
}

// hclFiles returns the .hcl files of paths: files as given, directories
// searched recursively, skipping hidden directories and testdata.
func hclFiles(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				// Fixtures (testdata) may be malformed on purpose.
				if path != p && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), ".hcl") && !seen[path] {
				seen[path] = true
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// writeFileKeepMode replaces path's content through a file beside it, so a
// crash leaves the old or the new file, never half of one.
func writeFileKeepMode(path string, b []byte) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
