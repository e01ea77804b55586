package pgwire

import (
	"math"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// A whole number is interpolated as pgx's own text encoding, quoted,
// would put it, without planning an encoding per call.
func TestInterpolateWholeNumbersAsPgx(t *testing.T) {
	m := pgtype.NewMap()
	parts := splitSQL("UPDATE t SET v = v + $1 WHERE e = $2 AND s = $3")
	for _, n := range []int64{0, 1, -1, 255, 256, -5000, 1000000000042, math.MaxInt64, math.MinInt64} {
		got, ok := interpolate(nil, m, parts, []any{n, n, "x'y"})
		if !ok {
			t.Fatalf("%d: not interpolated", n)
		}
		enc, err := m.Encode(0, pgtype.TextFormatCode, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		lit := string(quoteInPlace(enc, 0))
		if want := "UPDATE t SET v = v +  " + lit + "  WHERE e =  " + lit + "  AND s =  'x''y' "; string(got) != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
	args := []any{int64(-5000), int64(1000000000042), "x"}
	buf := make([]byte, 0, 256)
	if a := testing.AllocsPerRun(100, func() { buf, _ = interpolate(buf[:0], m, parts, args) }); a != 0 {
		t.Errorf("interpolating whole numbers allocates %.0f times", a)
	}
}

// BenchmarkInterpolateTpcb interpolates pgbench's account update as the
// simple protocol sends it, with whole numbers as a write binds them.
func BenchmarkInterpolateTpcb(b *testing.B) {
	m := pgtype.NewMap()
	parts := splitSQL("UPDATE pgbench_accounts SET abalance = abalance + CAST($1 AS INTEGER) WHERE aid = CAST(CAST($2 AS BIGINT) % 1000000000000 + 1 AS INTEGER)")
	args := []any{int64(-4321), int64(2000000012345)}
	buf := make([]byte, 0, 256)
	for i := 0; i < b.N; i++ {
		buf, _ = interpolate(buf[:0], m, parts, args)
	}
}
