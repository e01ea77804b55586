package postgres

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkWaitSample is one wait-event sample's cost: the client's wall
// time per sample and, where the server runs on this machine, the CPU its
// backend process spent answering (utime+stime from /proc). At one sample
// per WaitSampleInterval the server CPU per sample over the interval is
// the sampler's share of one core beside a point (reported as
// server-core-share).
//
//	go test -run '^$' -bench WaitSample ./drivers/postgres/
func BenchmarkWaitSample(b *testing.B) {
	ctx := testCtx(b)
	be := openTest(b, variants[0], nil)
	conn, err := be.connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	cpu0, local := procCPU(pid)
	b.ResetTimer()
	t0 := time.Now()
	for range b.N {
		rows, err := conn.Query(ctx, waitSampleQuery)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
	}
	wall := time.Since(t0)
	b.ReportMetric(float64(wall.Microseconds())/float64(b.N), "wall-µs/sample")
	if cpu1, ok := procCPU(pid); ok && local {
		per := (cpu1 - cpu0) / time.Duration(b.N)
		b.ReportMetric(float64(per.Microseconds()), "server-cpu-µs/sample")
		b.ReportMetric(float64(per)/float64(WaitSampleInterval), "server-core-share")
	}
}

// procCPU is the user and system CPU of process pid so far, when its
// /proc entry is readable (the server on this machine).
func procCPU(pid int) (time.Duration, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	// Clock ticks of USER_HZ, 100 on Linux.
	return time.Duration(ut+st) * 10 * time.Millisecond, true
}

// BenchmarkProbeStartStop: what a point's evidence costs around it, on
// the backend's own connection outside the timed calls: a probe's start
// and stop (pg_stat_statements twice, pg_stat_wal twice, the sampler
// started and ended) over a stretch of no calls, as wall time per point.
func BenchmarkProbeStartStop(b *testing.B) {
	ctx := testCtx(b)
	be := openTest(b, variants[0], nil)
	if err := be.ResetStatementStats(ctx); err != nil {
		b.Skipf("pg_stat_statements is not available on this server: %v", err)
	}
	b.ResetTimer()
	for range b.N {
		p, err := be.StartEvidence(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "wall-µs/point")
}

// BenchmarkWALCounters: one read of pg_stat_wal (and the next
// transaction id), twice a point.
func BenchmarkWALCounters(b *testing.B) {
	ctx := testCtx(b)
	be := openTest(b, variants[0], nil)
	for range b.N {
		if _, err := be.walCounters(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "wall-µs/read")
}
