package photo

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"strings"

	"github.com/gen2brain/heic"
	"golang.org/x/image/webp"
)

// HEIC decoding: github.com/gen2brain/heic, chosen over a cgo libheif binding.
//
// It embeds libheif 1.18.2 + libde265 compiled to WebAssembly and run by
// wazero, so the binary needs no cgo and no shared library. In a dynamically
// linked binary it dlopens the system's "libheif.so" instead (through purego,
// still without cgo) when one is installed: that is native libheif, the code
// a cgo binding would call. Measured on this shared 2-core machine (CPU time,
// as wall time measured the neighbours too) on single-image HEICs from
// heif-enc, BenchmarkDecodeHEIC12MP and a standalone decoder:
//
//	                        12 MP, 1 MB                 48 MP, 7.7 MB
//	                        CPU/decode  peak            CPU/decode  peak RSS
//	WebAssembly             1.4 s       315 MB Go heap  11 s        1.0 GB
//	  (-tags nodynamic)                 371 MB RSS
//	native libheif 1.15.1   0.84 s      183 MB RSS      5.3 s       475 MB
//
// plus 0.5 s, once per process, to compile the module. WebAssembly costs
// 1.6–2× the CPU and about twice the memory: worse, not far worse, and it
// keeps the static binary the Dockerfile wants, so it is the choice. (iPhone
// files are grids of 512×512 tiles, which libheif decodes one at a time: they
// need less memory than these single-image files.) For the build:
//   - purego makes even a CGO_ENABLED=0 build dynamically linked (it needs
//     /lib64/ld-linux-x86-64.so.2): build the static binary with
//     `-tags nodynamic`;
//   - without that tag, a host with libheif-dev (which provides the
//     unversioned libheif.so) silently gets the native path; HEICDecoder
//     tells which one runs, for the worker's startup log.
//
// Both backends apply irot/imir (libheif's default); Probe reads those boxes
// to know it, and Render applies EXIF orientation only when they are absent.

// minWASMWidth: gen2brain/heic v0.4.5's WebAssembly path assumes chroma rows
// padded to 16 bytes, but libheif pads them to at least 64: images up to 96 px
// wide come out with garbled colours (native libheif is right). No photo is
// that small, so such files are refused rather than rendered wrong.
const minWASMWidth = 128

// HEICDecoder names the HEIC backend in use: "native libheif" or "wasm".
func HEICDecoder() string {
	if heic.Dynamic() == nil {
		return "native libheif"
	}
	return "wasm"
}

// decode turns the whole file into pixels. Decoders can panic on hostile
// input (slices sized from header fields); that is a corrupt photo, not a
// crashed worker.
func decode(data []byte, f Format) (img image.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			kind := ErrCorrupt
			if msg := fmt.Sprint(p); strings.Contains(msg, "out of memory") || strings.Contains(msg, "cannot allocate memory") {
				kind = ErrTooComplex // under a render child's memory limit
			}
			img, err = nil, fmt.Errorf("%w: %s decoder panicked: %v", kind, f, p)
		}
	}()
	r := bytes.NewReader(data)
	switch f {
	case JPEG:
		img, err = jpeg.Decode(r)
	case PNG:
		img, err = png.Decode(r)
	case WebP:
		img, err = webp.Decode(r)
	case HEIC:
		img, err = heic.Decode(r)
		if err == nil && HEICDecoder() == "wasm" && img.Bounds().Dx() < minWASMWidth {
			return nil, fmt.Errorf("%w: heic: %d px wide, under the %d px the WebAssembly decoder handles",
				ErrUnsupported, img.Bounds().Dx(), minWASMWidth)
		}
	default:
		return nil, fmt.Errorf("%w: format %d", ErrUnsupported, f)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, f, err)
	}
	return img, nil
}
