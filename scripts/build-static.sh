#!/usr/bin/env bash
# Builds the release binary exactly as the Dockerfile does, and proves it:
#
#   scripts/build-static.sh [OUT]     (default bin/guidepost-static)
#
# static: libjpeg-turbo (libjpeg.a) and libwebp (libwebp.a, with what its
# pkg-config file says a static link needs: -lm, and -lsharpyuv from
# libwebp 1.3 on) are linked in with glibc; netgo and osusergo keep the
# resolver and user lookups in Go (glibc's need shared modules at run time);
# nodynamic keeps the HEIC and AVIF code from trying a system library.
# Then: `file` must say statically linked, `ldd` must refuse it, and the
# binary must render a test photo in JPEG, WebP and AVIF.
#
# The Dockerfile runs this script in its build stage, so what is checked
# here on a Debian 12 machine (apt-get install libjpeg62-turbo-dev
# libwebp-dev pkg-config) is what the image gets.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bin/guidepost-static}
mkdir -p "$(dirname "$out")"

for lib in libjpeg.a libwebp.a; do
	if ! find /usr/lib /usr/local/lib -name "$lib" 2>/dev/null | grep -q .; then
		echo "build-static: $lib not found (apt-get install libjpeg62-turbo-dev libwebp-dev)" >&2
		exit 1
	fi
done
static_libs=$(pkg-config --static --libs libwebp libjpeg)

CGO_ENABLED=1 CGO_LDFLAGS="${CGO_LDFLAGS:-} $static_libs" go build -tags nodynamic,netgo,osusergo -trimpath \
	-ldflags='-s -w -linkmode external -extldflags "-static"' -o "$out" ./cmd/guidepost

file "$out"
if ! file "$out" | grep -q 'statically linked'; then
	echo "build-static: $out is not statically linked" >&2
	exit 1
fi
if ldd "$out" >/dev/null 2>&1; then
	ldd "$out" >&2
	echo "build-static: ldd found shared libraries in $out" >&2
	exit 1
fi
echo "ldd: $(ldd "$out" 2>&1 || true)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# An empty environment: the render needs no configuration, and nothing from
# this machine's (LD_LIBRARY_PATH, say) can help it.
env -i "$out" render -formats jpeg,webp,avif testdata/photos/photo.jpg "$tmp"
for f in web thumb small marker; do
	for ext in jpg webp avif; do
		if [ ! -s "$tmp/$f.$ext" ]; then
			echo "build-static: $f.$ext missing or empty" >&2
			exit 1
		fi
	done
done
file "$tmp/web.jpg" "$tmp/web.webp" "$tmp/web.avif"
echo "build-static: $out is static and renders"
