package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/store"
)

// inputLine is the journal's line of one input of the plan.
func inputLine(in plan.Input) (string, error) {
	if strings.ContainsAny(in.Path, "\t\n") || in.Path == "" {
		return "", fmt.Errorf("journal: input file %q: a name the journal cannot record", in.Path)
	}
	return "input\t" + in.SHA256 + "\t" + in.Path, nil
}

// checkInput refuses an input file that is not as the resumed run read
// it: the points it measured were measured with the file as it was.
// It returns the file's path.
func checkInput(line string) (string, error) {
	f := strings.Split(line, "\t")
	if len(f) != 3 {
		return "", fmt.Errorf("not a journal record: %q", line)
	}
	want, path := f[1], f[2]
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("input file %s of the interrupted run is gone: -resume continues a run only with the inputs it was measured with", path)
	}
	if err != nil {
		return "", fmt.Errorf("input file %s of the interrupted run: %w", path, err)
	}
	if Digest(b) != want {
		return "", fmt.Errorf("input file %s changed since the interrupted run read it: its points were measured with the file as it was; undo the change, or start a new run without -resume", path)
	}
	return path, nil
}

// Digest is how the journal identifies a file's content.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// PlanDigest identifies the plan a journal belongs to: its text, which
// names every cell, scenario, point and setting in run order, each
// cell's store (its options: a DSN, a path; the dataset it holds and
// the SQL around its load), its
// queries as they run (their SQL, whatever file, variable or environment
// it came from) and the content of every file the plan was made from.
func PlanDigest(p *plan.Plan) (string, error) {
	h := sha256.New()
	if err := p.Render(h); err != nil {
		return "", err
	}
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			names := make([]string, 0, len(c.Queries))
			for n := range c.Queries {
				names = append(names, n)
			}
			sort.Strings(names)
			bc := c.Backend
			// fmt prints maps in key order.
			fmt.Fprintf(h, "\x00cell %s/%s\x00%q\x00%q\x00%q\x00%q\x00%q\x00%q\x00%q\x00%q\x00", sp.Name, bc.Name,
				bc.Options, bc.Settings, bc.Setup, bc.AfterLoad, bc.Analyze, bc.Vacuum, bc.Restart, bc.DropCaches)
			// The dataset as the store holds it: seed, entities, history, load.
			fmt.Fprintf(h, "store %s\x00", store.Fingerprint(sp.Gen, bc))
			for _, n := range names {
				q := c.Queries[n]
				fmt.Fprintf(h, "query %s %d\x00%s\x00%s\x00", n, len(q.SQL), q.SQL, paramsText(q))
			}
		}
	}
	for _, in := range p.Inputs {
		fmt.Fprintf(h, "\x00input %s %s", in.SHA256, in.Path)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// paramsText renders a query's parameter specs by name.
func paramsText(q *plan.Query) string {
	names := make([]string, 0, len(q.Params))
	for n := range q.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s=%s;", n, q.Params[n])
	}
	return b.String()
}
