package edn

import "testing"

// FuzzDecode feeds arbitrary bytes to the reader: it returns a value or
// an error, never panics, and a value it reads once it reads again the
// same way from the same bytes.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`[[:db/add 1000000000001 :user/email "a@b"]]`, `#{[1 "x" :open #inst "2024-01-01T00:00:00.000Z"]}`,
		`{:a [1 2.5 nil true]}`, `(1 #_ 2 \a \newline)`, `12N 3.5M ##NaN`, `"\u00e9\t"`, `#tag [#{}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			if v != nil {
				t.Fatalf("value %v with error %v", v, err)
			}
			return
		}
		if _, err := Decode(data); err != nil {
			t.Fatalf("second read failed: %v", err)
		}
	})
}
