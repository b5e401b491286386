package media

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
)

// Spooled is an upload's body on disk, with the size and SHA-256 the
// service computed while writing it: duplicates and Idempotency-Key
// fingerprints rest on that hash, so no caller supplies it. Close removes
// the file.
type Spooled struct {
	file   *os.File
	size   int64
	sha256 string // hex
}

// ioChunk sizes the buffers on both sides of the spool. A multipart part
// hands out at most 4 KB a read; without them a 4 MB photo costs about a
// thousand read and a thousand write syscalls, which profiling showed to be
// most of an upload's CPU.
const ioChunk = 256 << 10

// Spool copies r to a temporary file, hashing it on the way, and refuses
// more than limit bytes (≤ 0: no limit) with ETOOLARGE. An error of r's own
// (a body cut short, a client gone) is returned as it is, for the caller to
// tell apart.
func Spool(r io.Reader, limit int64) (*Spooled, error) {
	f, err := os.CreateTemp("", "guidepost-upload-*")
	if err != nil {
		return nil, err
	}
	sp := &Spooled{file: f}
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	h := sha256.New()
	w := bufio.NewWriterSize(f, ioChunk)
	sp.size, err = io.Copy(io.MultiWriter(w, h), bufio.NewReaderSize(r, ioChunk))
	if err == nil {
		err = w.Flush()
	}
	if err == nil && limit > 0 && sp.size > limit {
		err = errTooLarge(limit)
	}
	if err != nil {
		return nil, errors.Join(err, sp.Close())
	}
	sp.sha256 = hex.EncodeToString(h.Sum(nil))
	return sp, nil
}

// Spool is Spool with the service's upload limit.
func (s *Service) Spool(r io.Reader) (*Spooled, error) { return Spool(r, s.cfg.MaxBytes) }

// Size is the number of bytes spooled.
func (sp *Spooled) Size() int64 { return sp.size }

// SHA256 is the hex SHA-256 of the bytes spooled.
func (sp *Spooled) SHA256() string { return sp.sha256 }

// Close removes the file; closing twice is harmless.
func (sp *Spooled) Close() error {
	if sp == nil || sp.file == nil {
		return nil
	}
	err := sp.file.Close()
	if rerr := os.Remove(sp.file.Name()); err == nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	sp.file = nil
	return err
}
