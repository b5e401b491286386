#!/usr/bin/env bash
# Fails when git tracks a build output: an executable binary (ELF, Mach-O,
# PE or a Go archive) anywhere, or any file over 1 MiB outside testdata/
# and the vendored map files. Every clone pays for what is tracked, for ever.
# Called by `make test`; outside a git checkout it has nothing to check.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

MAX_BYTES=$((1 << 20))

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "check-tree: not a git checkout; skipped"
	exit 0
fi

bad=0
while IFS= read -r -d '' f; do
	[[ -f "$f" && ! -L "$f" ]] || continue # deleted in the work tree, or a link
	magic=$(head -c 4 -- "$f" | od -An -tx1 | tr -d ' \n')
	case "$magic" in
	7f454c46 | cffaedfe | cefaedfe | feedface | feedfacf | cafebabe | 4d5a*)
		echo "check-tree: $f is an executable binary (magic $magic): build outputs stay out of git" >&2
		bad=1
		continue
		;;
	esac
	case "$f" in
	testdata/* | */testdata/* | web/map/vendor/*) continue ;;
	esac
	size=$(stat -c %s -- "$f")
	if ((size > MAX_BYTES)); then
		echo "check-tree: $f is $size bytes (> 1 MiB outside testdata/ and web/map/vendor/)" >&2
		bad=1
	fi
done < <(git ls-files -z)

if ((bad)); then
	exit 1
fi
echo "check-tree: no binaries, nothing over 1 MiB"
