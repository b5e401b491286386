package cache

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/media"
)

// The Redis tier stores a tile in a compact binary form: decoding a dense
// tile of a thousand guides must cost far less than querying it.
// The version is in the Redis keys too (see key), so processes of two
// releases never read each other's entries.
const codecVersion = 4

var errCodec = errors.New("cache: malformed tile entry")

func encodeEntry(e *entry) []byte {
	b := make([]byte, 0, 64+len(e.items)*96)
	b = append(b, codecVersion)
	b = binary.AppendVarint(b, e.version)
	b = binary.AppendVarint(b, e.builtAt)
	b = binary.AppendUvarint(b, uint64(e.count))
	if e.tooLarge {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(e.items)))
	for i := range e.items {
		it := &e.items[i].Item
		b = appendUUID(b, it.ID)
		b = appendUUID(b, it.Author.ID)
		b = appendString(b, it.Author.DisplayName)
		b = binary.AppendUvarint(b, uint64(it.PhotoCount))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(it.Lat))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(it.Lng))
		b = binary.AppendVarint(b, it.CreatedAt.UnixMicro())
		b = binary.AppendVarint(b, it.LikeCount)
		b = appendString(b, it.Title)
		b = binary.AppendUvarint(b, uint64(len(it.Tags)))
		for _, t := range it.Tags {
			b = appendString(b, t)
		}
		if it.Cover.MediaID == "" {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = appendUUID(b, it.Cover.MediaID)
		b = appendString(b, string(it.Cover.Status))
		b = appendString(b, it.Cover.ThumbHash)
		b = binary.AppendUvarint(b, uint64(it.Cover.Width))
		b = binary.AppendUvarint(b, uint64(it.Cover.Height))
		b = appendVariants(b, it.Cover.Variants)
	}
	return b
}

func appendUUID(b []byte, s string) []byte {
	u, _ := uuid.Parse(s)
	return append(b, u[:]...)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) < 1 {
		r.err = errCodec
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errCodec
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) uvarint(max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > max {
		r.err = errCodec
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) float() float64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = errCodec
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *reader) uuid() string {
	if r.err != nil || len(r.b) < 16 {
		r.err = errCodec
		return ""
	}
	var u uuid.UUID
	copy(u[:], r.b)
	r.b = r.b[16:]
	return u.String()
}

func (r *reader) string() string {
	n := r.uvarint(1 << 20)
	if r.err != nil || uint64(len(r.b)) < n {
		r.err = errCodec
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func decodeEntry(tile int64, b []byte) (*entry, error) {
	r := &reader{b: b}
	if r.byte() != codecVersion {
		return nil, errCodec
	}
	e := &entry{tile: tile, version: r.varint(), builtAt: r.varint(), count: int(r.uvarint(math.MaxInt32))}
	e.tooLarge = r.byte() == 1
	n := r.uvarint(1 << 20)
	if r.err != nil {
		return nil, r.err
	}
	e.items = make([]cachedItem, 0, n)
	for range n {
		var it guides.Item
		it.ID = r.uuid()
		it.Author.ID = r.uuid()
		it.Author.DisplayName = r.string()
		it.PhotoCount = int(r.uvarint(math.MaxInt32))
		it.Lat, it.Lng = r.float(), r.float()
		it.CreatedAt = time.UnixMicro(r.varint()).UTC()
		it.LikeCount = r.varint()
		it.Title = r.string()
		tags := r.uvarint(64)
		it.Tags = make([]string, 0, tags)
		for range tags {
			it.Tags = append(it.Tags, r.string())
		}
		if r.byte() == 1 {
			it.Cover.MediaID = r.uuid()
			it.Cover.Status = media.Status(r.string())
			it.Cover.ThumbHash = r.string()
			it.Cover.Width, it.Cover.Height = int(r.uvarint(1<<20)), int(r.uvarint(1<<20))
			it.Cover.Variants = r.variants()
		}
		if r.err != nil {
			return nil, r.err
		}
		e.items = append(e.items, newCachedItem(it, e.builtAt))
	}
	if len(r.b) != 0 {
		return nil, errCodec
	}
	e.sortByLat()
	return e, nil
}
