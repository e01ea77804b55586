package resolve

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// sensitiveArgv refuses a command (argv) with a sensitive value in an
// argument: every user of the host reads a process's arguments (ps,
// /proc/<pid>/cmdline). The command's environment has the value instead.
func sensitiveArgv(expr hcl.Expression, attr string, argv []string) hcl.Diagnostics {
	for i, a := range argv {
		if redact.Contains(a) {
			return hcl.Diagnostics{hcleval.AttrError(expr, "Sensitive value in a command's arguments",
				fmt.Sprintf("%s: argument %d holds the value of a sensitive variable, and any user of this host can read a process's arguments. Read it from the environment instead: a command the engine starts has %sNAME set for every sensitive string variable NAME, e.g. [\"sh\", \"-c\", \"tool --token \\\"$%sNAME\\\"\"].",
					attr, i+1, config.EnvVarPrefix, config.EnvVarPrefix))}
		}
	}
	return nil
}
