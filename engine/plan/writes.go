package plan

import (
	"fmt"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/kind"
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
