#!/usr/bin/env bash
# Fetches the map page's third-party files from npm at pinned versions into
# web/map/vendor/ (embedded in the binary: the page loads nothing from
# elsewhere). Only the files the page uses are kept, each package's licence
# beside them.
#
#   scripts/vendor-map.sh          write web/map/vendor/
#   scripts/vendor-map.sh --check  fetch into a scratch folder and fail if it
#                                  differs from what the repository holds
#
# Needs npm (`npm pack` checks each tarball against the registry's integrity
# hash). Bump a version here, run the script, look at the page, commit.
set -euo pipefail

MAPLIBRE_GL=6.20.0     # BSD-3-Clause
WORLD_ATLAS=2.0.2      # ISC; the data is Natural Earth's, public domain
TOPOJSON_CLIENT=3.1.0  # ISC
THUMBHASH=0.1.1        # MIT (the package ships no licence file; see below)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/web/map/vendor"

die() {
	echo "vendor-map: $*" >&2
	exit 1
}
command -v npm >/dev/null 2>&1 || die "needs npm (apt-get install npm)"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) die "usage: $0 [--check]" ;;
esac

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$tmp/vendor"
mkdir -p "$out"

# unpack NAME VERSION: the package's tarball, unpacked into $tmp/NAME.
unpack() {
	local dir="$tmp/$1"
	mkdir -p "$dir"
	(cd "$tmp" && npm pack --silent --pack-destination "$dir" "$1@$2" </dev/null >/dev/null) ||
		die "npm pack $1@$2 failed"
	tar -xzf "$dir"/*.tgz -C "$dir"
	grep -q "\"version\": \"$2\"" "$dir/package/package.json" || die "$1: npm served another version than $2"
}

unpack maplibre-gl "$MAPLIBRE_GL"
cp "$tmp/maplibre-gl/package/dist/maplibre-gl.mjs" \
	"$tmp/maplibre-gl/package/dist/maplibre-gl-worker.mjs" \
	"$tmp/maplibre-gl/package/dist/maplibre-gl.css" "$out/"
cp "$tmp/maplibre-gl/package/LICENSE.txt" "$out/LICENSE-maplibre-gl.txt"

unpack world-atlas "$WORLD_ATLAS"
cp "$tmp/world-atlas/package/countries-50m.json" "$out/"
cp "$tmp/world-atlas/package/LICENSE" "$out/LICENSE-world-atlas.txt"

unpack topojson-client "$TOPOJSON_CLIENT"
cp "$tmp/topojson-client/package/dist/topojson-client.min.js" "$out/"
cp "$tmp/topojson-client/package/LICENSE" "$out/LICENSE-topojson-client.txt"

unpack thumbhash "$THUMBHASH"
cp "$tmp/thumbhash/package/thumbhash.js" "$out/"
grep -q '"license": "MIT"' "$tmp/thumbhash/package/package.json" || die "thumbhash is no longer MIT: read its licence"
# The npm package declares MIT in package.json but carries no licence text;
# this is the MIT text with the author's notice from the project's repository.
cat >"$out/LICENSE-thumbhash.txt" <<'EOF'
MIT License

Copyright (c) 2023 Evan Wallace

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
EOF

cat >"$out/VERSIONS" <<EOF
maplibre-gl $MAPLIBRE_GL
world-atlas $WORLD_ATLAS
topojson-client $TOPOJSON_CLIENT
thumbhash $THUMBHASH
EOF

if ((check)); then
	diff -r "$DEST" "$out" >/dev/null || {
		diff -rq "$DEST" "$out" >&2 || true
		die "web/map/vendor differs from the pinned npm packages: run scripts/vendor-map.sh"
	}
	echo "vendor-map: web/map/vendor matches the pinned packages"
	exit 0
fi
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
cp -r "$out" "$DEST"
echo "vendor-map: wrote $(find "$DEST" -type f | wc -l) files ($(du -sh "$DEST" | cut -f1)) into web/map/vendor"
