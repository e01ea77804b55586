package plan

import (
	"fmt"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// Advance returns the truth after writes 0..n-1 of generator committed,
// computed from the generator without reading the database. A truth the
// writes make unknowable is left out (a check reading it then fails to
// evaluate) and named in the error.
func (t *Truth) Advance(w *writes.Writes, generator string, n int64) (*Truth, error) {
	adv, err := truth.Advance(t.Values, w, generator, n)
	if adv == nil {
		return nil, err
	}
	nt, nerr := NewTruth(adv)
	if nerr != nil {
		return nil, nerr
	}
	if err != nil {
		return nt, fmt.Errorf("after %d write(s) of %s: %s", n, generator, strings.TrimPrefix(err.Error(), "datagen: "))
	}
	return nt, nil
}

// Operationer is implemented by definitions whose streams hold
// operations.
type Operationer = kind.Operationer

// writesNote says how a scenario's write operations reach the database
// of driver: each client on its own session, or through fewer writing
// sessions shared by the clients (the stream's writers, or what the
// database allows).
func writesNote(drv resolve.Drivers, driver string, opts map[string]string, sd *config.ScenarioBlock) string {
	od, ok := sd.Def.(Operationer)
	if !ok || !kind.OpsWrite(od.Operations()) {
		return ""
	}
	limit, why := 0, ""
	if d, ok := drv.Driver(driver); ok {
		limit, why = drivers.WriteLimit(d, opts)
	}
	writers := 0
	for _, o := range od.Operations() {
		if o.IsWrite() {
			writers = max(writers, o.Writers)
		}
	}
	sessions := func(n int) string {
		if n == 1 {
			return "one writing session shared by the clients"
		}
		return fmt.Sprintf("%d writing sessions shared by the clients", n)
	}
	switch {
	case limit > 0 && (writers == 0 || writers > limit):
		txs := "one writing transaction"
		if limit != 1 {
			txs = fmt.Sprintf("%d writing transactions", limit)
		}
		s := fmt.Sprintf("%s (%s runs %s at a time", sessions(limit), driver, txs)
		if why != "" {
			s = fmt.Sprintf("%s (%s", sessions(limit), why)
		}
		if writers > limit {
			s += fmt.Sprintf("; writers = %d asked", writers)
		}
		return s + ")"
	case writers > 0:
		return fmt.Sprintf("%s (writers = %d)", sessions(writers), writers)
	}
	return "each client writes on its own session"
}

// AdvanceJournal returns the truth after every write in j committed,
// computed from the generators without reading the database. A truth the
// writes make unknowable is left out and named in the error.
func (t *Truth) AdvanceJournal(w *writes.Writes, j *writes.Journal) (*Truth, error) {
	adv, err := truth.AdvanceJournal(t.Values, w, j)
	if adv == nil {
		return nil, err
	}
	nt, nerr := NewTruth(adv)
	if nerr != nil {
		return nil, nerr
	}
	if err != nil {
		return nt, fmt.Errorf("after %d committed write(s) of %s: %s", j.Len(), strings.Join(j.Generators(), ", "), strings.TrimPrefix(err.Error(), "datagen: "))
	}
	return nt, nil
}
