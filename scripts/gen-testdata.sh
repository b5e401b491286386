#!/usr/bin/env bash
# Regenerates the photo test files of media/photo.
#
#   scripts/gen-testdata.sh          testdata/photos/ (small, checked in)
#   scripts/gen-testdata.sh --bench  testdata/bench/ (12 and 48 MP, git-ignored)
#   scripts/gen-testdata.sh --hostile  testdata/hostile/ only (crafted files)
#
# Uses Debian's ImageMagick, exiftool and heif-enc, installing them when
# missing, and media/photo/internal/testgen for what they cannot make (a
# Display P3 profile, HEIF irot/imir/nclx boxes, a PNG bomb, a ZIP). Outputs
# are reproducible: fixed seeds, no timestamps in PNG chunks.
set -euo pipefail
cd "$(dirname "$0")/.."

updated=
need() { # need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 && return
	if [ -z "$updated" ]; then apt-get update -qq; updated=1; fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}
# The real ImageMagick 6, not a `convert` that something else put on PATH.
if [ "${1:-}" != --hostile ]; then
	need convert-im6.q16 imagemagick
	need exiftool libimage-exiftool-perl
	need heif-enc libheif-examples
fi
IM=convert-im6.q16
PNG=(-define png:exclude-chunks=date,time) # no timestamps: reproducible bytes

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/testgen" ./media/photo/internal/testgen
testgen() { "$TMP/testgen" "$@"; }

exif() { exiftool -q -overwrite_original "$@"; }

bench() {
	local out=testdata/bench
	mkdir -p "$out"
	echo '*' >"$out/.gitignore"
	# Photo-like detail (plasma + grain) so that sizes match phone output:
	# 12 MP ≈ 3.9 MB JPEG, 48 MP ≈ 15 MB.
	$IM -seed 42 -size 4000x3000 plasma:fractal -attenuate 0.6 +noise Gaussian \
		-quality 88 -sampling-factor 2x2 "$out/photo-12mp.jpg"
	$IM -seed 43 -size 8000x6000 plasma:fractal -attenuate 0.6 +noise Gaussian \
		-quality 88 -sampling-factor 2x2 "$out/photo-48mp.jpg"
	# A phone-like HEIC: less grain, ~1 MB for 12 MP.
	$IM -seed 7 -size 4000x3000 plasma:fractal -blur 0x2 -attenuate 0.15 +noise Gaussian \
		-quality 92 "$TMP/heic-src.jpg"
	heif-enc -q 50 "$TMP/heic-src.jpg" -o "$out/photo-12mp.heic" >/dev/null
	ls -l "$out"
}

# The adversarial corpus: scan bombs, a PNG inflate bomb, lying WebP
# canvases, a HEIF box flood, looping EXIF, junk between JPEG markers. Made
# in Go alone (media/photo/hostile), so it needs none of the tools above.
hostile() {
	rm -rf testdata/hostile
	testgen hostile testdata/hostile testdata/photos/photo.webp
	du -sh testdata/hostile
}

if [ "${1:-}" = --bench ]; then
	bench
	exit
fi
if [ "${1:-}" = --hostile ]; then
	hostile
	exit
fi

out=testdata/photos
rm -rf "$out"
mkdir -p "$out"

# One photo per accepted format: a simple landscape, 640×480.
scene=(-size 640x480 gradient:'#4a90d9-#f0e6c8'
	-fill '#2e7d32' -draw 'polygon 0,480 0,330 160,250 330,340 480,260 640,330 640,480'
	-fill '#fbc02d' -draw 'circle 500,100 530,100')
