package config

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Input is a file the spec was made from: its absolute path and the
// SHA-256 (hex) of its content as it was read.
type Input struct {
	Path   string
	SHA256 string
}

// inputs are the files a spec read.
type inputs struct {
	mu   sync.Mutex
	list []Input
	seen map[string]bool
}

// recordInput notes that the spec read path with content b: the spec's
// files and their includes, -var-file files and every file() call.
func (s *Spec) recordInput(path string, b []byte) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	sum := sha256.Sum256(b)
	s.inputs.mu.Lock()
	defer s.inputs.mu.Unlock()
	if s.inputs.seen == nil {
		s.inputs.seen = map[string]bool{}
	}
	if s.inputs.seen[path] {
		return
	}
	s.inputs.seen[path] = true
	s.inputs.list = append(s.inputs.list, Input{Path: path, SHA256: hex.EncodeToString(sum[:])})
}

// Inputs lists every file the spec read so far, by path (the order of
// reads follows map iteration): what a plan made from it depends on
// besides variables and the environment.
func (s *Spec) Inputs() []Input {
	s.inputs.mu.Lock()
	defer s.inputs.mu.Unlock()
	out := append([]Input(nil), s.inputs.list...)
	slices.SortFunc(out, func(a, b Input) int { return strings.Compare(a.Path, b.Path) })
	return out
}
