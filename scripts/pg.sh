#!/usr/bin/env bash
# pg.sh: a throwaway PostgreSQL cluster for mentat-spec benchmarks and tests.
#
#   scripts/pg.sh up      start the cluster (reuses a running one), print the DSN
#   scripts/pg.sh dsn     print the DSN of the running cluster
#   scripts/pg.sh status  say whether it runs (exit 0) or not (exit 3)
#   scripts/pg.sh restart restart the server (cold caches for cold_vs_warm)
#   scripts/pg.sh down    stop the cluster and delete its directory
#
# The cluster lives in $MENTAT_SPEC_PG_DIR (default: <repo>/.pg): data/ is the
# data directory (also holding the unix socket), port the TCP port,
# postgres.log what the server printed while starting, and data/log/
# postgresql.log the server's log (its logging collector writes it, and a
# run copies the lines logged during each cell into its logs/). It listens
# on 127.0.0.1 only, on a free port, with trust authentication: never point
# it at data you care about.
#
# Environment:
#   MENTAT_SPEC_PG_DIR            cluster directory (default <repo>/.pg)
#   MENTAT_SPEC_PG_BIN            PostgreSQL bin directory (default: the newest
#                                 /usr/lib/postgresql/*/bin, else pg_config --bindir)
#   MENTAT_SPEC_PG_PORT           port to use instead of a free one
#   MENTAT_SPEC_PG_SHARED_BUFFERS shared_buffers (default 25% of RAM, 128MB..8GB)
#   MENTAT_SPEC_PG_MAX_WAL_SIZE   max_wal_size (default 4GB: the WAL a load
#                                 keeps between checkpoints is disk the store
#                                 at scale l needs too)
#   MENTAT_SPEC_PG_PRELOAD        shared_preload_libraries of a new cluster
#                                 (default: pg_stat_statements when the server
#                                 has it, so runs keep statement statistics per
#                                 point; set it empty for none); with it,
#                                 pg_stat_statements.track_planning is on, so
#                                 the evidence splits planning from execution
#
# Run as root, the server runs as the `postgres` user (initdb refuses root);
# run as anyone else, it runs as that user.
set -euo pipefail

die() {
	echo "pg.sh: $*" >&2
	exit 1
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/.." && pwd)
base=${MENTAT_SPEC_PG_DIR:-$repo/.pg}
# As root the server runs as postgres, which cannot enter a checkout under
# a private home directory (/root is 0700): use a directory under /tmp
# named after the checkout instead.
if [[ -z ${MENTAT_SPEC_PG_DIR:-} && $(id -u) -eq 0 ]] && id -u postgres >/dev/null 2>&1 &&
	command -v runuser >/dev/null 2>&1 && ! runuser -u postgres -- test -x "$repo" 2>/dev/null; then
	base=${TMPDIR:-/tmp}/mentat-spec-pg-$(printf '%s' "$repo" | cksum | cut -d' ' -f1)
fi
data=$base/data
portfile=$base/port
logfile=$base/postgres.log
marker=$base/.mentat-spec-pg # proves to `down` that the directory is ours

find_bin() {
	local d
	if [[ -n ${MENTAT_SPEC_PG_BIN:-} ]]; then
		[[ -x $MENTAT_SPEC_PG_BIN/postgres ]] ||
			die "MENTAT_SPEC_PG_BIN=$MENTAT_SPEC_PG_BIN has no postgres binary"
		echo "$MENTAT_SPEC_PG_BIN"
		return
	fi
	# Newest major version first; Debian keeps the server outside $PATH.
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5 -rn); do
		if [[ -x $d/postgres && -x $d/initdb && -x $d/pg_ctl ]]; then
			echo "$d"
			return
		fi
	done
	if command -v pg_config >/dev/null 2>&1; then
		d=$(pg_config --bindir 2>/dev/null || true)
		if [[ -n $d && -x $d/postgres && -x $d/initdb && -x $d/pg_ctl ]]; then
			echo "$d"
			return
		fi
	fi
	die "PostgreSQL server binaries (postgres, initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin or pg_config --bindir; install the PostgreSQL server or set MENTAT_SPEC_PG_BIN"
}

bin=$(find_bin)

# as_owner runs a command as the user owning the cluster.
run_user=
if [[ $(id -u) -eq 0 ]]; then
	run_user=postgres
	if [[ -d $data ]]; then
		run_user=$(stat -c %U "$data")
		if [[ $run_user == root ]]; then
			die "$data is owned by root; PostgreSQL cannot run as root (remove it with: rm -rf $base)"
		fi
	fi
	id -u "$run_user" >/dev/null 2>&1 || die "user '$run_user' does not exist; as root the server runs as 'postgres' (create it, or run pg.sh as a normal user)"
	command -v runuser >/dev/null 2>&1 || die "runuser not found; needed to run PostgreSQL as '$run_user' when invoked as root"
elif [[ -d $data && $(stat -c %u "$data") != "$(id -u)" ]]; then
	die "$data belongs to $(stat -c %U "$data"); run pg.sh as that user or as root"
