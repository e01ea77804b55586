// Package host reads the facts of the machine a run is on (env.txt's
// machine and tuning lines, free disk space, whether an error means a
// full disk) and handles the OS page cache for cold starts. It knows no
// database: drivers and the runner ask it about files and directories.
package host
