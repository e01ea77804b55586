#!/usr/bin/env bash
# with-pg.sh CMD...: runs CMD with MENTAT_SPEC_PG_DSN set. When it is unset,
# a throwaway cluster is started with scripts/pg.sh and stopped afterwards
# (only if this script started it), so tests always meet a real PostgreSQL.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -n ${MENTAT_SPEC_PG_DSN:-} ]]; then
	exec "$@"
fi
started=0
if ! "$here/pg.sh" status >/dev/null 2>&1; then
	started=1
fi
dsn=$("$here/pg.sh" up | tail -n 1)
if [[ $started == 1 ]]; then
	trap '"$here/pg.sh" down >/dev/null 2>&1 || true' EXIT
fi
export MENTAT_SPEC_PG_DSN=$dsn
echo "with-pg.sh: MENTAT_SPEC_PG_DSN points at the throwaway cluster (${dsn%%\?*})" >&2
"$@"
