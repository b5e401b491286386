package photo

import (
	"bytes"
	"fmt"

	"github.com/h2non/filetype"
	"github.com/h2non/filetype/matchers"
	"github.com/h2non/filetype/types"
)

// Format is an accepted input format.
type Format uint8

const (
	Unknown Format = iota
	JPEG
	PNG
	WebP
	HEIC // HEIF with HEVC-coded images, the iPhone default
)

// SniffLen is how much of the head Sniff needs; more is ignored.
const SniffLen = 512

func (f Format) String() string {
	switch f {
	case JPEG:
		return "jpeg"
	case PNG:
		return "png"
	case WebP:
		return "webp"
	case HEIC:
		return "heic"
	}
	return "unknown"
}

// MIME is the type to record for the original. Derivatives are always JPEG.
func (f Format) MIME() string {
	if f == Unknown {
		return "application/octet-stream"
	}
	return "image/" + f.String()
}

// allow is the whole allow-list. filetype's own WebP matcher checks only
// "WEBP" at offset 8 and its HEIF matcher misses heix/hevc brands, so both
// are replaced by stricter ones here.
var allow = matchers.Map{
	matchers.TypeJpeg: matchers.Jpeg,
	matchers.TypePng:  matchers.Png,
	matchers.TypeWebp: isWebP,
	matchers.TypeHeif: isHEIC,
}

var formatOf = map[types.Type]Format{
	matchers.TypeJpeg: JPEG,
	matchers.TypePng:  PNG,
	matchers.TypeWebp: WebP,
	matchers.TypeHeif: HEIC,
}

// Sniff tells the format from magic bytes alone: the name and the declared
// Content-Type of an upload are never trusted. Anything outside the
// allow-list, SVG and other text formats included, is ErrUnsupported.
func Sniff(head []byte) (Format, error) {
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	t := filetype.MatchMap(head, allow)
	if f, ok := formatOf[t]; ok {
		return f, nil
	}
	return Unknown, fmt.Errorf("%w: no accepted signature in the first %d bytes", ErrUnsupported, len(head))
}

func isWebP(b []byte) bool {
	return len(b) >= 16 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WEBP" &&
		bytes.HasPrefix(b[12:16], []byte("VP8"))
}

// hevcBrands mark HEVC-coded HEIF (ISO/IEC 23008-12 Annex B). The structural
// brands mif1/msf1 are shared with AVIF, whose AV1 payload no decoder here
// reads, so they only count next to one of these.
var hevcBrands = map[string]bool{
	"heic": true, "heix": true, "heim": true, "heis": true,
	"hevc": true, "hevx": true, "hevm": true, "hevs": true,
}

func isHEIC(b []byte) bool {
	major, compat, ok := ftypBrands(b)
	if !ok {
		return false
	}
	if hevcBrands[major] {
		return true
	}
	if major != "mif1" && major != "msf1" {
		return false
	}
	for _, c := range compat {
		if hevcBrands[c] {
			return true
		}
	}
	return false
}

// ftypBrands reads the ftyp box that must open an ISOBMFF file.
func ftypBrands(b []byte) (major string, compat []string, ok bool) {
	if len(b) < 16 || string(b[4:8]) != "ftyp" {
		return "", nil, false
	}
	size := int(be32(b))
	if size < 16 || size%4 != 0 {
		return "", nil, false
	}
	size = min(size, len(b))
	for i := 16; i+4 <= size; i += 4 {
		compat = append(compat, string(b[i:i+4]))
	}
	return string(b[8:12]), compat, true
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }
