package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// FingerprintsFile is the results directory's record of what each cell's
// rows were measured with.
const FingerprintsFile = "fingerprints.json"

// FingerprintsVersion is the version of the fingerprints.json format.
const FingerprintsVersion = 1

// ErrNoFingerprints is returned (wrapped) when a results directory
// predates fingerprints; compare then falls back to the whole spec's
// hash.
var ErrNoFingerprints = errors.New("no " + FingerprintsFile)

// Fingerprints are the definitions a results directory was measured
// with, per cell ("scale/backend").
type Fingerprints struct {
	Version int                        `json:"version"`
	Cells   map[string]CellFingerprint `json:"cells"`
}

// CellFingerprint holds one cell's fingerprints. Backend is recorded but
// does not make rows incomparable: a backend's settings, setup and
// indexes are what a comparison of two runs usually measures.
type CellFingerprint struct {
	Scale     string                         `json:"scale"`
	Backend   string                         `json:"backend"`
	Dataset   string                         `json:"dataset"`
	BackendFP string                         `json:"backend_definition"`
	Queries   map[string]string              `json:"queries"`
	Scenarios map[string]ScenarioFingerprint `json:"scenarios"`
}

// ScenarioFingerprint is a scenario's own fingerprint and the queries
// its points run (whose fingerprints decide too).
type ScenarioFingerprint struct {
	Definition string   `json:"definition"`
	Queries    []string `json:"queries"`
}

// WriteFingerprints records f in the results directory dir. Cells an
// earlier invocation recorded there and f lacks are kept, so a directory
// filled by several runs describes all its rows; f's own cells are
// replaced.
func WriteFingerprints(dir string, f *Fingerprints) error {
	merged := &Fingerprints{Version: f.Version, Cells: make(map[string]CellFingerprint, len(f.Cells))}
	for k, c := range f.Cells {
		merged.Cells[k] = c
	}
	if old, err := ReadFingerprints(dir); err == nil {
		for k, c := range old.Cells {
			if _, ok := merged.Cells[k]; !ok {
				merged.Cells[k] = c
			}
		}
	} else if !errors.Is(err, ErrNoFingerprints) {
		return err
	}
	b, err := json.MarshalIndent(merged, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", FingerprintsFile, err)
	}
	path := filepath.Join(dir, FingerprintsFile)
	tmp := path + ".tmp"
	if err := redact.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", FingerprintsFile, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", FingerprintsFile, err)
	}
	return nil
}

// ReadFingerprints reads dir's fingerprints.json.
func ReadFingerprints(dir string) (*Fingerprints, error) {
	b, err := os.ReadFile(filepath.Join(dir, FingerprintsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoFingerprints)
	}
	if err != nil {
		return nil, err
	}
	var f Fingerprints
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FingerprintsFile), err)
	}
	if f.Version != FingerprintsVersion {
		return nil, fmt.Errorf("%s: version %d, want %d", filepath.Join(dir, FingerprintsFile), f.Version, FingerprintsVersion)
	}
	return &f, nil
}
