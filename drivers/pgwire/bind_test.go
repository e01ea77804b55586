package pgwire

import (
	"bytes"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestBindArgsAsPgx: the counted path's own Bind is byte for byte the one
// pgx's ExtendedQueryBuilder makes, and it leaves other arguments to it.
func TestBindArgsAsPgx(t *testing.T) {
	m := pgtype.NewMap()
	fields := []pgconn.FieldDescription{{Name: "name", DataTypeOID: pgtype.TextOID}, {Name: "n", DataTypeOID: pgtype.Int8OID}}
	for _, tc := range []struct {
		name string
		oids []uint32
		args []any
		fast bool
	}{
		{"email", []uint32{pgtype.TextOID}, []any{"user7@example.com"}, true},
		{"string for an int8", []uint32{pgtype.Int8OID}, []any{"42"}, true},
		{"quotes and empty", []uint32{pgtype.VarcharOID, pgtype.TextOID}, []any{"it's", ""}, true},
		{"int8", []uint32{pgtype.Int8OID, pgtype.TextOID}, []any{int64(-5), "x"}, true},
		{"many values", []uint32{pgtype.TextOID, pgtype.TextOID, pgtype.TextOID, pgtype.Int8OID}, []any{string(make([]byte, 300)), "b", "c", int64(1 << 40)}, true},
		{"int64 for an int4", []uint32{pgtype.Int4OID}, []any{int64(5)}, true},
		{"negative int64 for an int4", []uint32{pgtype.Int8OID, pgtype.Int4OID}, []any{int64(1 << 40), int64(-7)}, true},
		{"int64 past an int4", []uint32{pgtype.Int4OID}, []any{int64(1 << 31)}, false},
		{"float", []uint32{pgtype.Float8OID}, []any{1.5}, false},
		{"nil", []uint32{pgtype.TextOID}, []any{nil}, false},
		{"too few", []uint32{pgtype.TextOID, pgtype.TextOID}, []any{"a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sd := &pgconn.StatementDescription{Name: "s1", ParamOIDs: tc.oids, Fields: fields}
			st := &Statement{Name: "s1", Desc: sd}
			var f Counter
			// Twice: the second call reuses the buffers.
			for range 2 {
				if got := f.bindArgs(st, m, tc.args); got != tc.fast {
					t.Fatalf("bindArgs = %v, want %v", got, tc.fast)
				}
			}
			if !tc.fast {
				return
			}
			var eqb pgx.ExtendedQueryBuilder
			if err := eqb.Build(m, sd, tc.args); err != nil {
				t.Fatal(err)
			}
			want, err := (&pgproto3.Bind{PreparedStatement: "s1", ParameterFormatCodes: eqb.ParamFormats,
				Parameters: eqb.ParamValues, ResultFormatCodes: eqb.ResultFormats}).Encode(nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.bind.Encode(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Bind\n got %q\nwant %q", got, want)
			}
		})
	}
}
