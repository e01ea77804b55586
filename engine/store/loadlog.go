package store

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// jobLog is what one load job did: rows per table and each commit.
type jobLog struct {
	from, to int64 // transaction range
	rows     []int64
	commits  []commitLog
	err      error
}

type commitLog struct {
	at    time.Time
	took  time.Duration
	tx    int64 // the last transaction committed; -1 for the final flush
	datom int64 // datoms committed by the job so far
}

// commit times one Flush.
func (j *jobLog) commit(start time.Time, tx, datoms int64) {
	j.commits = append(j.commits, commitLog{at: start, took: time.Since(start), tx: tx, datom: datoms})
}

// WriteLog writes the load's log: per job, its range, rows per table,
// and every commit with its time and duration; then each statement of
// the after-load SQL that ran, with its time.
func WriteLog(w io.Writer, name string, res Result, steps []Step) {
	defer writeSteps(w, steps)
	tables := res.Tables
	how := "bulk load"
	if res.Statement != "" {
		how = "load through a statement"
	}
	fmt.Fprintf(w, "# %s: %s, %d job(s), %d datoms in %s", name, how, len(res.Jobs), res.Datoms, res.Elapsed.Round(time.Millisecond))
	if res.Capped {
		fmt.Fprint(w, " (load cap hit)")
	}
	fmt.Fprintln(w)
	if res.Statement != "" {
		batches := 0
		for _, j := range res.Jobs {
			batches += len(j.commits)
		}
		fmt.Fprintf(w, "statement: %s\n", firstLine(res.Statement))
		fmt.Fprintf(w, "schema: %d attributes in one call, took %.3f s\n", res.SchemaAttrs, res.SchemaTook.Seconds())
		fmt.Fprintf(w, "batches: %d\n", batches)
	}
	total := make([]int64, len(tables))
	for i, j := range res.Jobs {
		unit := "commits"
		if res.Statement != "" {
			unit = "batches"
		}
		fmt.Fprintf(w, "job %d: transactions %d..%d, %d %s", i, j.from, j.to, len(j.commits), unit)
		if j.err != nil {
			fmt.Fprintf(w, ", ended with: %v", j.err)
		}
		fmt.Fprintln(w)
		for t, n := range j.rows {
			fmt.Fprintf(w, "job %d: table %s: %d rows\n", i, tables[t].Name, n)
			total[t] += n
		}
		for _, c := range j.commits {
			last := fmt.Sprint(c.tx)
			if c.tx < 0 {
				last = "end"
			}
			fmt.Fprintf(w, "job %d: commit at %s took %.3f s, through tx %s, %d datoms\n", i,
				c.at.UTC().Format("15:04:05.000"), c.took.Seconds(), last, c.datom)
		}
	}
	if res.Statement != "" {
		return // the store wrote its tables itself: the engine counted no rows
	}
	for t, n := range total {
		fmt.Fprintf(w, "total: table %s: %d rows\n", tables[t].Name, n)
	}
}

func writeSteps(w io.Writer, steps []Step) {
	var total time.Duration
	for _, st := range steps {
		total += st.Took
	}
	for i, st := range steps {
		share := 0.0
		if total > 0 {
			share = 100 * st.Took.Seconds() / total.Seconds()
		}
		fmt.Fprintf(w, "%s statement %d of %d took %.3f s (%.0f%% of the after-load time): %s\n", st.What, i+1, len(steps),
			st.Took.Seconds(), share, firstLine(st.SQL))
	}
}

// firstLine is a statement's first line that is not a comment, cut to 120
// characters, to name it in a log line.
func firstLine(stmt string) string {
	for _, l := range strings.Split(stmt, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "--") {
			continue
		}
		if len(l) > 120 {
			l = l[:117] + "..."
		}
		return l
	}
	return ""
}

// CountLoaded counts the rows of the datom tables: after a load cut by
// the cap, what the store holds, including a last commit the cut may or
// may not have completed.
func CountLoaded(ctx context.Context, s drivers.Session, tables []drivers.TableSpec) (int64, error) {
	var n int64
	if len(tables) < 2 {
		return 0, fmt.Errorf("no datom tables named to count")
	}
	for _, t := range tables[1:] { // tables[0] holds the attributes
		st, err := s.Prepare(ctx, "SELECT count(*) FROM "+t.Name)
		if err != nil {
			return 0, err
		}
		var rows [][]any
		_, err = st.Query(ctx, nil, &rows)
		st.Close()
		if err != nil {
			return 0, err
		}
		if len(rows) != 1 || len(rows[0]) != 1 {
			return 0, fmt.Errorf("counting %s: no row", t.Name)
		}
		c, ok := rows[0][0].(int64)
		if !ok {
			return 0, fmt.Errorf("counting %s: %T", t.Name, rows[0][0])
		}
		n += c
	}
	return n, nil
}
