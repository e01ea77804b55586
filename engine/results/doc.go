// Package results writes and reads a results directory (results/<run>/)
// in the seed suite's formats, so runs of the old suite and of mentat-spec
// compare. It knows no database and no scenario.
//
// Every row is appended with one write as soon as its point finishes, so a
// crash loses nothing already measured (files are fsynced on Close). An
// existing directory is appended to, headers are written only to new
// files, so a rerun resumes. A line torn by a crash is ended with a newline
// and skipped when reading.
//
// # Files
//
// timings.csv, the median over reps of each point (each numeric field is
// its own median; count is the median count; errors the sum over reps;
// reps the number of reps):
//
//	scenario,backend,scale,n_datoms,clients,op,count,p50_ms,p95_ms,p99_ms,max_ms,throughput_ops_s,errors,reps
//
// raw.csv, every rep (rep counts from 1):
//
//	scenario,backend,scale,n_datoms,clients,op,rep,count,p50_ms,p95_ms,p99_ms,max_ms,throughput_ops_s,errors
//
// op is read, write, ceiling (the first call exceeded the probe ceiling, so
// the scenario was skipped; the latency is that first call), open, or
// cold_*/warm_*. count is the number of successful calls (the latency
// samples), errors the failed ones (timeouts included); throughput is
// successful calls per second of measured wall time.
//
// loads.csv, one row per bulk load; empty post_load_s, analyze_s,
// vacuum_s or size_bytes mean "not measured"; ceiling is 1 when the load
// cap was hit, and the row then carries the rate reached:
//
//	backend,scale,n_datoms,wall_s,datoms_per_s,post_load_s,analyze_s,vacuum_s,size_bytes,jobs,ceiling
//
// checks.txt, one line per correctness check, and a TOTAL line written by
// Close counting every check line in the file:
//
//	PASS|FAIL|SKIP|THRESHOLD <scenario> <backend> <scale> <check name>: <detail>
//	TOTAL <n> PASS, <n> FAIL, <n> SKIP[, <n> THRESHOLD]
//
// sizes.txt, one line per (scale, backend), shared_buffers where known:
//
//	<scale> <backend> <bytes> bytes (<human>)[; shared_buffers <bytes> bytes (<human>); ratio <db/sb>]
//
// env.txt, per invocation a header line with the UTC time, then ordered
// "key: value" lines; values of sensitive keys read "(redacted)", newlines
// in values read "\n":
//
//	# invocation 2026-01-02T03:04:05Z
//	key: value
//
// plans/<scale>-<backend>-<query>.txt|json and logs/<name>.log are plain
// appended files.
//
// windows.csv, when a run has long scenarios, one line per window of one
// stream (read by column name; "op" may stand for "stream"):
//
//	scenario,backend,scale,clients,stream,window_start_s,ops,p50_ms,p95_ms,p99_ms,max_ms,errors
//
// fingerprints.json records, per cell, the fingerprints of the dataset,
// backend, queries and scenarios the rows were measured with (written by
// the runner from package plandesc, read by package compare).
//
// Load reads every file of a directory into a Run (absent files are
// empty; Run.Files says which were there): the rows, the HDR logs (hdr/),
// fingerprints.json and env.txt. Packages report, compare and history
// take that value and read no file by path, so a run is read once. A
// kind with files of its own (capacity's capacity.csv and
// logs/capacity-probes.csv) registers their reading here (RegisterOutput,
// RegisterCSV; its rows embed KindRow and write themselves), and its
// report section and compare rule in those packages, all from its own
// package: this package names none of its types.
package results
