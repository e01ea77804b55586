package plandesc

import "github.com/mentat-spec/mentat-spec/engine/results"

// Fingerprints collects the fingerprints of a description, per cell, in
// the form a results directory records them.
func (d *Description) Fingerprints() *results.Fingerprints {
	f := &results.Fingerprints{Version: results.FingerprintsVersion, Cells: map[string]results.CellFingerprint{}}
	ds := map[string]string{}
	for _, x := range d.Datasets {
		ds[x.Scale] = x.Fingerprint
	}
	for _, c := range d.Cells {
		cf := results.CellFingerprint{Scale: c.Scale, Backend: c.Backend.Name, Dataset: ds[c.Scale], BackendFP: c.Backend.Fingerprint,
			Queries: map[string]string{}, Scenarios: map[string]results.ScenarioFingerprint{}}
		for _, q := range c.Queries {
			cf.Queries[q.Name] = q.Fingerprint
		}
		for _, s := range c.Scenarios {
			cf.Scenarios[s.Name] = results.ScenarioFingerprint{Definition: s.Fingerprint, Queries: s.Queries}
		}
		f.Cells[c.Name()] = cf
	}
	return f
}
