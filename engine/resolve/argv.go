package resolve

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// sensitiveArgv refuses a command (argv) with a sensitive value in an
// argument: every user of the host reads a process's arguments (ps,
// /proc/<pid>/cmdline). The command's environment has the value instead.
func sensitiveArgv(expr hcl.Expression, attr string, argv []string) hcl.Diagnostics {
	if i := slices.IndexFunc(argv, redact.Contains); i >= 0 {
		return hcl.Diagnostics{hcleval.AttrError(expr, sensitiveArgvSummary,
			fmt.Sprintf(sensitiveArgvFormat, attr, i+1, config.EnvVarPrefix, config.EnvVarPrefix))}
	}
	return nil
}

// sensitiveArgvSummary and sensitiveArgvFormat (attribute, argument from
// 1, the environment prefix twice) say why an argument is refused and
// what to do instead.
const (
	sensitiveArgvSummary = "Sensitive value in a command's arguments"
	sensitiveArgvFormat  = "%s: argument %d holds the value of a sensitive variable, and any user of this host can read a process's arguments. Read it from the environment instead: a command the engine starts has %sNAME set for every sensitive string variable NAME, e.g. [\"sh\", \"-c\", \"tool --token \\\"$%sNAME\\\"\"]."
)
