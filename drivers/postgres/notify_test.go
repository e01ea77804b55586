package postgres

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestCountedNotifications: notifications another connection sends while
// the session runs counted calls, pgx calls and collected queries in
// turn, arriving wherever they do, disturb none of them.
func TestCountedNotifications(t *testing.T) {
	testDSN(t)
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			b := openTest(t, v, nil)
			ctx := testCtx(t)
			ds, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			if err := ds.Exec(ctx, "LISTEN mentat_ch"); err != nil {
				t.Fatal(err)
			}
			st, err := ds.Prepare(ctx, "SELECT generate_series(1, $1::int)")
			if err != nil {
				t.Fatal(err)
			}
			other, err := pgx.ConnectConfig(ctx, b.connCfg)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close(context.Background())
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var sent int
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := other.Exec(ctx, "SELECT pg_notify('mentat_ch', repeat('p', $1::int))", int64(sent%200)); err != nil {
						t.Errorf("notify: %v", err)
						return
					}
					sent++
				}
			})
			for i := range 1500 {
				want := int64(i%5 + 1)
				switch i % 50 {
				case 17:
					if err := ds.Exec(ctx, "SELECT 1"); err != nil {
						t.Fatalf("call %d: Exec: %v", i, err)
					}
				case 33:
					var rows [][]any
					if n, err := st.Query(ctx, []any{want}, &rows); err != nil || n != want {
						t.Fatalf("call %d: collected: %d rows, %v; want %d", i, n, err, want)
					}
				default:
					if n, err := st.Query(ctx, []any{want}, nil); err != nil || n != want {
						t.Fatalf("call %d: counted: %d rows, %v; want %d", i, n, err, want)
					}
				}
			}
			close(stop)
			wg.Wait()
			if sent == 0 {
				t.Fatal("no notification sent")
			}
			t.Logf("%d notifications sent during the calls", sent)
		})
	}
}
