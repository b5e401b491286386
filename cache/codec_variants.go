package cache

import (
	"encoding/binary"

	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
)

// A cover's variants: a count (0 for none, count+1 otherwise, so that a
// photo rendered before variants stays nil) and each variant's fields.
func appendVariants(b []byte, vs []media.Variant) []byte {
	if vs == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(vs))+1)
	for _, v := range vs {
		b = appendString(b, v.Kind)
		b = appendString(b, string(v.Format))
		b = binary.AppendUvarint(b, uint64(v.Width))
		b = binary.AppendUvarint(b, uint64(v.Height))
		b = binary.AppendUvarint(b, uint64(v.Bytes))
		b = appendString(b, v.Key)
	}
	return b
}

func (r *reader) variants() []media.Variant {
	n := r.uvarint(64)
	if n == 0 || r.err != nil {
		return nil
	}
	vs := make([]media.Variant, 0, n-1)
	for range n - 1 {
		vs = append(vs, media.Variant{Kind: r.string(), Format: photo.Encoding(r.string()),
			Width: int(r.uvarint(1 << 16)), Height: int(r.uvarint(1 << 16)), Bytes: int64(r.uvarint(1 << 40)), Key: r.string()})
	}
	return vs
}
