package media

import (
	"context"
	"time"
)

// Direct uploads: the client sends the photo's bytes straight to the object
// store in parts, through presigned URLs, so the API carries only metadata
// and a cut connection costs at most the part in flight. An Upload is that
// exchange's state, kept in PostgreSQL so that any API process can answer.

// UploadState is where a direct upload is.
type UploadState string

const (
	UploadOpen       UploadState = "open"       // parts may be sent
	UploadCompleting UploadState = "completing" // a complete call is running
	UploadCompleted  UploadState = "completed"  // the photo exists: MediaID
	UploadAborted    UploadState = "aborted"    // cancelled, refused or expired; nothing is stored
)

// Upload is one direct upload.
type Upload struct {
	ID       string
	OwnerID  string
	MediaID  string // the photo it becomes
	Retry    bool   // MediaID is the owner's failed photo of these bytes, tried again
	Key      string // where the store assembles the parts: MediaID's original
	StoreID  string // the store's multipart upload id
	Bytes    int64  // declared
	SHA256   string // declared, hex; the worker checks it against the bytes
	Type     string // declared content type
	PartSize int64
	// PartSHA256 is each part's SHA-256 as declared (hex, in part order),
	// or nil when the client declared none: then the part URLs sign only
	// each part's size (see UploadTicket).
	PartSHA256 []string
	State      UploadState
	Created    time.Time
	Updated    time.Time
	Expires    time.Time
}

// Parts is how many parts the upload is sent in.
func (u Upload) Parts() int32 { return int32((u.Bytes + u.PartSize - 1) / u.PartSize) }

// PartBytes is the size of part n (1-based): PartSize but for the last.
func (u Upload) PartBytes(n int32) int64 {
	return min(u.PartSize, u.Bytes-int64(n-1)*u.PartSize)
}

// PartSum is part n's declared SHA-256 (hex), "" when none was declared.
func (u Upload) PartSum(n int32) string {
	if n < 1 || int(n) > len(u.PartSHA256) {
		return ""
	}
	return u.PartSHA256[n-1]
}

// Part is the part numbered n as it was declared.
func (u Upload) Part(n int32) Part {
	return Part{Number: n, Size: u.PartBytes(n), SHA256: u.PartSum(n)}
}

// Uploads keeps direct uploads. Errors use the guidepost vocabulary.
type Uploads interface {
	// CreateUpload inserts u once admit allows it, given the owner's
	// uploads (open, and bytes declared since `since`) and its Usage as of
	// u.Created; all are read under the per-owner lock Store.Create takes,
	// so racing creates cannot pass a limit together. A deleted account is
	// EUNAUTHORIZED, as in Store.Create.
	CreateUpload(ctx context.Context, u Upload, since time.Time, admit func(UploadCounts) error) error
	// OwnerUploads lists an owner's open and completing uploads.
	OwnerUploads(ctx context.Context, ownerID string) ([]Upload, error)
	GetUpload(ctx context.Context, id string) (Upload, error)
	// ClaimUpload moves an open upload to completing, or takes over one
	// left completing since before staleBefore by a process that died.
	// Any other upload is ECONFLICT (being completed) or ENOTFOUND.
	ClaimUpload(ctx context.Context, id string, now, staleBefore time.Time) (Upload, error)
	// SetUploadState moves an upload in state from to state to, recording
	// mediaID; ENOTFOUND when it is not in from.
	SetUploadState(ctx context.Context, id string, from, to UploadState, mediaID string, now time.Time) error
	// ExpiredUploads lists open or completing uploads that expired before.
	ExpiredUploads(ctx context.Context, before time.Time, limit int) ([]Upload, error)
	// DeleteUploads forgets uploads created before, in any state.
	DeleteUploads(ctx context.Context, before time.Time) (int64, error)
}

// UploadCounts is what CreateUpload's admit judges a new upload by.
type UploadCounts struct {
	Open     int   // the owner's uploads open or completing, not expired
	DayBytes int64 // bytes its uploads declared since `since`
	Usage    Usage
}

// PartURL is where to PUT one part. For a part the store holds, ETag is
// the store's MD5 of the bytes it received; a client whose part has another
// MD5 PUTs it again to URL (see UploadTicket).
type PartURL struct {
	Number int32
	Bytes  int64
	URL    string
	// Header holds the headers signed into URL that the PUT must carry
	// (the part's SHA-256, when declared); nil when there are none.
	Header map[string]string
	ETag   string
	// Fault tells why a part the store lists is to be sent again: its
	// size, or its SHA-256, is not the declared one. "" for a part the
	// store does not hold at all.
	Fault string
}

// UploadTicket is an upload as its owner sees it: the parts the store holds
// as declared, and fresh URLs for the rest (a part listed at another size,
// or with another SHA-256 than the declared one, is among the rest).
//
// Held parts carry a URL too. S3 keeps no part whose PUT was cut off, but
// versitygw 1.8 (our S3 server in development and tests) does: it lists a
// cut part at its full size, zero-filled after the cut, with the MD5 of the
// bytes it really got as its ETag. A client that declared each part's
// SHA-256 is safe from it: each part URL signs that checksum, so the store
// itself refuses a cut or altered part and keeps nothing of it. A client
// that declared none compares each held part's ETag with its own part's
// MD5 and sends a differing one again; the worker's SHA-256 check fails a
// photo whose client did not.
type UploadTicket struct {
	Upload
	Held      []PartURL // parts the store holds, with their ETag
	Send      []PartURL // parts still to send
	URLsUntil time.Time // when the URLs expire
	Photo     *View     // once completed
}

// NewUpload is what a client declares to start a direct upload.
type NewUpload struct {
	OwnerID     string
	Bytes       int64
	SHA256      string
	ContentType string
	// PartSize is the size of every part but the last; 0 takes the
	// server's (DirectConfig.PartSize).
	PartSize int64
	// PartSHA256, when given, is each part's SHA-256 (hex), one per part
	// of PartSize: the part URLs then sign them, so the store refuses a
	// part whose bytes are not these.
	PartSHA256     []string
	IdempotencyKey string
}

// StartResult answers NewUpload: a ticket to send the parts (UploadStarted,
// or UploadResumed for the owner's open upload of these bytes), or, when
// the owner already has these bytes (Outcome Duplicate), that photo.
type StartResult struct {
	Ticket   UploadTicket
	Existing UploadResult
	Outcome  Outcome // UploadStarted or Duplicate
	Replayed bool
}

// UploadStarted: a direct upload was opened; the client sends its parts.
// UploadResumed: the owner's open upload of the same bytes, with fresh
// URLs: the client sends what is missing.
const (
	UploadStarted Outcome = "upload_started"
	UploadResumed Outcome = "upload_resumed"
)
