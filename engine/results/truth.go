package results

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// TruthFile is a scale's truth in a results directory, as loaded: before
// any write of a scenario (checks after writes compare with it advanced by
// the writes that committed).
func TruthFile(scale string) string { return "truth-" + scale + ".json" }

// WriteTruth writes a scale's computed truth to dir as indented JSON.
func WriteTruth(dir, scale string, truth any) error {
	name := TruthFile(scale)
	b, err := json.MarshalIndent(truth, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", name, err)
	}
	if err := redact.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
