package main

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"sync"
)

// photo is one generated JPEG of a target size, shared read-only by all
// uploads: each upload streams it without copying.
type photo struct {
	label string // "0.5MB": also the request kind suffix
	jpeg  []byte
}

// photoCache keeps generated photos for the life of the process: bench runs
// several scenarios and encoding 4 MB of noise takes a few hundred ms.
var photoCache = struct {
	sync.Mutex
	m map[int]*photo
}{m: map[int]*photo{}}

// makePhotos returns one noisy JPEG per target size in bytes. Noise keeps
// the size real: a flat image would compress to a few kB.
func makePhotos(sizes []int) []*photo {
	photoCache.Lock()
	defer photoCache.Unlock()
	out := make([]*photo, 0, len(sizes))
	for _, size := range sizes {
		p := photoCache.m[size]
		if p == nil {
			p = &photo{label: sizeLabel(size), jpeg: noisyJPEG(size)}
			photoCache.m[size] = p
		}
		out = append(out, p)
	}
	return out
}

func sizeLabel(n int) string {
	return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "MB"
}

// noisyJPEG encodes a 4:3 image sized so the file is close to target bytes:
// it measures bytes per pixel on a small sample, then corrects once.
func noisyJPEG(target int) []byte {
	const sample = 256 * 192
	bpp := float64(len(encodeNoise(256, 192, 1))) / sample
	var b []byte
	for attempt := range 2 {
		px := float64(target) / bpp
		w := max(int(math.Sqrt(px*4/3)), 16)
		h := max(w*3/4, 16)
		b = encodeNoise(w, h, uint64(attempt+2))
		if d := float64(len(b)) / float64(target); d > 0.92 && d < 1.08 {
			break
		}
		bpp = float64(len(b)) / float64(w*h)
	}
	return b
}

func encodeNoise(w, h int, seed uint64) []byte {
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	r := mrand.New(mrand.NewPCG(seed, 0x9e3779b97f4a7c15))
	for y := range h {
		row := img.Y[y*img.YStride : y*img.YStride+w]
		for x := range row {
			row[x] = uint8(x*160/w + y*40/h + r.IntN(56)) // a gradient, so it looks like something
		}
	}
	for i := range img.Cb {
		img.Cb[i] = uint8(112 + r.IntN(32))
		img.Cr[i] = uint8(112 + r.IntN(32))
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		panic(err) // writing to a bytes.Buffer cannot fail
	}
	return buf.Bytes()
}

// uploader turns a shared photo into distinct upload bodies. The server
// deduplicates a user's identical bytes, so each upload inserts a small COM
// (comment) segment after SOI holding a run nonce and a sequence number:
// the bytes differ, the pixels do not, and the big buffer is never copied.
type uploader struct {
	boundary string
	ctype    string
	nonce    string // 16 hex digits, random per process
}

func newUploader() *uploader {
	var b [8]byte
	_, _ = rand.Read(b[:])
	nonce := hex.EncodeToString(b[:])
	boundary := "guidepost-load-" + nonce
	return &uploader{boundary: boundary, ctype: "multipart/form-data; boundary=" + boundary, nonce: nonce}
}

const comPayloadLen = len("guidepost-load ") + 16 + 1 + 16

// body returns the multipart body for upload number seq and its length.
func (u *uploader) body(p *photo, seq uint64) (io.Reader, int64) {
	head := "--" + u.boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"photo-" +
		strconv.FormatUint(seq, 10) + ".jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
	tail := "\r\n--" + u.boundary + "--\r\n"
	com := u.comment(seq)
	n := int64(len(head) + len(com) + len(p.jpeg) + len(tail))
	return io.MultiReader(strings.NewReader(head), bytes.NewReader(p.jpeg[:2]), bytes.NewReader(com),
		bytes.NewReader(p.jpeg[2:]), strings.NewReader(tail)), n
}

// raw returns the photo's bytes for upload number seq, with the same COM
// segment as body, for a client that sends the file itself.
func (u *uploader) raw(p *photo, seq uint64) []byte {
	com := u.comment(seq)
	out := make([]byte, 0, len(p.jpeg)+len(com))
	out = append(out, p.jpeg[:2]...)
	out = append(out, com...)
	return append(out, p.jpeg[2:]...)
}

// comment builds the COM segment: FF FE, a big-endian length that counts
// itself, then the payload.
func (u *uploader) comment(seq uint64) []byte {
	seg := make([]byte, 4, 4+comPayloadLen)
	seg[0], seg[1] = 0xFF, 0xFE
	binary.BigEndian.PutUint16(seg[2:], uint16(2+comPayloadLen))
	seg = append(seg, "guidepost-load "...)
	seg = append(seg, u.nonce...)
	seg = append(seg, ' ')
	seg = fmt.Appendf(seg, "%016x", seq)
	return seg
}
