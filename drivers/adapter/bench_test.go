package adapter

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/adapter/protocol"
)

// echoEnv makes the test binary a minimal adapter in Go (TestMain): it
// answers every call with one counted row at once, so a benchmark
// through it measures the pipe and the engine's side, not a store.
const echoEnv = "MENTAT_ADAPTER_TEST_ECHO"

func TestMain(m *testing.M) {
	if os.Getenv(echoEnv) == "1" {
		echoAdapter()
		return
	}
	os.Exit(m.Run())
}

func echoAdapter() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := protocol.ReadLine(in)
		if err != nil {
			return
		}
		s := string(line)
		switch {
		case strings.HasPrefix(s, `{"op":"hello"`):
			out.WriteString(`{"ok":true,"protocol":"1.0","name":"echo","version":"0","capabilities":{"transactions":true,"store_time":true}}` + "\n")
		case strings.HasPrefix(s, `{"op":"open"`):
			out.WriteString(`{"ok":true,"created":true}` + "\n")
		case strings.HasPrefix(s, `{"op":"close"`):
			out.Flush()
			return
		default:
			out.WriteString(`{"ok":true,"n":1,"store_us":0.1}` + "\n")
		}
		out.Flush()
	}
}

// BenchmarkEngineSide is the engine's own work per call without the
// pipe: encoding the call and parsing a reply.
func BenchmarkEngineSide(b *testing.B) {
	st := &stmt{s: &session{b: &backend{name: "b"}}, name: "s1"}
	reply := []byte(`{"ok":true,"n":1,"store_us":9.7}`)
	args := []any{"user42@example.com"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.encodeCall(args, false); err != nil {
			b.Fatal(err)
		}
		if _, err := protocol.ParseReply(reply); err != nil {
			b.Fatal(err)
		}
	}
}

func benchCalls(b *testing.B, argv []string, env map[string]string, sql string, args []any) {
	opts := map[string]string{"command": jsonOf(b, argv), "path": b.TempDir() + "/s.sqlite"}
	if env != nil {
		opts["env"] = jsonOf(b, env)
	}
	be, err := New().Open(context.Background(), drivers.Config{Backend: "b", Options: opts})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	s, err := be.Session(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	st, err := s.Prepare(context.Background(), sql)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := st.Query(context.Background(), args, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	top, _ := be.(drivers.StatementStats).TopStatements(context.Background(), 1)
	b.Log("\n" + top)
}

// BenchmarkPipeFloor is a call through the pipe to the Go echo adapter:
// the round trip's floor.
func BenchmarkPipeFloor(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	benchCalls(b, []string{exe}, map[string]string{echoEnv: "1"}, "SELECT ?", []any{"user42@example.com"})
}

// BenchmarkReferenceAdapter is SELECT ? through the Python reference
// adapter.
func BenchmarkReferenceAdapter(b *testing.B) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		b.Skip("no python3")
	}
	benchCalls(b, []string{"python3", mustAbs("../../examples/adapters/sqlite_adapter.py")}, nil, "SELECT ?", []any{"user42@example.com"})
}

func mustAbs(p string) string {
	wd, _ := os.Getwd()
	return fmt.Sprintf("%s/%s", wd, p)
}
