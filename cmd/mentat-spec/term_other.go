//go:build !unix

package main

import "io"

// terminalWidth is unknown here: the progress line keeps its default bound.
func terminalWidth(io.Writer) int { return 0 }
