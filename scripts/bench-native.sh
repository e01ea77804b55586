#!/usr/bin/env bash
# bench-native.sh: the engine against each database's own fast path, on the
# same rows and the same query, side by side (BENCHMARKS.md, "engine vs
# native"). For one scale of the quickstart's dataset it
#
#   1. builds bin/mentat-spec and writes the dataset with `mentat-spec gen`;
#   2. loads PostgreSQL with psql \copy of the gen CSV files and with
#      `mentat-spec apply -phase load`, in turns, into fresh databases;
#   3. runs the Go benchmarks that compare the engine's SQLite and DuckDB
#      loads with go-sqlite3 prepared-insert loops and DuckDB's COPY FROM of
#      the same CSV files (there is no DuckDB CLI), and times
#      `apply -phase load` on SQLite and DuckDB too;
#   4. runs pgbench (-M simple and -M prepared, -c 1, 2, 8 and 32, -j = -c)
#      and the engine's point_lookup (q1 at the same client counts; extended
#      protocol and the driver's default io as the quickstart, simple
#      protocol, and extended with io=auto) in turns (pgbench first in odd
#      rounds, the engine in even ones) against the engine-loaded
#      PostgreSQL database, with each client's CPU per query;
#   5. runs, in the same turns at 1 and 4 writers, two write transactions
#      through the engine (write operations, one transaction a call: BEGIN,
#      the statements, COMMIT) and through pgbench -f with the same
#      statements between BEGIN and END: YCSB workload A's update
#      (examples/ycsb/postgres/update.sql, on examples/ycsb's dataset) and
#      write_mixed's transaction (specs/mentat/sql/write_state.sql, on the
#      quickstart's);
#   6. runs pgbench's built-in tpcb-like (pgbench -b tpcb-like) and the
#      engine's tpcb_like on pgbench's own tables (examples/tpcb loaded
#      through a statement into pgbench_accounts, _tellers, _branches as
#      pgbench -i -s 1 creates them: examples/tpcb/pgbench), in the same
#      turns at the same writer counts, each run from the loaded state
#      (zero balances, empty history); the engine's run passes its checks,
#      and after each pgbench run the engine's conservation query
#      (examples/tpcb/pgbench/conservation.sql) must find the TPC-B
#      invariant on what pgbench left: sum(abalance) = sum(tbalance) =
#      sum(bbalance) = sum(delta) of the history;
#   7. prints a table of medians over the rounds, and the engine's client
#      CPU per query over pgbench's as a median of per-round ratios.
#
# Environment (defaults in brackets):
#   BENCH_SCALE    the scale [s: 991,248 datoms]
#   BENCH_ROUNDS   rounds of each comparison [3]
#   BENCH_SECONDS  seconds per pgbench run and per engine point [5]
#   BENCH_TIMEOUT  bound on the whole script, seconds [3600]
#   BENCH_PARTS    all; q1: only the q1 table (one engine load of the
#                  database, no load comparisons); writes: only the writes
#                  table (tpcb-like included); tpcb: only its rows; loads: only the load comparisons, the engine's
#                  without its after-load SQL as the native ones have
#                  none (scripts/bench-native/load_only_override.hcl;
#                  for a large BENCH_SCALE, where the loads take minutes
#                  each) [all]
#   BENCH_CLIENTS  the q1 table's client counts [1 2 8 32]
#   BENCH_WRITERS  the writes table's writer counts [1 4]
#   BENCH_WRITES   the writes table's transactions [update write_state]
#   BENCH_WRITE_IO the engine's PostgreSQL io in the writes table [raw, the
#                  driver's default on Linux]: auto, poller or blocking
#                  show what waiting for a reply costs under a row lock
#   BENCH_YCSB_SCALE  the YCSB dataset's scale for the update [s: 100,000
#                  records]
#   BENCH_LOAD_GOGC  GOGC of the Go load benchmarks [100]; they hold the
#                  scale's rows in memory for the native SQLite loops up to
#                  20M datoms (about 180 bytes a row: 18 GB at l would not
#                  fit 24 GiB), and stream them from the generator past that
#                  (MENTAT_SPEC_BENCH_INMEM_MAX)
#   BENCH_TPCB_EVIDENCE  the engine's evidence in the tpcb-like rows: off
#                  (scripts/bench-native/evidence_off_override.hcl), as
#                  pgbench samples nothing; on, as apply runs by default,
#                  adds its wait sampler (pg_stat_activity every 200 ms on
#                  a connection of its own) to the engine's process and the
#                  server during each point [off]
#   BENCH_SYNC_COMMIT  synchronous_commit of the writes' databases, for
#                  the engine and pgbench alike (ALTER DATABASE): off, so
#                  that the clients and the server's CPU set the rate, not
#                  this host's fsync, which moves by up to 4x between
#                  rounds; on is PostgreSQL's default [off]
#   PGBENCH        pgbench binary [/usr/lib/postgresql/15/bin/pgbench]
#
# PostgreSQL is the throwaway cluster of scripts/pg.sh (started if needed,
# never stopped: others may use it); only 127.0.0.1 is contacted. The
# script creates and drops only databases named mentat_bench_*.
#
# The writes table: both clients draw their parameters alike. The update:
# a uniform record (pgbench's zipfian needs an exponent above 1, YCSB's is
# 0.99, so the engine runs examples/ycsb with requestdistribution =
# uniform), a uniform field, a 100-character value; write_mixed's: an
# issue by zipf(1.1) as the dataset's write "state_change" draws it (both
# samplers put the most frequent at the first id), the state by the
# write's weights (open 4, closed 4, in_progress 2), and tx ids rising
# from the load's across the writers as the engine's do. A constant state
# and random tx ids, as this table had before 2026-12-03, spare pgbench
# work the engine does: an UPDATE that leaves the indexed state as it is
# can be a heap-only update, and rising tx ids put every log insert on the
# rightmost pages of the log's (a, tx) and (a, v, tx) indexes. The
# engine's tx ids start after the load's in every process, and the update
# writes nothing unless its tx is above the row's, so every timed write
# run starts from the rows' loaded tx (an UPDATE of the rows written,
# untimed); the update's pgbench tx is a random one above the load's.
set -euo pipefail

