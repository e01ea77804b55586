package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromSettings(t *testing.T) {
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		rev      string
		modified bool
		err      string
	}{
		{"clean", []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}, "abc123", false, ""},
		{"modified", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}, "abc123", true, ""},
		{"no stamp", []debug.BuildSetting{{Key: "-compiler", Value: "gc"}}, "", false, "no version-control stamp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rev, mod, err := fromSettings(tc.settings)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || rev != tc.rev || mod != tc.modified {
				t.Fatalf("got %q %v %v, want %q %v", rev, mod, err, tc.rev, tc.modified)
			}
		})
	}
}
