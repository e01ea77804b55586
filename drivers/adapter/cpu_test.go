package adapter

import (
	"context"
	"os"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers/helpercpu"
)

// TestClientCPUCountsAdapters: the CPU the engine counts as the client's
// (helpercpu, read by measure) grows with the adapter's work while it
// runs and keeps it once the adapter has exited.
func TestClientCPUCountsAdapters(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: live adapters' CPU is not read here")
	}
	b := open(t, reference(t), nil)
	s, st := prepared(t, b, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT count(*) FROM c")
	before := helpercpu.Total()
	if _, err := st.Query(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	live := helpercpu.Total()
	if live <= before {
		t.Fatalf("client CPU %v after a call the adapter worked on, %v before", live, before)
	}
	s.Close()
	if after := helpercpu.Total(); after < live {
		t.Errorf("client CPU went down from %v to %v when the adapter exited", live, after)
	}
}