$IM "${scene[@]}" PNG24:"$TMP/scene.png"
$IM "$TMP/scene.png" -quality 85 "$out/photo.jpg"
$IM "$TMP/scene.png" "${PNG[@]}" PNG24:"$out/photo.png"
$IM "$TMP/scene.png" -quality 80 "$out/photo.webp"
heif-enc -q 60 "$TMP/scene.png" -o "$out/photo.heic" >/dev/null
# Transparent corners: must come out composited on white, not black.
$IM -size 64x64 xc:none -fill '#1565c0' -draw 'circle 32,32 32,4' "${PNG[@]}" PNG32:"$out/alpha.png"
# A CMYK JPEG (as print workflows export) and a 16-bit PNG: both must come
# out as the same 8-bit sRGB scene.
$IM "$TMP/scene.png" -colorspace CMYK -quality 90 "$out/cmyk.jpg"
$IM "$TMP/scene.png" -depth 16 "${PNG[@]}" PNG48:"$out/photo-16bit.png"

# Orientation: the displayed image is 240×160, red square top-left, blue
# elsewhere. Each file stores the inverse transform and tags orientation N.
# (At least 128 px wide either way: the WebAssembly HEIC decoder garbles
# narrower images, see decode.go.)
$IM -size 240x160 xc:'#0000ff' -fill '#ff0000' -draw 'rectangle 0,0 59,59' PNG24:"$TMP/display.png"
inverse=([1]='' [2]='-flop' [3]='-rotate 180' [4]='-flip'
	[5]='-transpose' [6]='-rotate 270' [7]='-transverse' [8]='-rotate 90')
for n in 1 2 3 4 5 6 7 8; do
	# shellcheck disable=SC2086 # the transform is a list of words
	$IM "$TMP/display.png" ${inverse[$n]} -quality 92 "$out/orient-$n.jpg"
	exif -n -Orientation="$n" "$out/orient-$n.jpg"
