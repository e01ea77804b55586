//go:build !linux

package memuse

import "errors"

type status struct{ peak, now int64 }

var errNoProc = errors.New("memuse: the resident set is read from /proc, which this OS lacks")

func readStatus() (status, error) { return status{}, errNoProc }

func resetPeak() error { return errNoProc }
