package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/plandesc"
	"github.com/mentat-spec/mentat-spec/engine/plandiff"
)

// diffFlags are plan's flags for comparing with another revision.
type diffFlags struct {
	old              string
	json, markdown   bool
	detailedExitCode bool
}

func (df *diffFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&df.old, "diff", "", "compare with OLD: another spec path, or a git revision of the same paths (main, HEAD~1)")
	fs.BoolVar(&df.json, "json", false, "print the diagnostics and the plan as JSON; with -diff, the differences")
	fs.BoolVar(&df.markdown, "markdown", false, "with -diff: print the differences as Markdown, for a pull-request comment")
	fs.BoolVar(&df.detailedExitCode, "detailed-exitcode", false, "with -diff: exit 3 when the plans differ (0 when they do not)")
}

// runPlanDiff prints what the spec at paths changes compared with OLD.
func runPlanDiff(paths []string, sf *specFlags, df *diffFlags, stdout, stderr io.Writer) int {
	if df.json && df.markdown {
		fmt.Fprintln(stderr, "mentat-spec plan: -json and -markdown exclude each other")
		return exitUsage
	}
	oldPaths, tree, cleanup, err := oldSide(df.old, paths)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec plan -diff: %v\n", err)
		return exitUsage
	}
	defer cleanup()
	oldLabel, newLabel := df.old, strings.Join(paths, " ")
	var names *strings.Replacer
	if tree != "" { // the same paths: name the revisions, and the files as rev:path
		newLabel = "working tree"
		names = strings.NewReplacer(tree+string(filepath.Separator), df.old+":")
	}
	oldDesc, ok := describeSpec("OLD ("+oldLabel+")", oldPaths, sf, names, stderr)
	if !ok {
		return exitUsage
	}
	newDesc, ok := describeSpec("NEW ("+newLabel+")", paths, sf, nil, stderr)
	if !ok {
		return exitUsage
	}
	rep := plandiff.Between(oldLabel, newLabel, oldDesc, newDesc)
	switch {
	case df.json:
		err = rep.WriteJSON(stdout)
	case df.markdown:
		err = rep.WriteMarkdown(stdout)
	default:
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec plan -diff: %v\n", err)
		return exitUnfinished
	}
	if df.detailedExitCode && !rep.Empty() {
		return exitChanges
	}
	return exitOK
}

// describeSpec loads, validates and plans one side; diagnostics are
// printed under the side's name, with file names rewritten by names.
func describeSpec(side string, paths []string, sf *specFlags, names *strings.Replacer, stderr io.Writer) (*plandesc.Description, bool) {
	var diags bytes.Buffer
	defer func() {
		if diags.Len() == 0 {
			return
		}
		text := diags.String()
		if names != nil {
			text = names.Replace(text)
		}
		fmt.Fprintf(stderr, "In %s:\n%s", side, text)
	}()
	spec, ok := loadSpec(paths, sf, &diags)
	if !ok {
		return nil, false
	}
	ctx, cancel := signalContext()
	defer cancel()
	p, d := planbuild.Build(ctx, spec, plan.Drivers(drivers.Default), workers())
	printDiags(&diags, spec, d)
	if d.HasErrors() {
		return nil, false
	}
	return plandesc.Describe(p), true
}

// oldSide resolves OLD to spec paths: an existing path is used as it
// is; anything else is a git revision, whose whole tree is extracted to
// a temporary directory, tree (so includes and file() references
// resolve within it), and the same paths, relative to the repository,
// are read there.
func oldSide(old string, paths []string) (oldPaths []string, tree string, cleanup func(), err error) {
	nothing := func() {}
	if _, err := os.Stat(old); err == nil {
		return []string{old}, "", nothing, nil
	}
	absFirst, err := filepath.Abs(paths[0])
	if err != nil {
		return nil, "", nothing, err
	}
	dir := absFirst
	if st, err := os.Stat(absFirst); err != nil || !st.IsDir() {
		dir = filepath.Dir(absFirst)
	}
	top, err := git(dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, "", nothing, fmt.Errorf("%q is neither a path nor a git revision: %v", old, err)
	}
	root := strings.TrimSpace(string(top))
	if _, err := git(root, nil, "rev-parse", "--verify", "--quiet", old+"^{commit}"); err != nil {
		return nil, "", nothing, fmt.Errorf("%q is neither a path nor a git revision of %s", old, root)
	}
	tmp, err := os.MkdirTemp("", "mentat-spec-diff-")
	if err != nil {
		return nil, "", nothing, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	var archive bytes.Buffer
	if _, err := git(root, &archive, "archive", "--format=tar", old); err != nil {
		cleanup()
		return nil, "", nothing, fmt.Errorf("git archive %s: %v", old, err)
	}
	if err := untar(&archive, tmp); err != nil {
		cleanup()
		return nil, "", nothing, fmt.Errorf("extracting %s: %v", old, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	var out []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			cleanup()
			return nil, "", nothing, err
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		rel, err := filepath.Rel(realRoot, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			cleanup()
			return nil, "", nothing, fmt.Errorf("%s is outside the repository %s", p, root)
		}
		out = append(out, filepath.Join(tmp, rel))
	}
	return out, tmp, cleanup, nil
}

// git runs git in dir; stdout goes to out when given, else is returned.
func git(dir string, out io.Writer, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if out != nil {
		cmd.Stdout = out
	}
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, errors.New(msg)
		}
		return nil, err
	}
	return stdout.Bytes(), nil
}

// untar extracts regular files, directories and symbolic links of a tar
// stream under dir, refusing names that leave it.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return fmt.Errorf("unsafe path %q in archive", h.Name)
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		}
	}
}
