package export

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mentat-spec/mentat-spec/datagen"
)

// TxData renders datoms as the tx-data a store's own transact function
// takes, a batch at a time: EDN as `gen -edn` writes a transaction
// ([[:db/add e :attr v] ...], the same encoder), or JSON
// ([["db/add", e, "attr", v, tx], ...], keywords without their colon,
// instants as epoch ms, and the generator's tx id last so a statement
// that writes datom tables keeps it). With tempids, entity ids and ref
// values are string tempids (the id's digits in quotes) instead.
type TxData struct {
	json    bool
	enc     *encoder
	attrs   []datagen.AttrInfo
	idents  [][]byte // JSON-quoted ident, by attribute ID - 1
	buf     []byte
	n       int
	tempids bool
}

// NewTxData renders tx-data in format "edn" or "json".
func NewTxData(attrs []datagen.AttrInfo, format string, tempids bool) (*TxData, error) {
	t := &TxData{enc: newEncoder(attrs), attrs: attrs, tempids: tempids}
	t.enc.tempids = tempids
	switch format {
	case "edn":
	case "json":
		t.json = true
		for i := range attrs {
			q, _ := json.Marshal(attrs[i].Ident)
			t.idents = append(t.idents, q)
		}
	default:
		return nil, fmt.Errorf("tx-data format %q: edn or json", format)
	}
	t.Reset()
	return t, nil
}

// Reset starts a new batch.
func (t *TxData) Reset() {
	t.buf = append(t.buf[:0], '[')
	t.n = 0
}

// Len is the number of datoms (or attributes) in the batch.
func (t *TxData) Len() int { return t.n }

// Add appends one datom to the batch.
func (t *TxData) Add(d *datagen.Datom) {
	t.sep()
	if !t.json {
		t.buf = t.enc.appendEDNDatom(t.buf, d)
		return
	}
	b := t.buf
	if d.Added {
		b = append(b, `["db/add",`...)
	} else {
		b = append(b, `["db/retract",`...)
	}
	b = t.appendID(b, d.E)
	b = append(b, ',')
	b = append(b, t.idents[d.A-1]...)
	b = append(b, ',')
	switch v := d.V; v.Type {
	case datagen.TypeString, datagen.TypeKeyword:
		q, _ := json.Marshal(v.Str)
		b = append(b, q...)
	case datagen.TypeDouble:
		b = strconv.AppendFloat(b, v.Float, 'g', -1, 64)
	case datagen.TypeBoolean:
		b = strconv.AppendBool(b, v.Int != 0)
	case datagen.TypeRef:
		b = t.appendID(b, v.Int)
	default: // long, instant (epoch ms)
		b = strconv.AppendInt(b, v.Int, 10)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, d.Tx, 10)
	t.buf = append(b, ']')
}

// sep counts one more item and separates it from the one before.
func (t *TxData) sep() {
	if t.n > 0 {
		if t.json {
			t.buf = append(t.buf, ',')
		} else {
			t.buf = append(t.buf, ' ')
		}
	}
	t.n++
}

func (t *TxData) appendID(b []byte, id int64) []byte {
	if t.tempids {
		return appendTempid(b, id)
	}
	return strconv.AppendInt(b, id, 10)
}

func appendTempid(b []byte, id int64) []byte {
	b = append(b, '"')
	b = strconv.AppendInt(b, id, 10)
	return append(b, '"')
}

// Schema renders every attribute as one batch of attribute maps, the
// store's schema transaction: EDN {:db/id 1 :db/ident :user/email
// :db/valueType :db.type/string :db/cardinality :db.cardinality/one
// :db/unique :db.unique/identity :db/index true}, JSON the same keys
// without colons and "entity" (the kind) added.
func (t *TxData) Schema() []byte {
	t.Reset()
	for i := range t.attrs {
		a := &t.attrs[i]
		card := "one"
		if a.Many {
			card = "many"
		}
		t.sep()
		b := t.buf
		if t.json {
			b = append(b, `{"db/id":`...)
			b = t.appendID(b, int64(a.ID))
			b = append(b, `,"db/ident":`...)
			b = append(b, t.idents[i]...)
			b = append(b, `,"db/valueType":"db.type/`...)
			b = append(b, a.Type...)
			b = append(b, `","db/cardinality":"db.cardinality/`...)
			b = append(b, card...)
			b = append(b, '"')
			if a.Unique {
				b = append(b, `,"db/unique":"db.unique/identity"`...)
			}
			b = append(b, `,"db/index":`...)
			b = strconv.AppendBool(b, a.Index)
			b = append(b, `,"entity":`...)
			q, _ := json.Marshal(a.Entity)
			b = append(b, q...)
			t.buf = append(b, '}')
			continue
		}
		b = append(b, "{:db/id "...)
		b = t.appendID(b, int64(a.ID))
		b = append(b, " :db/ident :"...)
		b = append(b, a.Ident...)
		b = append(b, " :db/valueType :db.type/"...)
		b = append(b, a.Type...)
		b = append(b, " :db/cardinality :db.cardinality/"...)
		b = append(b, card...)
		if a.Unique {
			b = append(b, " :db/unique :db.unique/identity"...)
		}
		b = append(b, " :db/index "...)
		b = strconv.AppendBool(b, a.Index)
		t.buf = append(b, '}')
	}
	return t.Bytes()
}

// Bytes is the batch's text (valid until the next Reset or Add).
func (t *TxData) Bytes() []byte {
	return append(t.buf, ']')
}
