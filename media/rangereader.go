package media

import (
	"context"
	"errors"
	"io"
)

// rangeChunk is how much one ranged GET reads. Headers sit in the first
// few KB; a JPEG with a large EXIF or ICC block before its frame header
// needs a few more reads, never the whole file.
const rangeChunk = 64 << 10

// rangeReader reads an object through ranged GETs, a chunk at a time, so a
// header can be probed without downloading the photo.
type rangeReader struct {
	ctx   context.Context
	store Multipart
	key   string
	size  int64
	off   int64
	buf   []byte // the chunk at bufAt
	bufAt int64
	err   error // the store's, kept apart from what the prober makes of it
}

// openRange reads the object's first chunk, which also tells its size.
func openRange(ctx context.Context, store Multipart, key string) (*rangeReader, error) {
	r := &rangeReader{ctx: ctx, store: store, key: key}
	var err error
	r.buf, r.size, err = store.ReadRange(ctx, key, 0, rangeChunk)
	return r, err
}

func (r *rangeReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if r.off < r.bufAt || r.off >= r.bufAt+int64(len(r.buf)) {
		chunk, _, err := r.store.ReadRange(r.ctx, r.key, r.off, min(rangeChunk, r.size-r.off))
		if err == nil && len(chunk) == 0 {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			r.err = err
			return 0, err
		}
		r.buf, r.bufAt = chunk, r.off
	}
	n := copy(p, r.buf[r.off-r.bufAt:])
	r.off += int64(n)
	return n, nil
}

func (r *rangeReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	}
	if offset < 0 {
		return 0, errors.New("rangeReader: negative position")
	}
	r.off = offset
	return offset, nil
}
