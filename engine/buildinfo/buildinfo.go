// Package buildinfo reads the project's git revision that `go build` and
// `go install` stamp into a binary built inside a checkout.
package buildinfo

import (
	"errors"
	"runtime/debug"
)

// Revision returns the commit the binary was built from and whether the
// work tree had uncommitted changes. It fails, with the reason, when the
// binary carries no version-control stamp (go run, go test, a build
// outside a checkout or with -buildvcs=false).
func Revision() (rev string, modified bool, err error) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false, errors.New("the binary carries no build information")
	}
	return fromSettings(bi.Settings)
}

func fromSettings(settings []debug.BuildSetting) (rev string, modified bool, err error) {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "", false, errors.New("no version-control stamp: built by go run or go test, outside a checkout, or with -buildvcs=false")
	}
	return rev, modified, nil
}

// Describe renders the revision for env.txt and the version command:
// "<rev>" or "<rev> (modified)", else "unknown (<reason>)".
func Describe() string {
	rev, modified, err := Revision()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	if modified {
		return rev + " (modified: uncommitted changes)"
	}
	return rev
}