die() {
	echo "bench-native.sh: $*" >&2
	# What was measured before the failure, which the cleanup would lose.
	local f
	for f in ${tmp:+"$tmp"/pg-copy "$tmp"/pg-engine "$tmp"/pg-engine-1tx "$tmp"/sqlite-engine "$tmp"/duckdb-engine}; do
		[[ -s $f ]] && echo "bench-native.sh: measured before: ${f##*/} = $(paste -sd/ "$f") datoms/s" >&2
	done
	exit 1
}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

limit=${BENCH_TIMEOUT:-3600}
if [[ -z ${BENCH_NATIVE_BOUNDED:-} ]]; then
	export BENCH_NATIVE_BOUNDED=1
	exec timeout --kill-after=30 "$limit" "$repo/scripts/bench-native.sh" "$@"
fi

scale=${BENCH_SCALE:-s}
rounds=${BENCH_ROUNDS:-3}
secs=${BENCH_SECONDS:-5}
parts=${BENCH_PARTS:-all}
clients=${BENCH_CLIENTS:-1 2 8 32}
writers=${BENCH_WRITERS:-1 4}
yscale=${BENCH_YCSB_SCALE:-s}
sync_commit=${BENCH_SYNC_COMMIT:-off}
tpcb_evidence=${BENCH_TPCB_EVIDENCE:-off}
full=1 # the load comparisons too
[[ $parts != all && $parts != loads ]] && full=0
do_q1=1 do_writes=1
[[ $parts == writes || $parts == loads ]] && do_q1=0
[[ $parts == q1 || $parts == loads ]] && do_writes=0
do_tpcb=$do_writes
[[ $parts == tpcb ]] && do_q1=0 do_writes=0 do_tpcb=1
pgbench=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
spec=engine/runner/testdata/bench-native.hcl
yspec=engine/runner/testdata/bench-native-ycsb.hcl
bin=bin/mentat-spec
[[ $scale =~ ^[a-z0-9]+$ ]] || die "BENCH_SCALE=$scale: not a scale name"
[[ $rounds =~ ^[1-9][0-9]*$ && $secs =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS and BENCH_SECONDS must be positive integers"
[[ $parts == all || $parts == q1 || $parts == writes || $parts == tpcb || $parts == loads ]] || die "BENCH_PARTS=$parts: all, q1, writes, tpcb or loads"
[[ $clients =~ ^[1-9][0-9]*( [1-9][0-9]*)*$ ]] || die "BENCH_CLIENTS=$clients: client counts separated by spaces"
[[ $writers =~ ^[1-9][0-9]*( [1-9][0-9]*)*$ ]] || die "BENCH_WRITERS=$writers: writer counts separated by spaces"
[[ $yscale =~ ^[a-z0-9]+$ ]] || die "BENCH_YCSB_SCALE=$yscale: not a scale name"
[[ $sync_commit == on || $sync_commit == off ]] || die "BENCH_SYNC_COMMIT=$sync_commit: on or off"
[[ $tpcb_evidence == on || $tpcb_evidence == off ]] || die "BENCH_TPCB_EVIDENCE=$tpcb_evidence: on or off"
[[ -x $pgbench ]] || die "no pgbench at $pgbench (set PGBENCH)"
command -v psql >/dev/null || die "psql not found"

dsn=$(scripts/pg.sh up | tail -1)
[[ $dsn =~ ^postgres(ql)?://[^@/]*@127\.0\.0\.1:[0-9]+/ ]] || die "the cluster's DSN is not on 127.0.0.1"
export MENTAT_SPEC_PG_DSN=$dsn
# dburl NAME: the DSN pointing at database NAME.
dburl() { sed -E "s#^(postgres(ql)?://[^/]+)/[^?]*#\1/$1#" <<<"$dsn"; }
psqlq() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mentat-bench-native.XXXXXX")
copy_db=mentat_bench_copy_$$
engine_var=mentat_bench_engine_$$ # the spec appends _<scale>
engine_db=${engine_var}_$scale
ycsb_var=mentat_bench_ycsb_$$
ycsb_db=${ycsb_var}_$yscale
tpcb_var=mentat_bench_tpcb_$$
tpcb_db=${tpcb_var}_s1
cleanup() {
	local db
	for db in "$copy_db" "$engine_db" "$ycsb_db" "$tpcb_db"; do
		psqlq -d "$dsn" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

log() { echo "== $*" >&2; }

# median: the middle of the numbers on stdin.
median() { { grep -E '^[0-9.eE+-]*[0-9]$' || true; } | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }
# pratio A B: the median over rounds of A's figure over B's in the same
# round (files of one figure per round), to two decimals.
pratio() {
	paste -d' ' "$tmp/$1" "$tmp/$2" | awk 'NF == 2 && $1 + 0 > 0 && $2 + 0 > 0 {print $1 / $2}' | median |
		awk '{printf "%.2f", $1} END {if (!NR) print "-"}'
}
# csvcol FILE COLUMN [FILTER-COLUMN VALUE]...: the COLUMN values of FILE's rows.
csvcol() {
	local file=$1 col=$2
	shift 2
	awk -F, -v col="$col" -v filt="$*" '
		NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; n = split(filt, f, " "); next }
		{ ok = 1; for (i = 1; i + 1 <= n; i += 2) if ($(idx[f[i]]) != f[i + 1]) ok = 0; if (ok) print $(idx[col]) }' "$file"
}
fmt() { awk -v x="$1" 'BEGIN {if (x == "") print "-"; else printf "%.0f", x}'; }

log "building $bin"
make --no-print-directory -s build

gen=$tmp/gen
datoms=0
if [[ $parts != tpcb ]]; then
	log "mentat-spec gen, scale $scale"
	$bin gen "$spec" -scale "$scale" -o "$gen" >&2
	datoms=$(cat "$gen"/datoms-*.csv | wc -l)
	log "$datoms datoms"
fi

# --- PostgreSQL load: psql \copy and the engine, in turns -------------------
# Loads alone: a store without its after-load SQL has no current-state
# tables, so no check of point_lookup could pass; write_state has none,
# and -phase load runs no point.
load_only=()
[[ $parts == loads ]] && load_only=(scripts/bench-native/load_only_override.hcl -var 'scenarios=["write_state"]')
apply_load() { # BACKEND OUTDIR [PG-BATCH-ROWS]: the engine's bulk load into a fresh store
	$bin apply "$spec" ${load_only[@]+"${load_only[@]}"} -var "scales=[\"$scale\"]" -var "backends=[\"$1\"]" -var "pg_database=$engine_var" \
		-var "pg_batch_rows=${3:-10000}" -var "data_dir=$tmp/data" -phase load -reload -q -o "$2" >&2 ||
		die "apply -phase load on $1 failed (see $2)"
	csvcol "$2/loads.csv" datoms_per_s
}
copy_load() { # psql \copy of the gen files into a fresh database; prints datoms/s
	psqlq -d "$dsn" -c "DROP DATABASE IF EXISTS $copy_db" -c "CREATE DATABASE $copy_db"
	psqlq -d "$(dburl "$copy_db")" -f specs/mentat/postgres/schema.sql
	local args=(-c "\\copy attrs FROM '$gen/schema.csv' (FORMAT csv, HEADER true)") f t0 t1
	for f in "$gen"/datoms-text-*.csv; do args+=(-c "\\copy log_text FROM '$f' (FORMAT csv)"); done
	for f in "$gen"/datoms-int-*.csv; do args+=(-c "\\copy log_int FROM '$f' (FORMAT csv)"); done
	for f in "$gen"/datoms-real-*.csv; do args+=(-c "\\copy log_real FROM '$f' (FORMAT csv)"); done
	t0=$(date +%s.%N)
	psqlq -d "$(dburl "$copy_db")" "${args[@]}"
	t1=$(date +%s.%N)
	psqlq -d "$dsn" -c "DROP DATABASE $copy_db"
	awk -v n="$datoms" -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f\n", n / (b - a)}'
}
# The engine as the quickstart loads (10,000 rows per transaction), and
# with one transaction per job as \copy has one per file; the last load
# (quickstart settings) is the database q1 runs on.
: >"$tmp/pg-copy" && : >"$tmp/pg-engine" && : >"$tmp/pg-engine-1tx"
if ((!full && (do_q1 || do_writes))); then
	log "PostgreSQL load (for $parts only)"
	apply_load postgres "$tmp/results/pg-load-1" >>"$tmp/pg-engine"
fi
for ((r = 1; r <= rounds && full; r++)); do
	log "PostgreSQL load, round $r of $rounds"
	if ((r % 2)); then
		copy_load >>"$tmp/pg-copy"
		apply_load postgres "$tmp/results/pg-load-1tx-$r" 100000000 >>"$tmp/pg-engine-1tx"
		apply_load postgres "$tmp/results/pg-load-$r" >>"$tmp/pg-engine"
	else
		apply_load postgres "$tmp/results/pg-load-1tx-$r" 100000000 >>"$tmp/pg-engine-1tx"
		copy_load >>"$tmp/pg-copy"
		apply_load postgres "$tmp/results/pg-load-$r" >>"$tmp/pg-engine"
	fi
done

# Loads alone keep no store past its measure: at l the stores of one
# round (PostgreSQL's, SQLite's, DuckDB's, the Go benchmarks') and the
# gen files would not fit the disk together.
if [[ $parts == loads ]]; then
	psqlq -d "$dsn" -c "DROP DATABASE IF EXISTS $engine_db WITH (FORCE)" >/dev/null
fi
drop_files() { [[ $parts == loads ]] && rm -rf "$tmp/data"; return 0; }

# --- SQLite and DuckDB loads ------------------------------------------------
: >"$tmp/sqlite-engine" && : >"$tmp/duckdb-engine" && : >"$tmp/gobench.txt"
for ((r = 1; r <= rounds && full; r++)); do
	log "SQLite and DuckDB apply -phase load, round $r of $rounds"
	apply_load sqlite "$tmp/results/sqlite-load-$r" >>"$tmp/sqlite-engine"
	drop_files
	apply_load duckdb "$tmp/results/duckdb-load-$r" >>"$tmp/duckdb-engine"
	drop_files
done
if ((full)); then
	log "Go benchmarks: engine vs go-sqlite3 loops and DuckDB COPY ($rounds interleaved rounds)"
	MENTAT_SPEC_BENCH_SCALE=$scale MENTAT_SPEC_BENCH_GEN_DIR=$gen GOGC=${BENCH_LOAD_GOGC:-100} \
		go test -run '^$' -bench 'Load(SQLite|DuckDB)$' -benchtime "${rounds}x" -timeout 30m ./engine/runner/ >"$tmp/gobench.txt" ||
		die "go test failed: $(tail -20 "$tmp/gobench.txt")"
fi
# gomet BENCHMARK METRIC [FACTOR]: a metric of the Go benchmark output
# times FACTOR (default 1e6: Mdatoms/s to datoms/s).
gomet() {
	awk -v b="^$1-" -v m="$2" -v f="${3:-1e6}" '$1 ~ b {for (i = 2; i < NF; i++) if ($(i + 1) == m) print $i * f}' "$tmp/gobench.txt" | head -1
}
r2() { awk -v x="$1" 'BEGIN {if (x == "") print "-"; else printf "%.2f", x}'; }

# --- q1 on PostgreSQL: pgbench and the engine, in turns ---------------------
url=$(dburl "$engine_db")
users=0
if ((do_q1 || do_writes)); then
	users=$(psql -X -At -d "$url" -c "SELECT count(*) FROM cur_text WHERE a = (SELECT a FROM attrs WHERE ident = 'user/email')")
	[[ $users =~ ^[1-9][0-9]*$ ]] || die "no users in $engine_db"
fi
# The engine's q1 with :email drawn as the engine draws it: a uniformly
# random user's seq("user%d@example.com") email.
{
	echo "\\set uid random(0, $((users - 1)))"
	sed "s/:email/('user' || :uid || '@example.com')/" specs/mentat/sql/q1.sql
	echo ";"
} >"$tmp/q1.pgbench"
# The client's CPU per query: for pgbench, its process's user + system time
# (/usr/bin/time) over the transactions it reports, start-up and
# connections included (under the clock's 10 ms resolution over a 5 s
# run); for the engine, client_cpu_us of precision.csv: the process's CPU
# during the measured window over its calls (the runtime, the controller
# and GC included; start-up, truth and checks are outside the window).
timed() { /usr/bin/time -f '%U %S' -o "$tmp/time" "$@"; }
cpu_s() { awk '{print $1 + $2}' "$tmp/time"; }
pgbench_run() { # MODE CLIENTS [SCRIPT URL [ARG...]]: "tps cpu-µs/query"
	local mode=$1 c=$2 script=${3:-$tmp/q1.pgbench} db=${4:-$url}
	shift $(($# < 4 ? $# : 4))
	local sel=(-f "$script")
	[[ $script == builtin:* ]] && sel=(-b "${script#builtin:}")
	timed "$pgbench" -n -M "$mode" -c "$c" -j "$c" -T "$secs" "$@" "${sel[@]}" "$db" >"$tmp/pgbench.out" 2>"$tmp/pgbench.err" ||
		die "pgbench -M $mode -c $c -f ${script##*/} failed: $(tail -3 "$tmp/pgbench.err")"
	awk -v cpu="$(cpu_s)" '/^number of transactions actually processed: / {n = $6} /^tps = / {tps = $3}
		END {if (n > 0) printf "%s %.1f\n", tps, cpu * 1e6 / n}' "$tmp/pgbench.out"
}
engine_run() { # PROTOCOL IO CLIENTS SECONDS OUTDIR: "ops/s cpu-µs/query"
	$bin apply "$spec" -var "scales=[\"$scale\"]" -var 'backends=["postgres"]' -var "pg_database=$engine_var" \
		-var "protocol=$1" -var "io=$2" -var "clients=[$3]" -var "min_s=$4" -var "data_dir=$tmp/data" \
		-phase bench -q -o "$5" >&2 || die "apply -phase bench ($1, io=$2, $3 clients) failed (see $5)"
	paste -d' ' <(csvcol "$5/timings.csv" throughput_ops_s scenario point_lookup op read) \
		<(csvcol "$5/precision.csv" client_cpu_us scenario point_lookup op read)
}
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (the time package)"
variants="pgbench-prepared pgbench-simple engine-extended engine-simple engine-auto"
for c in $clients; do for v in $variants; do : >"$tmp/$v-$c" && : >"$tmp/$v-cpu-$c"; done; done
for ((r = 1; r <= rounds && do_q1; r++)); do
	log "q1 on PostgreSQL, round $r of $rounds (${secs}s per run)"
	for mode in prepared simple auto; do
		case $mode in
		prepared) proto=extended io=raw name=extended ;;
		simple) proto=simple io=raw name=simple ;;
		auto) proto=extended io=auto name=auto ;;
		esac
		for c in $clients; do
			# pgbench first in odd rounds, the engine first in even ones:
			# neither always runs on the server the other just warmed.
			for who in $( ((r % 2)) && echo pgbench engine || echo engine pgbench); do
				if [[ $who == pgbench && $mode != auto ]]; then
					read -r ops cpu < <(pgbench_run "$mode" "$c")
					echo "$ops" >>"$tmp/pgbench-$mode-$c" && echo "$cpu" >>"$tmp/pgbench-$mode-cpu-$c"
				elif [[ $who == engine ]]; then
					read -r ops cpu < <(engine_run "$proto" "$io" "$c" "$secs" "$tmp/results/q1-$name-$c-$r")
					echo "$ops" >>"$tmp/engine-$name-$c"
					echo "${cpu:--}" >>"$tmp/engine-$name-cpu-$c" # "-": one line a round, for pratio
				fi
			done
		done
	done
done

# --- writes on PostgreSQL: pgbench -f and the engine, in turns ---------------
sqlv() { psql -X -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
wnames=${BENCH_WRITES:-update write_state}
write_io=${BENCH_WRITE_IO:-raw}
wvariants="pgbench-prepared pgbench-simple engine-extended engine-simple"
for w in $wnames; do for c in $writers; do for v in $wvariants; do
	: >"$tmp/w-$w-$v-$c" && : >"$tmp/w-$w-$v-cpu-$c" && : >"$tmp/w-$w-$v-err-$c"
done; done; done
if ((do_writes)); then
	log "YCSB load, scale $yscale"
	$bin apply "$yspec" -var "scales=[\"$yscale\"]" -var "pg_database=$ycsb_var" -phase load -reload -q \
		-o "$tmp/results/ycsb-load" >&2 || die "apply -phase load of $yspec failed (see $tmp/results/ycsb-load)"
	yurl=$(dburl "$ycsb_db")
	IFS='|' read -r ye0 ye1 yn < <(sqlv "$yurl" "SELECT min(e), max(e), count(*) FROM cur_text WHERE a = (SELECT a FROM attrs WHERE ident = 'ycsb/key')")
	IFS='|' read -r ya0 ya1 yna < <(sqlv "$yurl" "SELECT min(a), max(a), count(*) FROM attrs WHERE ident LIKE 'ycsb/field%'")
	ytx=$(sqlv "$yurl" "SELECT max(tx) FROM log_text")
	((yn > 0 && ye1 - ye0 + 1 == yn && yna == 10 && ya1 - ya0 + 1 == yna)) ||
		die "$ycsb_db: records $ye0..$ye1 ($yn), fields $ya0..$ya1 ($yna): not contiguous ids"
	IFS='|' read -r ie0 ie1 isn sa < <(sqlv "$url" "SELECT min(e), max(e), count(*), min(a) FROM cur_text WHERE a = (SELECT a FROM attrs WHERE ident = 'issue/state')")
	itx=$(sqlv "$url" "SELECT max(tx) FROM log_text")
	((isn > 0 && ie1 - ie0 + 1 == isn)) || die "$engine_db: issues $ie0..$ie1 ($isn): not contiguous ids"
	# The same statements between BEGIN and END, with the parameters drawn
	# as the header says.
	{
		echo "\\set e random($ye0, $ye1)"
		echo "\\set a random($ya0, $ya1)"
		echo "\\set tx random($((ytx + 1)), 4000000000000000000)"
		echo "BEGIN;"
		sed '/^--/d' examples/ycsb/postgres/update.sql
		echo "END;"
	} >"$tmp/update.pgbench"
	# write_state as the engine draws it (see the header): the state by
	# its weights, one copy of the statements per state, and the tx ids
	# rising across the writers (pgbench keeps a client's variables from
	# one transaction to the next; -D sets i = 0 and nc = the writers).
	# The weights below are the dataset's: a change there must change them too.
	awk '/^  write "state_change"/,/^  }/' specs/mentat/dataset.hcl |
		grep -qF 'value  = weighted({ open = 4, closed = 4, in_progress = 2 })' ||
		die "specs/mentat/dataset.hcl: write \"state_change\" no longer draws open 4, closed 4, in_progress 2; update pgbench's write_state script here to match"
	wbody=$(sed '/^--/d' specs/mentat/sql/write_state.sql)
	{
		echo "\\set e random_zipfian($ie0, $ie1, 1.1)"
		echo "\\set a $sa"
		echo "\\set tx $((itx + 1)) + :i * :nc + :client_id"
		echo "\\set i :i + 1"
		echo "\\set r random(1, 10)"
		echo "BEGIN;"
		echo "\\if :r <= 4"
		echo "${wbody//:v/\'open\'}"
		echo "\\elif :r <= 8"
		echo "${wbody//:v/\'closed\'}"
		echo "\\else"
		echo "${wbody//:v/\'in_progress\'}"
		echo "\\endif"
		echo "END;"
	} >"$tmp/write_state.pgbench"
	yvalue=$(printf '%100s' '' | tr ' ' x)
	for db in "$ycsb_db" "$engine_db"; do
		sqlv "$dsn" "ALTER DATABASE $db SET synchronous_commit = $sync_commit" >/dev/null
	done
fi
# wsetup WRITE: the untimed start of a write run: the log rows the last
# runs wrote deleted and the update's rows back at their loaded tx (see
# the header); both tables vacuumed, so that no run walks the dead row
# versions and the grown log of the runs before it (without this the
# rates fell by half over five rounds, both clients alike); the engine's
# mark of a store written after its load cleared (apply -phase bench
# refuses such a store, for the truth its checks compare with; these
# scenarios have no checks, and a reload per run would cost more than the
# runs); and a checkpoint, so that no run has the last one's dirty pages
# to write.
wsetup() {
	local db=$url tx=$itx
	[[ $1 == update ]] && db=$yurl tx=$ytx
	sqlv "$db" "DELETE FROM log_text WHERE tx > $tx" >/dev/null
	[[ $1 == update ]] && sqlv "$db" "UPDATE cur_text SET tx = $tx WHERE tx > $tx" >/dev/null
	sqlv "$db" "DELETE FROM mentat_spec_meta WHERE k = 'written'" >/dev/null
	sqlv "$db" "VACUUM (ANALYZE) log_text, cur_text" >/dev/null
	sqlv "$db" CHECKPOINT >/dev/null
}
engine_wrun() { # WRITE PROTOCOL WRITERS OUTDIR: "tx/s cpu-µs/tx errors"
	local op
	if [[ $1 == update ]]; then
		op=update
		$bin apply "$yspec" -var "scales=[\"$yscale\"]" -var "pg_database=$ycsb_var" -var "protocol=$2" \
			-var "io=$write_io" -var "clients=[$3]" -var "min_s=$secs" -phase bench -q -o "$4" >&2 ||
			die "apply -phase bench of $yspec ($2, $3 writers) failed (see $4)"
	else
		op=state_change
		$bin apply "$spec" -var "scales=[\"$scale\"]" -var 'backends=["postgres"]' -var "pg_database=$engine_var" \
			-var 'scenarios=["write_state"]' -var "protocol=$2" -var "io=$write_io" -var "clients=[$3]" -var "min_s=$secs" \
			-var "data_dir=$tmp/data" -phase bench -q -o "$4" >&2 ||
			die "apply -phase bench write_state ($2, $3 writers) failed (see $4)"
	fi
	paste -d' ' <(csvcol "$4/timings.csv" throughput_ops_s op "$op") <(csvcol "$4/precision.csv" client_cpu_us op "$op") \
		<(csvcol "$4/timings.csv" errors op "$op")
}
for ((r = 1; r <= rounds && do_writes; r++)); do
	log "writes on PostgreSQL, round $r of $rounds (${secs}s per run)"
	for mode in prepared simple; do
		[[ $mode == prepared ]] && name=extended || name=simple
		for w in $wnames; do
			if [[ $w == update ]]; then wurl=$yurl v=$yvalue; else wurl=$url; fi
			for c in $writers; do
				for who in $( ((r % 2)) && echo pgbench engine || echo engine pgbench); do
					wsetup "$w"
					if [[ $who == pgbench ]]; then
						# -M simple puts a variable's text into the statement as it is.
						if [[ $w == update ]]; then
							[[ $mode == simple ]] && pv="'$v'" || pv=$v
							pargs=(-D "v=$pv")
						else
							pargs=(-D i=0 -D "nc=$c")
						fi
						read -r ops cpu < <(pgbench_run "$mode" "$c" "$tmp/$w.pgbench" "$wurl" "${pargs[@]}")
						echo "$ops" >>"$tmp/w-$w-pgbench-$mode-$c" && echo "$cpu" >>"$tmp/w-$w-pgbench-$mode-cpu-$c"
					else
						read -r ops cpu errs < <(engine_wrun "$w" "$name" "$c" "$tmp/results/$w-$name-$c-$r")
						echo "$ops" >>"$tmp/w-$w-engine-$name-$c"
						echo "${cpu:--}" >>"$tmp/w-$w-engine-$name-cpu-$c"
						echo "${errs:--}" >>"$tmp/w-$w-engine-$name-err-$c"
					fi
				done
			done
		done
	done
done

# --- tpcb-like on pgbench's tables: pgbench -b tpcb-like and the engine ------
# One load of examples/tpcb into pgbench's layout at pgbench's scale 1
# (100,000 accounts, 10 tellers, 1 branch), then runs in turns as the
# writes above, each from the loaded state (tsetup).
tspec=(examples/tpcb examples/tpcb/pgbench)
tspec_run=("${tspec[@]}")
[[ $tpcb_evidence == off ]] && tspec_run+=(scripts/bench-native/evidence_off_override.hcl)
turl=$(dburl "$tpcb_db")
for c in $writers; do for v in $wvariants; do
	: >"$tmp/t-$v-$c" && : >"$tmp/t-$v-cpu-$c" && : >"$tmp/t-$v-err-$c"
done; done
: >"$tmp/t-conservation"
if ((do_tpcb)); then
	log "tpcb load into pgbench's tables (examples/tpcb/pgbench)"
	$bin apply "${tspec[@]}" -var "pgbench_database=$tpcb_var" -data "$tmp/data" -phase load -reload -q \
		-o "$tmp/results/tpcb-load" >&2 || die "apply -phase load of examples/tpcb/pgbench failed (see $tmp/results/tpcb-load)"
	tn=$(sqlv "$turl" "SELECT (SELECT count(*) FROM pgbench_accounts) || ' ' || (SELECT count(*) FROM pgbench_tellers) || ' ' || (SELECT count(*) FROM pgbench_branches)")
	[[ $tn == "100000 10 1" ]] || die "$tpcb_db: accounts, tellers, branches $tn, want pgbench -s 1's 100000 10 1"
	sqlv "$dsn" "ALTER DATABASE $tpcb_db SET synchronous_commit = $sync_commit" >/dev/null
fi
# tsetup: the tables back at the loaded state (as pgbench -i leaves them:
# every balance 0, no history), the engine's mark of a written store
# cleared (its checks compare with the truth from that state), vacuumed
# and checkpointed as wsetup does.
tsetup() {
	sqlv "$turl" "UPDATE pgbench_accounts SET abalance = 0 WHERE abalance <> 0" >/dev/null
	sqlv "$turl" "UPDATE pgbench_tellers SET tbalance = 0 WHERE tbalance <> 0" >/dev/null
	sqlv "$turl" "UPDATE pgbench_branches SET bbalance = 0 WHERE bbalance <> 0" >/dev/null
	sqlv "$turl" "TRUNCATE pgbench_history" >/dev/null
	sqlv "$turl" "DELETE FROM mentat_spec_meta WHERE k = 'written'" >/dev/null
	sqlv "$turl" "VACUUM (ANALYZE) pgbench_accounts, pgbench_tellers, pgbench_branches, pgbench_history" >/dev/null
	sqlv "$turl" CHECKPOINT >/dev/null
}
# The engine's tpcb_like: its checks run after the point (not during it,
# as pgbench has no such reader) and must PASS, or apply exits 1.
engine_trun() { # PROTOCOL WRITERS OUTDIR: "tx/s cpu-µs/tx errors"
	$bin apply "${tspec_run[@]}" -var "pgbench_database=$tpcb_var" -var "protocol=$1" -var "clients=[$2]" \
		-var "min_s=$secs" -var calls=1 -var conservation_during_ms=0 -data "$tmp/data" -phase bench -q -o "$3" >&2 ||
		die "apply -phase bench of examples/tpcb/pgbench ($1, $2 writers) failed or a check failed (see $3)"
	paste -d' ' <(csvcol "$3/timings.csv" throughput_ops_s op tpcb) <(csvcol "$3/precision.csv" client_cpu_us op tpcb) \
		<(csvcol "$3/timings.csv" errors op tpcb)
}
for ((r = 1; r <= rounds && do_tpcb; r++)); do
	log "tpcb-like on pgbench's tables, round $r of $rounds (${secs}s per run)"
	for mode in prepared simple; do
		[[ $mode == prepared ]] && name=extended || name=simple
		for c in $writers; do
			for who in $( ((r % 2)) && echo pgbench engine || echo engine pgbench); do
				tsetup
				if [[ $who == pgbench ]]; then
					read -r ops cpu < <(pgbench_run "$mode" "$c" builtin:tpcb-like "$turl")
					echo "$ops" >>"$tmp/t-pgbench-$mode-$c" && echo "$cpu" >>"$tmp/t-pgbench-$mode-cpu-$c"
					# The engine's conservation query on what pgbench left.
					got=$(psql -X -At -F' ' -v ON_ERROR_STOP=1 -d "$turl" -f examples/tpcb/pgbench/conservation.sql)
					echo "$got" >>"$tmp/t-conservation"
					[[ $got == "0 0 0" ]] || die "conservation after pgbench -b tpcb-like -M $mode -c $c: $got, want 0 0 0"
				else
					read -r ops cpu errs < <(engine_trun "$name" "$c" "$tmp/results/tpcb-$name-$c-$r")
					echo "$ops" >>"$tmp/t-engine-$name-$c"
					echo "${cpu:--}" >>"$tmp/t-engine-$name-cpu-$c"
					echo "${errs:--}" >>"$tmp/t-engine-$name-err-$c"
				fi
			done
		done
	done
done

# --- the table ---------------------------------------------------------------
m() { median <"$tmp/$1"; }
pg_engine=$(m pg-engine) pg_engine1=$(m pg-engine-1tx) pg_copy=$(m pg-copy)
sq_apply=$(m sqlite-engine) dk_apply=$(m duckdb-engine)
sq_engine=$(gomet BenchmarkLoadSQLite engine-Mdatoms/s) sq_dbsql=$(gomet BenchmarkLoadSQLite database_sql-Mdatoms/s)
sq_drv=$(gomet BenchmarkLoadSQLite go-sqlite3-Mdatoms/s)
dk_engine=$(gomet BenchmarkLoadDuckDB engine-Mdatoms/s) dk_copy=$(gomet BenchmarkLoadDuckDB copy-Mdatoms/s)
# A run of parts that load no dataset (tpcb alone) names no scale.
what="scale $scale ($datoms datoms)"
((datoms > 0)) || what="BENCH_PARTS=$parts"
cat <<EOF

engine vs native, $what, medians of $rounds rounds, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)
EOF
((full)) && cat <<EOF

Bulk load, datoms/s, medians; engine/native is the median of the per-round ratios (engine: bulkLoad's
time as loads.csv reports it; "Go bench": BenchmarkLoadSQLite/DuckDB, variants interleaved, whose ratios these are)
| backend | engine (apply -phase load) | engine (Go bench) | native | native datoms/s | engine/native |
| --- | ---: | ---: | --- | ---: | ---: |
| PostgreSQL | $(fmt "$pg_engine") | | psql \\copy of the CSV files | $(fmt "$pg_copy") | $(pratio pg-engine pg-copy) |
| PostgreSQL, one transaction per job | $(fmt "$pg_engine1") | | psql \\copy of the CSV files | $(fmt "$pg_copy") | $(pratio pg-engine-1tx pg-copy) |
| SQLite | $(fmt "$sq_apply") | $(fmt "$sq_engine") | database/sql prepared INSERT, 10k rows/tx | $(fmt "$sq_dbsql") | $(r2 "$(gomet BenchmarkLoadSQLite engine/database_sql 1)") |
| SQLite | | | go-sqlite3 driver stmt, 1 row per INSERT | $(fmt "$sq_drv") | $(r2 "$(gomet BenchmarkLoadSQLite engine/go-sqlite3 1)") |
| DuckDB | $(fmt "$dk_apply") | $(fmt "$dk_engine") | COPY FROM the CSV files (+ CHECKPOINT, both) | $(fmt "$dk_copy") | $(r2 "$(gomet BenchmarkLoadDuckDB engine/copy 1)") |
EOF
c1() { awk -v x="$1" 'BEGIN {if (x == "") print "-"; else printf "%.1f", x}'; }
((do_q1)) && cat <<EOF

q1 point lookup on PostgreSQL, ops/s, medians; ratios are medians of per-round ratios (engine: point_lookup through
apply, extended protocol and the driver's default io as the quickstart, or as noted; pgbench: the same SELECT,
a random user's email, -j = -c); CPU: the client's µs of CPU per query, medians (engine: the apply process,
its fixed start-up cost left out)
| clients | engine, extended | CPU | pgbench -M prepared | CPU | ratio | engine, extended, io=auto | CPU | ratio | engine, simple | CPU | pgbench -M simple | CPU | ratio |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
EOF
for c in $clients; do
	((do_q1)) || break
	ee=$(m "engine-extended-$c") pp=$(m "pgbench-prepared-$c") ea=$(m "engine-auto-$c")
	es=$(m "engine-simple-$c") ps=$(m "pgbench-simple-$c")
	echo "| $c | $(fmt "$ee") | $(c1 "$(m "engine-extended-cpu-$c")") | $(fmt "$pp") | $(c1 "$(m "pgbench-prepared-cpu-$c")") |" \
		"$(pratio "engine-extended-$c" "pgbench-prepared-$c") | $(fmt "$ea") | $(c1 "$(m "engine-auto-cpu-$c")") |" \
		"$(pratio "engine-auto-$c" "pgbench-prepared-$c") | $(fmt "$es") | $(c1 "$(m "engine-simple-cpu-$c")") | $(fmt "$ps") |" \
		"$(c1 "$(m "pgbench-simple-cpu-$c")") | $(pratio "engine-simple-$c" "pgbench-simple-$c") |"
done
# The CPU columns above are medians of each client's own rounds; the
# per-round pairs below compare the two on the same server state, as the
# ops/s ratios do.
((do_q1)) && cat <<EOF

Client CPU per query, engine / pgbench, medians of per-round ratios (below 1: the engine spends less)
| clients | extended / -M prepared | simple / -M simple |
| ---: | ---: | ---: |
EOF
for c in $clients; do
	((do_q1)) || break
	echo "| $c | $(pratio "engine-extended-cpu-$c" "pgbench-prepared-cpu-$c") | $(pratio "engine-simple-cpu-$c" "pgbench-simple-cpu-$c") |"
done
((do_writes)) && cat <<EOF

Writes on PostgreSQL, transactions/s, medians; ratio and paired CPU are medians of per-round ratios (engine: a
stream of one write operation, BEGIN, the statements and COMMIT per call, no retry; pgbench -f: the same statements
between BEGIN and END, -j = -c). update: YCSB workload A's (examples/ycsb/postgres/update.sql, scale $yscale);
write_state: write_mixed's (specs/mentat/sql/write_state.sql, scale $scale). synchronous_commit $sync_commit. The engine's io: $write_io.
CPU: the client's µs per transaction
| transaction | writers | engine, extended | CPU | pgbench -M prepared | CPU | ratio | paired CPU | engine, simple | CPU | pgbench -M simple | CPU | ratio | paired CPU | engine errors |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
EOF
for w in $wnames; do
	((do_writes)) || break
	for c in $writers; do
		row="| $w | $c"
		for mode in prepared simple; do
			[[ $mode == prepared ]] && name=extended || name=simple
			e=w-$w-engine-$name p=w-$w-pgbench-$mode
			row+=" | $(fmt "$(m "$e-$c")") | $(c1 "$(m "$e-cpu-$c")") | $(fmt "$(m "$p-$c")") | $(c1 "$(m "$p-cpu-$c")")"
			row+=" | $(pratio "$e-$c" "$p-$c") | $(pratio "$e-cpu-$c" "$p-cpu-$c")"
		done
		errs=$(cat "$tmp/w-$w-engine-extended-err-$c" "$tmp/w-$w-engine-simple-err-$c" | awk '{n += $1} END {print n + 0}')
		echo "$row | $errs |"
	done
done
((do_tpcb)) && cat <<EOF

tpcb-like on pgbench's tables (examples/tpcb/pgbench: pgbench_accounts, _tellers, _branches, _history as pgbench -i -s 1
creates them, loaded by the engine through a statement), transactions/s, medians as above (engine: tpcb_like, BEGIN,
pgbench's five statements, COMMIT per call, its checks PASS after each point; pgbench -b tpcb-like, -j = -c). Each run
starts from zero balances and an empty history. Conservation after pgbench: the engine's conservation query on the
tables each pgbench run left, $(grep -c '^0 0 0$' "$tmp/t-conservation") of $(wc -l <"$tmp/t-conservation") runs held.
synchronous_commit $sync_commit; the engine's evidence $tpcb_evidence (BENCH_TPCB_EVIDENCE)
| clients | engine, extended | CPU | pgbench -b tpcb-like -M prepared | CPU | ratio | paired CPU | engine, simple | CPU | pgbench -M simple | CPU | ratio | paired CPU | engine errors |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
EOF
for c in $writers; do
	((do_tpcb)) || break
	row="| $c"
	for mode in prepared simple; do
		[[ $mode == prepared ]] && name=extended || name=simple
		e=t-engine-$name p=t-pgbench-$mode
		row+=" | $(fmt "$(m "$e-$c")") | $(c1 "$(m "$e-cpu-$c")") | $(fmt "$(m "$p-$c")") | $(c1 "$(m "$p-cpu-$c")")"
		row+=" | $(pratio "$e-$c" "$p-$c") | $(pratio "$e-cpu-$c" "$p-cpu-$c")"
	done
	errs=$(cat "$tmp/t-engine-extended-err-$c" "$tmp/t-engine-simple-err-$c" | awk '{n += $1} END {print n + 0}')
	echo "$row | $errs |"
done
echo
echo "Per round: $(for f in pg-engine pg-engine-1tx pg-copy sqlite-engine duckdb-engine; do printf '%s=%s ' "$f" "$(paste -sd/ "$tmp/$f")"; done)"
for c in $clients; do
	((do_q1)) || break
	echo "  clients $c: $(for v in $variants; do printf '%s=%s cpu=%s ' "$v" "$(paste -sd/ "$tmp/$v-$c")" "$(paste -sd/ "$tmp/$v-cpu-$c")"; done)"
done
for w in $wnames; do
	((do_writes)) || break
	for c in $writers; do
		echo "  $w, $c writers: $(for v in $wvariants; do printf '%s=%s cpu=%s ' "$v" "$(paste -sd/ "$tmp/w-$w-$v-$c")" "$(paste -sd/ "$tmp/w-$w-$v-cpu-$c")"; done)"
	done
done
for c in $writers; do
	((do_tpcb)) || break
	echo "  tpcb-like, $c writers: $(for v in $wvariants; do printf '%s=%s cpu=%s ' "$v" "$(paste -sd/ "$tmp/t-$v-$c")" "$(paste -sd/ "$tmp/t-$v-cpu-$c")"; done)"
done