fi
as_owner() {
	if [[ -n $run_user ]]; then
		runuser -u "$run_user" -- "$@"
	else
		"$@"
	fi
}

dsn_for() { echo "postgres://postgres@127.0.0.1:$1/postgres?sslmode=disable"; }

# running succeeds when the server of $data is up and answers on its port.
running() {
	[[ -f $data/postmaster.pid && -f $portfile ]] || return 1
	as_owner "$bin/pg_ctl" status -D "$data" >/dev/null 2>&1 || return 1
	"$bin/pg_isready" -q -U postgres -d postgres -h 127.0.0.1 -p "$(cat "$portfile")" -t 5 >/dev/null 2>&1
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port asks the kernel for an unused port, else probes random ones.
free_port() {
	local p i
	if command -v python3 >/dev/null 2>&1; then
		p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || true)
		if [[ -n $p ]] && ! port_busy "$p"; then
			echo "$p"
			return
		fi
	fi
	for i in $(seq 1 200); do
		p=$((20000 + RANDOM % 40000))
		if ! port_busy "$p"; then
			echo "$p"
			return
		fi
	done
	die "no free TCP port found on 127.0.0.1"
}

# mem_mb prints the machine's RAM in MiB (cgroup limit if smaller).
mem_mb() {
	local kb lim
	kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null || echo 4194304)
	lim=$(cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || echo max)
	if [[ $lim =~ ^[0-9]+$ ]] && ((lim / 1024 < kb)); then
		kb=$((lim / 1024))
	fi
	echo $((kb / 1024))
}

# preload prints shared_preload_libraries for a new cluster.
preload() {
	local lib
	if [[ -n ${MENTAT_SPEC_PG_PRELOAD+set} ]]; then
		echo "$MENTAT_SPEC_PG_PRELOAD"
		return
	fi
	lib=$("$bin/pg_config" --pkglibdir 2>/dev/null || echo "$bin/../lib")
	if [[ -f $lib/pg_stat_statements.so ]]; then echo pg_stat_statements; fi
}

