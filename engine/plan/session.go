package plan

import (
	"fmt"
	"strings"
)

// sessionText writes what every session of the backend has in force
// (extensions, session setup) and the statement that explains its
// queries, when the spec says.
func sessionText(b *strings.Builder, bc *Backend) {
	if len(bc.Extensions) > 0 {
		names := make([]string, len(bc.Extensions))
		for i, e := range bc.Extensions {
			names[i] = e.String()
		}
		unsigned := ""
		if bc.AllowUnsignedExtensions {
			unsigned = " (unsigned files allowed)"
		}
		fmt.Fprintf(b, "    extensions, in every session: %s%s\n", strings.Join(names, ", "), unsigned)
	}
	if len(bc.SessionSetup) > 0 {
		fmt.Fprintf(b, "    session setup, on every session: %s\n", strings.Join(bc.SessionSetup, "; "))
	}
	if bc.Explain != "" {
		fmt.Fprintf(b, "    explain: %s\n", bc.Explain)
	}
}
