package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// MetaTable records, inside each store, that this tool created it and what
// it holds. The engine drops or reloads a store only when it finds this
// table (or when the driver just created the store).
const MetaTable = "mentat_spec_meta"

// CreatedBy is the meta table's created_by of a store this tool made.
const CreatedBy = "mentat-spec"

// State is what the meta table says.
type State struct {
	Ours        bool
	Fingerprint string
	Loaded      bool
	Written     string // the scenario that wrote to the store after its load; "" when clean
}

// ReadMeta reads the meta table; a store without it is not ours.
func ReadMeta(ctx context.Context, s drivers.Session) State {
	st, err := s.Prepare(ctx, "SELECT k, v FROM "+MetaTable)
	if err != nil {
		return State{}
	}
	defer st.Close()
	var rows [][]any
	if _, err := st.Query(ctx, nil, &rows); err != nil {
		return State{}
	}
	var out State
	for _, row := range rows {
		k, _ := row[0].(string)
		v := fmt.Sprint(row[1])
		switch k {
		case "created_by":
			out.Ours = v == CreatedBy
		case "fingerprint":
			out.Fingerprint = v
		case "loaded":
			out.Loaded = v == "1"
		case "written":
			out.Written = v
		}
	}
	return out
}

func WriteMeta(ctx context.Context, s drivers.Session, kv map[string]string) error {
	if err := s.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+MetaTable+" (k VARCHAR(64) PRIMARY KEY, v TEXT)"); err != nil {
		return fmt.Errorf("creating %s: %w", MetaTable, err)
	}
	for _, k := range []string{"created_by", "fingerprint", "loaded", "loaded_at", "written"} {
		v, ok := kv[k]
		if !ok {
			continue
		}
		if err := s.Exec(ctx, "DELETE FROM "+MetaTable+" WHERE k = "+quote(k)); err != nil {
			return fmt.Errorf("updating %s: %w", MetaTable, err)
		}
		if err := s.Exec(ctx, "INSERT INTO "+MetaTable+" (k, v) VALUES ("+quote(k)+", "+quote(v)+")"); err != nil {
			return fmt.Errorf("updating %s: %w", MetaTable, err)
		}
	}
	return nil
}

// MetaInit are the statements a driver runs on a store it creates before
// the store is visible: the meta table saying it is ours and not loaded.
func MetaInit() []string {
	return []string{
		"CREATE TABLE " + MetaTable + " (k VARCHAR(64) PRIMARY KEY, v TEXT)",
		"INSERT INTO " + MetaTable + " (k, v) VALUES ('created_by', " + quote(CreatedBy) + ")",
		"INSERT INTO " + MetaTable + " (k, v) VALUES ('loaded', '0')",
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Fingerprint identifies a dataset's content for one backend's layout, so
// a store loaded by an earlier run is reused only for the same data.
func Fingerprint(gen *datagen.Dataset, bc resolve.CellBackend) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	_ = enc.Encode(gen.Name)
	_ = enc.Encode(gen.Seed)
	_ = enc.Encode(gen.TxSize)
	_ = enc.Encode(gen.Entities)
	_ = enc.Encode(gen.History)
	_ = enc.Encode(bc.Setup)
	_ = enc.Encode(bc.AfterLoad)
	_ = enc.Encode(bc.Load.Tables)
	if l := bc.Load; l.Statement != "" {
		// What a statement load writes is the statement's to say.
		_ = enc.Encode([]string{l.Statement, l.Format, l.IDs})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
