package media

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/guidepost/guidepost"
)

// Declared parts. A client may name the part size and each part's SHA-256
// when it declares a direct upload. The part URLs then sign the checksum,
// so the store itself refuses a part cut off or altered on the way and
// keeps nothing of it; a part the store lists at another size or with
// another checksum is reported missing, and completing refuses it, naming
// it, before anything is joined.

// maxPartSize is S3's largest part.
const maxPartSize = 5 << 30

// checkParts checks the declared part layout and normalises it: the part
// size defaults to the server's, and part checksums, when given, are one
// per part in lower-case hex (nil when none are).
func (s *Service) checkParts(in *NewUpload, bad *guidepost.Fields) {
	if in.PartSize == 0 {
		in.PartSize = s.cfg.Direct.PartSize
	}
	if in.PartSize < minPartSize || in.PartSize > maxPartSize {
		bad.Add("part_size", guidepost.FOUTOFRANGE, fmt.Sprintf("must be from %d (5 MiB) to %d bytes (5 GiB)", minPartSize, maxPartSize))
		return
	}
	if len(in.PartSHA256) == 0 {
		in.PartSHA256 = nil
		return
	}
	if in.Bytes <= 0 {
		return // bytes is named already; the parts cannot be counted
	}
	// Counted before each is read, so a long list costs one error.
	if n := (in.Bytes + in.PartSize - 1) / in.PartSize; int64(len(in.PartSHA256)) != n {
		bad.Add("part_sha256", guidepost.FMISMATCH,
			fmt.Sprintf("%d bytes in parts of %d bytes are %d parts: give one SHA-256 for each", in.Bytes, in.PartSize, n))
		return
	}
	sums := make([]string, len(in.PartSHA256))
	for i, sum := range in.PartSHA256 {
		sums[i] = strings.ToLower(sum)
		if b, err := hex.DecodeString(sums[i]); err != nil || len(b) != sha256.Size {
			bad.Add(fmt.Sprintf("part_sha256[%d]", i), guidepost.FINVALIDFORMAT, "must be the part's SHA-256 as 64 hexadecimal digits")
		}
	}
	in.PartSHA256 = sums
}

// fingerprint is what "the same declaration" means for an Idempotency-Key.
// One in the server's part size without part checksums keeps the shape
// fingerprints had before either could be declared, so keys held across
// an upgrade still replay.
func (s *Service) fingerprint(in NewUpload) string {
	f := fmt.Sprintf("%s/%d/%s", in.SHA256, in.Bytes, in.ContentType)
	if in.PartSize != s.cfg.Direct.PartSize || len(in.PartSHA256) > 0 {
		h := sha256.Sum256([]byte(strings.Join(in.PartSHA256, ",")))
		f += fmt.Sprintf("/%d/%x", in.PartSize, h[:8])
	}
	return f
}

// sameParts: a and b are cut in the same parts, with the same declared
// checksums (or none).
func sameParts(a, b Upload) bool {
	return a.PartSize == b.PartSize && slices.Equal(a.PartSHA256, b.PartSHA256)
}

// partFault tells how a part the store lists differs from the declared
// one; "" when it is that part. Without a declared checksum only the size
// can tell (versitygw lists a cut part at its full size: see UploadTicket).
func partFault(want, got Part) string {
	switch {
	case got.Size != want.Size:
		return fmt.Sprintf("%d bytes arrived where %d were declared", got.Size, want.Size)
	case want.SHA256 != "" && got.SHA256 != want.SHA256:
		return "the bytes that arrived do not have the declared SHA-256"
	}
	return ""
}