write_conf() {
	local mb sb ecs mwm sock
	mb=$(mem_mb)
	sb=$((mb / 4))
	if ((sb < 128)); then sb=128; fi
	if ((sb > 8192)); then sb=8192; fi
	ecs=$((mb * 3 / 4))
	mwm=$((mb / 16))
	if ((mwm > 2048)); then mwm=2048; fi
	if ((mwm < 64)); then mwm=64; fi
	sock=$data
	# A unix socket path is limited to 107 bytes; then use TCP only.
	if ((${#data} > 90)); then sock=; fi
	cat >"$data/mentat-spec.conf" <<EOF
# Written by scripts/pg.sh for benchmarks; included from postgresql.conf.
listen_addresses = '127.0.0.1'
unix_socket_directories = '$sock'
# The concurrency sweep goes to 128 clients, plus loaders and the engine.
max_connections = 250
shared_buffers = '${MENTAT_SPEC_PG_SHARED_BUFFERS:-${sb}MB}'
effective_cache_size = '${ecs}MB'
maintenance_work_mem = '${mwm}MB'
work_mem = '16MB'
# Durability stays as shipped: fsync on, synchronous_commit on.
fsync = on
synchronous_commit = on
full_page_writes = on
# Bulk loads: room for WAL so a load at m checkpoints rarely, and bounded so
# the WAL beside a 28 GB store at l leaves the disk room (16GB did not, on
# an 80 GB disk holding every scale's stores).
wal_buffers = '64MB'
max_wal_size = '${MENTAT_SPEC_PG_MAX_WAL_SIZE:-4GB}'
min_wal_size = '1GB'
checkpoint_timeout = '30min'
checkpoint_completion_target = 0.9
# Local SSD storage.
random_page_cost = 1.1
effective_io_concurrency = 200
log_checkpoints = on
log_line_prefix = '%m [%p] %q%u@%d '
# One log file in data/log/, read by runs (pg_current_logfile()).
logging_collector = on
log_directory = 'log'
log_filename = 'postgresql.log'
log_rotation_age = 0
log_rotation_size = 0
shared_preload_libraries = '$(preload)'
# Time of WAL writes and syncs in pg_stat_wal, so a run's evidence can say
# how long a commit's flush took per write (a clock read per WAL write).
track_wal_io_timing = on
EOF
	# Planning time per statement, so a run's evidence splits a call into
	# planning and execution instead of calling planning unknown.
	if [[ ,$(preload), == *,pg_stat_statements,* ]]; then
		echo "pg_stat_statements.track_planning = on" >>"$data/mentat-spec.conf"
	fi
	grep -q "^include_if_exists = 'mentat-spec.conf'" "$data/postgresql.conf" ||
		echo "include_if_exists = 'mentat-spec.conf'" >>"$data/postgresql.conf"
}

init_cluster() {
	local parent
	if [[ -n $run_user ]]; then
		chown "$run_user" "$base"
		# The server user must be able to reach the directory.
		parent=$base
		while [[ $parent != / ]]; do
			parent=$(dirname "$parent")
			runuser -u "$run_user" -- test -x "$parent" ||
				die "user '$run_user' cannot enter $parent; choose another MENTAT_SPEC_PG_DIR or chmod o+x $parent"
		done
	fi
	echo "pg.sh: initdb in $data" >&2
	# C collation compares bytes, as SQLite and DuckDB do, and builds text
	# indexes faster; trust auth because it only listens on loopback.
	as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 \
		--locale=C --no-instructions >"$base/initdb.log" 2>&1 9>&- ||
		die "initdb failed, see $base/initdb.log"
	write_conf
}

start_cluster() {
	local port try
	for try in 1 2 3 4 5; do
		port=${MENTAT_SPEC_PG_PORT:-}
		if [[ -z $port && -f $portfile ]]; then
			port=$(cat "$portfile")
			if port_busy "$port"; then port=; fi
		fi
		if [[ -z $port ]]; then port=$(free_port); fi
		echo "$port" >"$portfile"
		as_owner touch "$logfile" 2>/dev/null || true
		if [[ -n $run_user ]]; then chown "$run_user" "$logfile"; fi
		if as_owner "$bin/pg_ctl" start -D "$data" -l "$logfile" -w -t 120 -o "-p $port" >/dev/null 2>&1 9>&-; then
			break
		fi
		# Another process may have taken the port meanwhile: try another.
		if [[ -n ${MENTAT_SPEC_PG_PORT:-} ]] || ! grep -q "could not bind\|could not create any TCP/IP sockets" "$logfile"; then
			tail -n 20 "$logfile" >&2 || true
			die "the server did not start, see $logfile"
		fi
		rm -f "$portfile"
		if ((try == 5)); then die "the server did not start after 5 ports, see $logfile"; fi
	done
	for try in $(seq 1 60); do
		"$bin/pg_isready" -q -U postgres -d postgres -h 127.0.0.1 -p "$port" && return 0
		sleep 0.5
	done
	die "the server started but is not ready on port $port, see $logfile"
}

# lock serializes concurrent up/down runs (parallel make jobs). It refuses
# a directory that pg.sh did not make, which `down` would delete.
lock() {
	if [[ -d $base && ! -f $marker && -n $(ls -A "$base") ]]; then
		die "$base exists, is not empty and was not made by pg.sh; choose another MENTAT_SPEC_PG_DIR"
	fi
	mkdir -p "$base"
	touch "$marker"
	if command -v flock >/dev/null 2>&1; then
		exec 9>"$base/.lock"
		flock -w 300 9 || die "timed out waiting for another pg.sh on $base"
	fi
}

cmd=${1:-}
case $cmd in
up)
	lock
	if running; then
		echo "pg.sh: reusing the cluster running in $data" >&2
	else
		if [[ ! -f $data/PG_VERSION ]]; then
			if [[ -e $data ]]; then die "$data exists but is not a cluster; remove it or run: $0 down"; fi
			init_cluster
		fi
		start_cluster
		echo "pg.sh: started $($bin/postgres --version) in $data" >&2
	fi
	dsn_for "$(cat "$portfile")"
	;;
restart)
	running || die "no cluster runs in $data; start one with: $0 up"
	as_owner "$bin/pg_ctl" restart -D "$data" -l "$logfile" -w -t 120 -m fast -o "-p $(cat "$portfile")" >/dev/null 2>&1 9>&- ||
		die "the server did not restart, see $logfile"
	echo "pg.sh: restarted the server of $data" >&2
	;;
dsn)
	running || die "no cluster runs in $data; start one with: $0 up"
	dsn_for "$(cat "$portfile")"
	;;
status)
	if running; then
		echo "running: $data, port $(cat "$portfile"), pid $(head -n 1 "$data/postmaster.pid")"
		dsn_for "$(cat "$portfile")"
	elif [[ -f $data/PG_VERSION ]]; then
		echo "stopped: $data exists (start it with: $0 up)"
		exit 3
	else
		echo "absent: no cluster in $data"
		exit 3
	fi
	;;
down)
	if [[ ! -d $base ]]; then
		echo "pg.sh: nothing to remove: no $base" >&2
		exit 0
	fi
	[[ -f $marker ]] || die "$base was not made by pg.sh (no $marker); not touching it"
	lock
	if [[ -f $data/PG_VERSION ]] && as_owner "$bin/pg_ctl" status -D "$data" >/dev/null 2>&1; then
		as_owner "$bin/pg_ctl" stop -D "$data" -m fast -w -t 60 >/dev/null ||
			die "could not stop the server of $data"
		echo "pg.sh: stopped the server of $data" >&2
	fi
	if [[ -d $base ]]; then
		# Delete only a directory this script made.
		[[ -f $marker ]] || die "$base was not made by pg.sh (no $marker); not deleting it"
		rm -rf "$base"
		echo "pg.sh: removed $base" >&2
	fi
	;;
*)
	echo "usage: $0 up|down|restart|dsn|status" >&2
	exit 2
	;;
esac