done
# The same in the other containers' EXIF: WebP's EXIF chunk, PNG's eXIf.
$IM "$TMP/display.png" -rotate 270 -quality 90 "$out/orient-6.webp"
$IM "$TMP/display.png" -rotate 270 "${PNG[@]}" PNG24:"$out/orient-6.png"
exif -n -Orientation=6 "$out/orient-6.webp" "$out/orient-6.png"
# HEIC: EXIF only (heif-enc copies it and writes no irot), irot, imir, both.
heif-enc -q 90 "$out/orient-6.jpg" -o "$out/heic-exif6.heic" >/dev/null
heifrot() { # heifrot NAME IM-TRANSFORM PROP VALUE [PROP VALUE]
	local name=$1 tf=$2
	shift 2
	# shellcheck disable=SC2086
	$IM "$TMP/display.png" $tf PNG24:"$TMP/$name.png"
	heif-enc -q 90 "$TMP/$name.png" -o "$TMP/$name.0.heic" >/dev/null
	local i=0
	while [ $# -gt 0 ]; do
		testgen heif-prop "$TMP/$name.$i.heic" "$TMP/$name.$((i + 1)).heic" "$1" "$2"
		shift 2
		i=$((i + 1))
	done
	cp "$TMP/$name.$i.heic" "$out/$name.heic"
}
heifrot heic-irot1 '-rotate 90' irot 1           # displayed = stored turned 90° anticlockwise
heifrot heic-imir1 '-flop' imir 1                # libheif: 1 swaps left and right
heifrot heic-irot1-imir0 '-flip -rotate 90' irot 1 imir 0
# Narrower than the WebAssembly decoder handles (see decode.go).
$IM -size 64x64 xc:'#ff0000' PNG24:"$TMP/narrow.png"
heif-enc -q 90 "$TMP/narrow.png" -o "$out/heic-64px.heic" >/dev/null

# Display P3: patches of P3 (255,0,0), (200,100,50), (0,255,0), values
# untouched, tagged with a P3 profile (ImageMagick's first -profile assigns).
testgen icc-p3 "$TMP/p3.icc"
testgen icc-srgb "$TMP/srgb.icc"
$IM -size 64x64 xc:'rgb(255,0,0)' xc:'rgb(200,100,50)' xc:'rgb(0,255,0)' +append PNG24:"$TMP/patches.png"
$IM "$TMP/patches.png" -profile "$TMP/p3.icc" -quality 95 -sampling-factor 1x1 "$out/p3.jpg"
$IM "$TMP/patches.png" -profile "$TMP/p3.icc" "${PNG[@]}" PNG24:"$out/p3.png"
$IM "$TMP/patches.png" -profile "$TMP/srgb.icc" -quality 95 -sampling-factor 1x1 "$out/srgb-profile.jpg"
heif-enc -q 90 "$out/p3.png" -o "$out/p3-prof.heic" >/dev/null # colr prof from iCCP
heif-enc -q 90 "$TMP/patches.png" -o "$TMP/patches.heic" >/dev/null
testgen heif-prop "$TMP/patches.heic" "$out/p3-nclx.heic" nclx 12 # what iPhones write

# GPS and camera EXIF that derivatives must not carry.
cp "$out/photo.jpg" "$out/gps.jpg"
exif -GPSLatitude=48.858370 -GPSLatitudeRef=N -GPSLongitude=2.294481 -GPSLongitudeRef=E \
	-Make=Guidepost -Model=TestCam -Artist='Secret Person' "$out/gps.jpg"
# Where and when, in the other containers' EXIF: read for the owner only.
cp "$out/photo.png" "$out/gps.png"
cp "$out/photo.webp" "$out/gps.webp"
cp "$out/photo.heic" "$out/gps.heic"
exif -GPSLatitude=37.566535 -GPSLatitudeRef=N -GPSLongitude=126.977969 -GPSLongitudeRef=E \
	-DateTimeOriginal='2026:05:01 09:30:15' -OffsetTimeOriginal='+09:00' "$out/gps.png"
exif -GPSLatitude=35.658581 -GPSLatitudeRef=N -GPSLongitude=139.745433 -GPSLongitudeRef=E \
	-DateTimeOriginal='2026:04:02 18:05:00' "$out/gps.webp"
exif -GPSLatitude=40.689247 -GPSLatitudeRef=N -GPSLongitude=74.044502 -GPSLongitudeRef=W \
	-DateTimeOriginal='2026:03:03 12:00:00' -OffsetTimeOriginal='-05:00' "$out/gps.heic"

# Corrupt: valid header, scan data cut at 40% and followed by garbage.
size=$(stat -c %s "$out/photo.jpg")
head -c $((size * 2 / 5)) "$out/photo.jpg" >"$out/corrupt.jpg"
head -c 300 /dev/zero | tr '\0' '\252' >>"$out/corrupt.jpg"

# Decompression bomb: 1 KB of PNG declaring 60000×60000 (14 GB of RGBA).
testgen png-bomb "$out/bomb.png" 60000 60000

# Polyglots. A full JPEG with HTML in a comment and after EOI: a JPEG by its
# magic bytes, so accepted; it renders, and derivatives are re-encoded pixels
# without the HTML. A JPEG header followed by HTML only: accepted by Sniff,
# rejected by Probe as corrupt (no frame header).
html='<html><body><script>alert(document.cookie)</script></body></html>'
$IM "$TMP/display.png" -set comment "$html" -quality 90 "$out/polyglot.jpg"
printf '%s\n' "$html" >>"$out/polyglot.jpg"
{ head -c 20 "$out/photo.jpg"; printf '%s\n' "$html"; } >"$out/polyglot-header.jpg"

# Not photos: each must be refused by Sniff whatever its name says.
printf '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>\n' >"$out/image.svg"
printf '<!DOCTYPE html>\n%s\n' "$html" >"$out/page.html"
printf '%s\n' '%PDF-1.4' '1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj' \
	'2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj' 'trailer<</Root 1 0 R>>' '%%EOF' >"$out/doc.pdf"
testgen zip "$out/archive.zip"
printf 'This is a text file with a .jpg name.\n' >"$out/text.jpg"
$IM -size 16x16 xc:red "$out/image.gif"
$IM -size 16x16 xc:red -compress none "$out/image.tiff"

du -sh "$out"

hostile
