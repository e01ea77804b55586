package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/store"
)

// Full words a full disk that the C library reports, or that only the
// driver recognises in its database's words; other errors pass unchanged.
func TestFull(t *testing.T) {
	drv, ok := drivers.Default.Lookup("sqlite")
	if !ok {
		t.Fatal("no sqlite driver")
	}
	pc := &plan.Cell{Scale: &plan.ScalePlan{Name: "xs"}, Backend: plan.Backend{Name: "s"}}
	for _, tc := range []struct {
		msg  string
		full bool
	}{
		{"write: no space left on device", true},
		{"exec INSERT: database or disk is full", true}, // the driver's words
		{"exec INSERT: UNIQUE constraint failed", false},
	} {
		in := errors.New(tc.msg)
		got := store.Full(drv, pc, t.TempDir(), in)
		if full := got != in && strings.Contains(got.Error(), "is full"); full != tc.full || !errors.Is(got, in) {
			t.Errorf("Full(%q) = %v, want full %v", tc.msg, got, tc.full)
		}
	}
}
