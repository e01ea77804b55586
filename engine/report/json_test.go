package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// results.json carries every CSV file the typed fields do not, by path,
// each row keyed by its columns: numbers where the whole column is,
// null for an empty value, a torn row and a repeated header left out.
func TestJSONTables(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"evidence.csv": "scenario,backend,scale,point,rep,source,query,name,value,unit\n" +
			"q,postgres,xs,1,0,pg_stat_statements,SELECT 1,calls,12,calls\n" +
			"q,postgres,xs,1,0,engine,pg_stat_statements not preloaded,unavailable,,\n" +
			"scenario,backend,scale,point,rep,source,query,name,value,unit\n" +
			"q,postgres,xs,2,0,pg_stat_wal,,wal_sync,3.5,syncs\n" +
			"q,postgres,xs,3,0,pg_st", // torn: a run stopped mid-write
		"logs/capacity-evidence.csv": "scenario,backend,scale,clients,op,probe,source,query,name,value,unit\n" +
			"cap,sqlite,xs,4,read,2,split,,observed_ms,0.25,ms\n",
		"noise.csv":   "scenario,backend,scale,point,rep,start_utc,seconds,load1,cpus,busy_pct,own_pct,server_pct,other_pct,steal_pct,cpu_mhz\n",
		"timings.csv": results.TimingsHeader + "\n",
		"logs/x.log":  "not a table\n",
		"odd.csv":     "name,value\ninf,nan\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := JSON(r, &b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tables map[string][]map[string]any `json:"tables"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][]map[string]any{
		"evidence.csv": {
			{"scenario": "q", "backend": "postgres", "scale": "xs", "point": 1.0, "rep": 0.0, "source": "pg_stat_statements", "query": "SELECT 1", "name": "calls", "value": 12.0, "unit": "calls"},
			{"scenario": "q", "backend": "postgres", "scale": "xs", "point": 1.0, "rep": 0.0, "source": "engine", "query": "pg_stat_statements not preloaded", "name": "unavailable", "value": nil, "unit": nil},
			{"scenario": "q", "backend": "postgres", "scale": "xs", "point": 2.0, "rep": 0.0, "source": "pg_stat_wal", "query": nil, "name": "wal_sync", "value": 3.5, "unit": "syncs"},
		},
		"logs/capacity-evidence.csv": {
			{"scenario": "cap", "backend": "sqlite", "scale": "xs", "clients": 4.0, "op": "read", "probe": 2.0, "source": "split", "query": nil, "name": "observed_ms", "value": 0.25, "unit": "ms"},
		},
		"noise.csv": {},
		"odd.csv":   {{"name": "inf", "value": "nan"}},
	}
	if !reflect.DeepEqual(got.Tables, want) {
		gb, _ := json.MarshalIndent(got.Tables, "", " ")
		t.Errorf("tables:\n%s", gb)
	}
}
