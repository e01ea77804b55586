//go:build unix

package main

import (
	"io"

	"github.com/mentat-spec/mentat-spec/engine/redact"

	"golang.org/x/sys/unix"
)

// terminalWidth is the columns of the terminal w writes to, asked each
// time (it may be resized); 0 when unknown.
func terminalWidth(w io.Writer) int {
	f, ok := redact.File(w)
	if !ok {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
