// Package photo is the pure image pipeline behind photo uploads: it sniffs and
// guards input cheaply in the request path (Sniff, Probe) and renders the
// derivatives in the worker (Render). It knows nothing about storage or HTTP.
//
// The pipeline's invariants, each with a test:
//   - the type comes from magic bytes only, against an allow-list (no SVG, no
//     "image/*" catch-all), and the pixel count is checked from the header
//     before any pixel buffer exists;
//   - orientation (EXIF 1–8, HEIF irot/imir) is baked into the pixels and
//     derivatives carry no metadata at all (Go's JPEG encoder writes none and
//     nothing is copied), so GPS never leaves the private original;
//   - Display P3 input is converted to sRGB, because derivatives are served
//     without a profile and untagged P3 values look washed out;
//   - derivatives are never upscaled.
//
// A file is what its magic bytes say. A JPEG with HTML appended (a polyglot)
// is a JPEG: it renders, its derivatives are freshly encoded pixels that
// carry none of its bytes, and the original is kept private, never served
// as anything but its sniffed image type.
package photo
