package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/guidepost/guidepost/media/photo"
)

// Variant is one stored derivative of a photo in one encoding, what a
// client picks from by screen width and by the formats it decodes.
type Variant struct {
	Kind   string         // KindMarker, KindSmall, KindThumb or KindWeb
	Format photo.Encoding // jpeg, webp, avif
	Width  int
	Height int
	Bytes  int64  // 0 for the JPEGs of a photo rendered before variants
	Key    string // the object; its name carries the photo's render version
}

// The kinds of derivative, smallest first: the marker crop, then photos
// fitted within photo.SmallMax, ThumbMax and WebMax.
const (
	KindMarker = "marker"
	KindSmall  = "small"
	KindThumb  = "thumbnail"
	KindWeb    = "web"
)

// versionLen is how many hex digits of the render's hash name a version:
// 48 bits, so two renders of one photo never share a name.
const versionLen = 12

// variantKey is where a derivative of a render lives. The version is a
// hash of every file of the render, so the name changes whenever a byte
// does (a new encoder, a new quality): a CDN or a phone may keep an object
// forever, and a re-render never overwrites what a cache holds.
func variantKey(id, version, kind string, f photo.Encoding) string {
	return keyPrefix + id + "/" + version + "/" + kind + "." + f.Ext()
}

// renderVariants lists the files of a render with their keys, smallest
// kind first, JPEG first within a kind.
func renderVariants(id string, res photo.Result, formats []photo.Encoding) []variantFile {
	h := sha256.New()
	var files []variantFile
	for _, d := range []struct {
		kind string
		d    photo.Derivative
	}{{KindMarker, res.Marker}, {KindSmall, res.Small}, {KindThumb, res.Thumb}, {KindWeb, res.Web}} {
		for _, f := range formats {
			data := d.d.File(f)
			if data == nil {
				continue
			}
			fmt.Fprintf(h, "%s.%s:%d\n", d.kind, f, len(data))
			h.Write(data)
			files = append(files, variantFile{Variant{Kind: d.kind, Format: f, Width: d.d.Width, Height: d.d.Height, Bytes: int64(len(data))}, data})
		}
	}
	version := hex.EncodeToString(h.Sum(nil))[:versionLen]
	for i := range files {
		files[i].Key = variantKey(id, version, files[i].Kind, files[i].Format)
	}
	return files
}

type variantFile struct {
	Variant
	data []byte
}

// putVariants stores every file of a render, each with its Content-Type
// and a year of Cache-Control, and returns the variants to record.
func (s *Service) putVariants(ctx context.Context, id string, res photo.Result) ([]Variant, error) {
	files := renderVariants(id, res, s.formats())
	out := make([]Variant, 0, len(files))
	for _, f := range files {
		sum := sha256.Sum256(f.data)
		if err := s.deps.Blobs.PutImmutable(ctx, f.Key, bytes.NewReader(f.data), int64(len(f.data)), f.Format.ContentType(), hex.EncodeToString(sum[:])); err != nil {
			return nil, transient(err)
		}
		out = append(out, f.Variant)
	}
	return out, nil
}

// formats are the encodings rendered (MEDIA_FORMATS), JPEG always first.
func (s *Service) formats() []photo.Encoding {
	if len(s.cfg.Formats) == 0 {
		return photo.DefaultEncodings
	}
	return s.cfg.Formats
}

// legacyVariants are the JPEGs of a photo rendered before variants, under
// their old fixed names: a photo answers with them until the back-fill
// has rendered the rest. Their sizes are the renderer's, from the row.
func legacyVariants(m Media) []Variant {
	var out []Variant
	if m.Marker {
		side := min(m.Width, m.Height, photo.MarkerSize)
		out = append(out, Variant{Kind: KindMarker, Format: photo.EncodingJPEG, Width: side, Height: side, Key: MarkerKey(m.ID)})
	}
	tw, th := photo.Fit(m.Width, m.Height, photo.ThumbMax)
	ww, wh := photo.Fit(m.Width, m.Height, photo.WebMax)
	return append(out,
		Variant{Kind: KindThumb, Format: photo.EncodingJPEG, Width: tw, Height: th, Key: ThumbKey(m.ID)},
		Variant{Kind: KindWeb, Format: photo.EncodingJPEG, Width: ww, Height: wh, Key: WebKey(m.ID)})
}

// variantsOf are the variants a ready photo answers with.
func variantsOf(m Media) []Variant {
	if m.Variants != nil {
		return m.Variants
	}
	return legacyVariants(m)
}

// jpegKey is the key of the photo's JPEG of kind, for the URL fields that
// predate variants.
func jpegKey(m Media, kind string) string {
	for _, v := range variantsOf(m) {
		if v.Kind == kind && v.Format == photo.EncodingJPEG {
			return v.Key
		}
	}
	return ""
}

// JPEGKey is the key of the photo's JPEG of kind (KindWeb, KindThumb,
// KindMarker), "" when it has none.
func (m Media) JPEGKey(kind string) string { return jpegKey(m, kind) }
