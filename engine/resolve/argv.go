package resolve

// A command (argv) with a sensitive value in an argument is refused:
// every user of the host reads a process's arguments (ps,
// /proc/<pid>/cmdline); the command's environment has the value instead.
// sensitiveArgvFormat takes the attribute, the argument (from 1) and the
// environment prefix twice.
const (
	sensitiveArgvSummary = "Sensitive value in a command's arguments"
	sensitiveArgvFormat  = "%s: argument %d holds the value of a sensitive variable, and any user of this host can read a process's arguments. Read it from the environment instead: a command the engine starts has %sNAME set for every sensitive string variable NAME, e.g. [\"sh\", \"-c\", \"tool --token \\\"$%sNAME\\\"\"]."
)
