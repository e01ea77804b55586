package protocol

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseReply(t *testing.T) {
	tests := []struct {
		line    string
		wantErr string // "" for a reply
	}{
		{`{"ok":true}`, ""},
		{`{"ok":true,"n":3,"store_us":12.5}`, ""},
		{`{"ok":false,"error":{"class":"syntax","message":"near x"}}`, ""},
		{``, "one JSON object"},
		{`garbage`, "one JSON object"},
		{`[1,2]`, "one JSON object"},
		{`{"ok":true} {"ok":true}`, "more than one"},
		{`{"ok":false}`, `"ok": true or an "error"`},
		{`{"ok":true,"error":{"class":"x","message":"y"}}`, "not both"},
		{`{"ok":true,"n":-1}`, "n = -1"},
		{`{"ok":true,"store_us":-5}`, "store_us"},
		{`{"ok":true,"n":"three"}`, "not a reply"},
		{"{\"ok\":true,\"name\":\"\xff\"}", "not UTF-8"},
		{`{"ok":true`, "not a reply"},
	}
	for _, tt := range tests {
		_, err := ParseReply([]byte(tt.line))
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tt.line, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%q: err = %v, want %q", tt.line, err, tt.wantErr)
		}
	}
}

func TestRowsTyped(t *testing.T) {
	rep, err := ParseReply([]byte(`{"ok":true,"columns":["a","b","c","d","e","f","g"],"rows":[[1,1.0,"x",null,true,{"bytes":"aGk="},9223372036854775808]]}`))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rep.Rows()
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(1), float64(1), "x", nil, true, []byte("hi"), float64(9223372036854775808)}
	for i, w := range want {
		g := rows[0][i]
		if b, ok := w.([]byte); ok {
			if gb, ok := g.([]byte); !ok || string(gb) != string(b) {
				t.Errorf("value %d = %#v, want %#v", i, g, w)
			}
			continue
		}
		if g != w {
			t.Errorf("value %d = %#v (%T), want %#v (%T)", i, g, g, w, w)
		}
	}
	for _, bad := range []string{
		`{"ok":true,"rows":[1]}`,
		`{"ok":true,"rows":[[{"x":1}]]}`,
		`{"ok":true,"rows":[[[1]]]}`,
		`{"ok":true,"columns":["a"],"rows":[[1,2]]}`,
		`{"ok":true,"rows":[[{"bytes":"!!"}]]}`,
	} {
		rep, err := ParseReply([]byte(bad))
		if err != nil {
			continue
		}
		if _, err := rep.Rows(); err == nil {
			t.Errorf("%s: rows decoded", bad)
		}
	}
}

func TestReadLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("a\r\n"+strings.Repeat("b", 10000)+"\nc"), 16)
	if l, err := ReadLine(r); err != nil || string(l) != "a" {
		t.Fatalf("line 1: %q %v", l, err)
	}
	if l, err := ReadLine(r); err != nil || len(l) != 10000 {
		t.Fatalf("line 2: %d bytes, %v", len(l), err)
	}
	if l, err := ReadLine(r); !errors.Is(err, io.ErrUnexpectedEOF) || string(l) != "c" {
		t.Fatalf("line 3: %q %v", l, err)
	}
	if _, err := ReadLine(r); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

func TestCheckVersion(t *testing.T) {
	for v, ok := range map[string]bool{"1.0": true, "1.7": true, "1": true, "2.0": false, "0.9": false, "": false, "x.y": false} {
		if err := CheckVersion(v); (err == nil) != ok {
			t.Errorf("CheckVersion(%q) = %v", v, err)
		}
	}
	if err := CheckVersion("2.0"); !strings.Contains(err.Error(), "speaks protocol 2.0, this engine speaks "+Version) {
		t.Errorf("message: %v", err)
	}
}

func TestParam(t *testing.T) {
	tests := []struct {
		in   any
		typ  string
		fail bool
	}{
		{int64(1), "int", false}, {1.5, "real", false}, {"x", "text", false}, {true, "bool", false},
		{nil, "null", false}, {[]byte("x"), "bytes", false}, {time.Unix(0, 0), "time", false},
		{struct{}{}, "", true},
	}
	for _, tt := range tests {
		_, typ, err := Param(tt.in)
		if (err != nil) != tt.fail || typ != tt.typ {
			t.Errorf("Param(%#v) = %q, %v", tt.in, typ, err)
		}
	}
}

// FuzzReadReply feeds the reader arbitrary adapter output: it never
// panics, and a line it accepts decodes its rows without panicking.
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{
		`{"ok":true}` + "\n",
		`{"ok":true,"columns":["a"],"rows":[[1],[2.5],["x"],[null],[{"bytes":"aGk="}]],"store_us":3}` + "\n",
		`{"ok":false,"error":{"class":"busy","message":"locked"}}` + "\n",
		`{"ok":true,"protocol":"1.0","name":"x","capabilities":{"transactions":true,"writers":1}}` + "\n",
		"garbage\n\n\r\n{",
		`{"ok":true,"rows":[[1e400]]}`,
		`{"ok":true,"n":3,"store_us":1.5e2}`,
		`{"n":3,"ok":true}`,
		`{"ok":true,"n":03}`,
		"{\"ok\":true,\"n\":1,\"store_us\":0x10}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A parameter string written by hand decodes as encoding/json's.
		var a, b string
		enc, _, _ := AppendValue(nil, string(data))
		std, _ := json.Marshal(string(data))
		if err := json.Unmarshal(enc, &a); err != nil {
			t.Fatalf("%q: AppendValue wrote %s: %v", data, enc, err)
		}
		json.Unmarshal(std, &b)
		if a != b {
			t.Fatalf("%q: AppendValue %q, encoding/json %q", data, a, b)
		}
		r := bufio.NewReaderSize(strings.NewReader(string(data)), 16)
		for i := 0; i < 100; i++ {
			line, err := ReadLine(r)
			if err != nil && len(line) == 0 {
				return
			}
			// The fast path reads a line as the full decoder does.
			if fast, ok := parseCountReply(line); ok {
				full, err := parseFull(line)
				if err != nil {
					t.Fatalf("%q: the fast path accepts what the decoder refuses: %v", line, err)
				}
				if fast.OK != full.OK || fast.N != full.N || (fast.StoreUS == nil) != (full.StoreUS == nil) ||
					(fast.StoreUS != nil && *fast.StoreUS != *full.StoreUS) {
					t.Fatalf("%q: fast %+v, full %+v", line, fast, full)
				}
			}
			rep, err := ParseReply(line)
			if err != nil {
				continue
			}
			rep.Rows()
			CheckVersion(rep.Protocol)
		}
	})
}
