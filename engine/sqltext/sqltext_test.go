package sqltext

import (
	"reflect"
	"strconv"
	"testing"
)

func TestStatements(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"two", "CREATE TABLE a(x INT);\nCREATE INDEX i ON a(x);\n", []string{"CREATE TABLE a(x INT)", "CREATE INDEX i ON a(x)"}},
		{"quoted semicolon", "SELECT ';' ; SELECT 2", []string{"SELECT ';'", "SELECT 2"}},
		{"comments", "-- a; comment\nSELECT 1; /* x; y */ ;", []string{"-- a; comment\nSELECT 1"}},
		{"dollar quote", "SELECT $$a;b$$; SELECT 3", []string{"SELECT $$a;b$$", "SELECT 3"}},
		{"empty", " ; ;\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Statements(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Statements(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestBind(t *testing.T) {
	dollar := func(i int) string { return "$" + strconv.Itoa(i) }
	qmark := func(int) string { return "?" }
	tests := []struct {
		name      string
		in        string
		ph        func(int) string
		wantSQL   string
		wantNames []string
		wantErr   bool
	}{
		{"positional pg", "SELECT * FROM t WHERE a = :a AND b = :b", dollar, "SELECT * FROM t WHERE a = $1 AND b = $2", []string{"a", "b"}, false},
		{"repeated", "SELECT :x, :x", qmark, "SELECT ?, ?", []string{"x", "x"}, false},
		{"cast kept", "SELECT CAST(:e AS jsonb), x::text", dollar, "SELECT CAST($1 AS jsonb), x::text", []string{"e"}, false},
		{"string literal kept", "SELECT ':no' || :yes", qmark, "SELECT ':no' || ?", []string{"yes"}, false},
		{"comment kept", "SELECT 1 -- :no\n, :yes", qmark, "SELECT 1 -- :no\n, ?", []string{"yes"}, false},
		{"mixed markers", "SELECT ? , :a", qmark, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Bind(tt.in, tt.ph)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got.SQL != tt.wantSQL || !reflect.DeepEqual(got.Names, tt.wantNames) {
				t.Fatalf("Bind = %q %q, want %q %q", got.SQL, got.Names, tt.wantSQL, tt.wantNames)
			}
		})
	}
	if got := Params("SELECT :a, :b, :a"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("Params = %v", got)
	}
}
