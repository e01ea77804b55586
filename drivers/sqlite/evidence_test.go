package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

func evValue(ev []drivers.Evidence, q, name string) float64 {
	for _, e := range ev {
		if e.Name == name && (q == "" && e.Query == "" || q != "" && strings.Contains(e.Query, q)) {
			return e.Value
		}
	}
	return -1
}

// The counters SQLite keeps tell a full scan from an index lookup, count
// sorts and automatic indexes, and count only the stretch's calls, those
// of statements and sessions closed before its end included.
func TestEvidenceStatementCounters(t *testing.T) {
	ctx := context.Background()
	b := openT(t, drivers.Config{})
	admin := drivertest.Session(t, b)
	drivertest.Exec(t, admin, "CREATE TABLE a (k INTEGER PRIMARY KEY, v INTEGER)")
	drivertest.Exec(t, admin, "CREATE TABLE c (v INTEGER)")
	drivertest.Exec(t, admin, "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM g WHERE n < 500) INSERT INTO a SELECT n, n % 50 FROM g")
	drivertest.Exec(t, admin, "INSERT INTO c SELECT v FROM a")

	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	queries := map[string]string{
		"pk":   "SELECT v FROM a WHERE k = ?",
		"scan": "SELECT k FROM a WHERE v = ?",
		"sort": "SELECT k FROM a WHERE k < ? ORDER BY v",
		"auto": "SELECT count(*) FROM a JOIN c ON c.v = a.v WHERE a.k < ?",
	}
	stmts := map[string]drivers.Stmt{}
	for n, q := range queries {
		st, err := s.Prepare(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		stmts[n] = st
		if _, err := st.Query(ctx, []any{int64(3)}, nil); err != nil { // before the probe
			t.Fatal(err)
		}
	}
	p, err := b.StartEvidence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for n, st := range stmts {
		for i := 0; i < 10; i++ {
			if _, err := st.Query(ctx, []any{int64(i + 1)}, nil); err != nil {
				t.Fatalf("%s: %v", n, err)
			}
		}
	}
	// The session closes before the stretch ends, as a point's clients do.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ev, err := p.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for n, q := range queries {
		if got := evValue(ev, q, drivers.EvidenceCalls); got != 10 {
			t.Errorf("%s: calls = %v, want 10 (the call before the probe left out)", n, got)
		}
	}
	if got := evValue(ev, queries["pk"], "fullscan_steps"); got != 0 {
		t.Errorf("primary key lookup: fullscan_steps = %v, want 0", got)
	}
	if got := evValue(ev, queries["scan"], "fullscan_steps"); got < 10*499 {
		t.Errorf("unindexed lookup: fullscan_steps = %v, want at least %d", got, 10*499)
	}
	if got := evValue(ev, queries["sort"], "sorts"); got != 10 {
		t.Errorf("ORDER BY an unindexed column: sorts = %v, want 10", got)
	}
	if got := evValue(ev, queries["auto"], "autoindex_rows"); got <= 0 {
		t.Errorf("join on an unindexed column: autoindex_rows = %v, want > 0", got)
	}
	if got := evValue(ev, queries["pk"], "vm_steps"); got <= 0 {
		t.Errorf("vm_steps = %v, want > 0", got)
	}
	if hit := evValue(ev, "", "cache_hit"); hit <= 0 {
		t.Errorf("cache_hit = %v, want > 0:\n%v", hit, ev)
	}
	if miss := evValue(ev, "", "cache_miss"); miss < 0 {
		t.Errorf("no cache_miss reported:\n%v", ev)
	}
}
