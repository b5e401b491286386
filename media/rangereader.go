package media

import (
	"context"
	"errors"
	"io"

	"github.com/guidepost/guidepost"
)

// rangeChunk is how much the reader buffers at a time. Headers sit in the
// first few KB; probing a JPEG also walks its markers to the end (it counts
// the scans), which is one sequential read.
const rangeChunk = 64 << 10

// rangeReader reads a stored object from one streaming GET while reads go
// forward, and opens another from the wanted offset only when a read jumps
// outside what it buffered: a probe that walks the whole file costs two
// requests, not one per chunk.
type rangeReader struct {
	ctx    context.Context
	store  Multipart
	key    string
	size   int64
	off    int64
	buf    []byte // the chunk at bufAt
	bufAt  int64
	body   io.ReadCloser // the open GET, positioned at bodyAt
	bodyAt int64
	err    error // the store's, kept apart from what the prober makes of it
}

// openRange opens the object and buffers its first chunk; it also tells its
// size. The caller closes the reader.
func openRange(ctx context.Context, store Multipart, key string) (*rangeReader, error) {
	r := &rangeReader{ctx: ctx, store: store, key: key}
	var err error
	if r.body, r.size, err = store.ReadFrom(ctx, key, 0); err != nil {
		return r, err
	}
	if err = r.fill(0); err != nil {
		r.err = err
	}
	return r, err
}

// fill buffers the chunk at off, from the open GET when it is there, else
// from a new one.
func (r *rangeReader) fill(off int64) error {
	if r.body == nil || r.bodyAt != off {
		r.Close()
		body, _, err := r.store.ReadFrom(r.ctx, r.key, off)
		if err != nil {
			return err
		}
		r.body, r.bodyAt = body, off
	}
	n := min(rangeChunk, r.size-off)
	if cap(r.buf) < int(n) {
		r.buf = make([]byte, rangeChunk)
	}
	r.buf = r.buf[:n]
	got, err := io.ReadFull(r.body, r.buf)
	r.bodyAt += int64(got)
	if err != nil {
		r.Close()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = io.ErrUnexpectedEOF // shorter than it said: changed under us
		}
		return guidepost.Wrap(guidepost.EUNAVAILABLE, err, "photo storage is unavailable; try again shortly")
	}
	r.bufAt = off
	return nil
}

func (r *rangeReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if r.off < r.bufAt || r.off >= r.bufAt+int64(len(r.buf)) {
		if err := r.fill(r.off); err != nil {
			r.err = err
			return 0, err
		}
	}
	n := copy(p, r.buf[r.off-r.bufAt:])
	r.off += int64(n)
	return n, nil
}

// Close ends the open GET, if any.
func (r *rangeReader) Close() error {
	if r.body == nil {
		return nil
	}
	err := r.body.Close()
	r.body = nil
	return err
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
