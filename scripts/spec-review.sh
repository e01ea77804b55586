#!/usr/bin/env bash
# spec-review.sh: review a spec change as a pull request does. For each
# spec it runs `fmt -check` (when this mentat-spec has the fmt command),
# `validate`, and `plan -diff BASE`, and writes the plan diffs as one
# Markdown document, ready to post as a pull-request comment.
#
#   scripts/spec-review.sh [BASE]
#
# BASE is the git revision to compare with (default HEAD~1; a workflow
# passes the target branch, e.g. origin/main). Environment:
#   MENTAT_SPEC        the binary to use (default: built into bin/)
#   SPEC_REVIEW_SPECS  the specs to review, space separated (default: the
#                      repository's own specs and examples)
#   SPEC_REVIEW_OUT    also write the Markdown to this file
#
# Exit 0 when every spec is well formatted, valid and plans on both
# sides, whether or not the plans differ; non-zero otherwise, after
# printing the diagnostics.
set -euo pipefail
bin=${MENTAT_SPEC:-}
case $bin in
*/*) bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") ;; # before the cd below
esac
cd "$(dirname "${BASH_SOURCE[0]}")/.."

base=${1:-HEAD~1}
specs=${SPEC_REVIEW_SPECS:-"specs/full.hcl examples/quickstart.hcl examples/library/library.hcl"}
if [ -z "$bin" ]; then
	go build -o bin/mentat-spec ./cmd/mentat-spec
	bin=bin/mentat-spec
fi

if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
	echo "spec-review: $base is not a revision of this repository (in a shallow clone, fetch it first)" >&2
	exit 2
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT

has_fmt=false
if "$bin" fmt -help >/dev/null 2>&1; then
	has_fmt=true
fi

status=0
echo "## Spec review against \`$base\`" >"$out"
for spec in $specs; do
	echo "== $spec" >&2
	if $has_fmt && ! "$bin" fmt -check "$spec"; then
		echo "spec-review: $spec is not formatted: run mentat-spec fmt $spec" >&2
		status=1
	fi
	if ! "$bin" validate "$spec" >&2; then
		status=1
		continue
	fi
	echo >>"$out"
	if ! git cat-file -e "$base:$spec" 2>/dev/null; then
		printf '### `%s`: a new spec\n\nNot in `%s`; its plan:\n\n```\n' "$spec" "$base" >>"$out"
		"$bin" plan "$spec" >>"$out" || status=1
		printf '```\n' >>"$out"
		continue
	fi
	printf '<!-- %s -->\n' "$spec" >>"$out"
	if ! "$bin" plan "$spec" -diff "$base" -markdown | sed "1s|^### Spec plan diff:|### \`$spec\`:|" >>"$out"; then
		status=1
	fi
done

cat "$out"
if [ -n "${SPEC_REVIEW_OUT:-}" ]; then
	cp "$out" "$SPEC_REVIEW_OUT"
fi
exit $status
