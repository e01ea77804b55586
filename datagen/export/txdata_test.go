package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
)

// TestTxDataEDNIsGenEDN: a batch of one transaction is the line gen -edn
// writes for it, byte for byte (one encoder renders both).
func TestTxDataEDNIsGenEDN(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, true)
	dir := writeTo(t, ds, 1, true)
	f, err := os.Open(filepath.Join(dir, "tx-0000.edn"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	td, err := NewTxData(ds.Attrs(), "edn", false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = ds.Stream(context.Background(), 0, ds.TxCount(), func(tx *datagen.Tx) error {
		td.Reset()
		for i := range tx.Datoms {
			td.Add(&tx.Datoms[i])
		}
		if !sc.Scan() {
			t.Fatalf("tx %d: gen -edn has no line", tx.Index)
		}
		if got := td.Bytes(); !bytes.Equal(got, sc.Bytes()) {
			t.Fatalf("tx %d: batch %.80q, gen -edn %.80q", tx.Index, got, sc.Bytes())
		}
		n++
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("%d transactions compared: %v", n, err)
	}
}

func TestTxDataJSON(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, true)
	for _, tempids := range []bool{false, true} {
		td, err := NewTxData(ds.Attrs(), "json", tempids)
		if err != nil {
			t.Fatal(err)
		}
		var schema []map[string]any
		if err := json.Unmarshal(td.Schema(), &schema); err != nil {
			t.Fatalf("schema: %v", err)
		}
		if len(schema) != len(ds.Attrs()) || schema[0]["db/ident"] != ds.Attrs()[0].Ident || schema[0]["entity"] != ds.Attrs()[0].Entity {
			t.Fatalf("schema %v", schema)
		}
		var datoms int
		err = ds.Stream(context.Background(), 0, 3, func(tx *datagen.Tx) error {
			td.Reset()
			for i := range tx.Datoms {
				td.Add(&tx.Datoms[i])
			}
			var got [][]any
			dec := json.NewDecoder(bytes.NewReader(td.Bytes()))
			dec.UseNumber()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("tx %d: %v in %.200s", tx.Index, err, td.Bytes())
			}
			if len(got) != len(tx.Datoms) || td.Len() != len(tx.Datoms) {
				t.Fatalf("tx %d: %d datoms rendered, %d generated", tx.Index, len(got), len(tx.Datoms))
			}
			for i, g := range got {
				d := tx.Datoms[i]
				e := g[1]
				if tempids {
					if _, ok := e.(string); !ok {
						t.Fatalf("tempid e %v is not a string", e)
					}
				} else if e.(json.Number).String() != jsonInt(d.E) {
					t.Fatalf("e %v, want %d", e, d.E)
				}
				if g[2] != ds.Attrs()[d.A-1].Ident || g[4].(json.Number).String() != jsonInt(d.Tx) {
					t.Fatalf("datom %v, want a %d tx %d", g, d.A, d.Tx)
				}
				if op := g[0].(string); op != "db/add" && op != "db/retract" || (op == "db/add") != d.Added {
					t.Fatalf("op %v for added=%v", op, d.Added)
				}
				datoms++
			}
			return nil
		})
		if err != nil || datoms == 0 {
			t.Fatal(datoms, err)
		}
	}
	if _, err := NewTxData(ds.Attrs(), "xml", false); err == nil || !strings.Contains(err.Error(), "edn or json") {
		t.Errorf("format xml: %v", err)
	}
}

func TestTxDataEDNSchemaAndTempids(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	td, _ := NewTxData(ds.Attrs(), "edn", true)
	s := string(td.Schema())
	if !strings.HasPrefix(s, `[{:db/id "1" :db/ident :`) || !strings.Contains(s, ":db/valueType :db.type/") || !strings.HasSuffix(s, "}]") {
		t.Errorf("schema %.200s", s)
	}
	td.Reset()
	d := datagen.Datom{E: 42, A: 1, V: datagen.Value{Type: datagen.TypeString, Str: "x"}, Tx: 7, Added: true}
	td.Add(&d)
	if got := string(td.Bytes()); !strings.HasPrefix(got, `[[:db/add "42" :`) {
		t.Errorf("tempid datom %s", got)
	}
}

func jsonInt(v int64) string { b, _ := json.Marshal(v); return string(b) }
