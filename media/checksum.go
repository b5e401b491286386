package media

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// checkSHA256 compares the original a worker read with the SHA-256 on its
// row. POST /v1/media computes that hash from the bytes it stored; a direct
// upload only declares it, and the bytes reach the store without passing
// here, so this is where a client's wrong hash (or bytes changed on the
// way) is caught. Sending the same bytes again cannot fix a wrong hash, but
// an upload with the right one can, so the owner is asked to upload again.
func checkSHA256(data []byte, want string) error {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return &TaskError{Reason: reasonChecksum, Permanent: true, failure: failChecksum,
			Err: fmt.Errorf("the original's SHA-256 is %s, its upload declared %s", got, want)}
	}
	return nil
}
