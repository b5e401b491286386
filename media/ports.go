package media

import (
	"context"
	"io"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/idempotency"
	"github.com/guidepost/guidepost/media/photo"
)

// Store keeps the media rows. Methods answer in the guidepost error
// vocabulary: ENOTFOUND for a missing row, ECONFLICT for a second row with
// the same owner and SHA-256, EUNAVAILABLE when the database cannot be reached.
type Store interface {
	// Create inserts m once admit (when not nil) allows it, given its
	// owner's usage as of m.CreatedAt without the upload m comes from. The
	// usage is read under the per-owner lock Uploads.CreateUpload takes, so
	// no two creates, by whatever route, pass a quota together. An owner
	// whose account is deleted (or being deleted) is refused with
	// EUNAUTHORIZED in the same transaction, so no photo is added to an
	// account its purge has passed.
	Create(ctx context.Context, m Media, admit func(Usage) error) error
	Get(ctx context.Context, id string) (Media, error)
	BySHA256(ctx context.Context, ownerID, sha256 string) (Media, error)
	// Start moves an unfinished photo to processing and counts the attempt;
	// a finished one is returned unchanged.
	Start(ctx context.Context, id string, now time.Time) (Media, error)
	// Finish and Fail change only unfinished rows, so a task that runs twice
	// cannot move a photo back or overwrite the first result. Fail records
	// the reason (a label, see FailureReason) and the owner's words. Finish
	// records the marker as stored (Marker) with the other derivatives.
	Finish(ctx context.Context, id, thumbHash string, c photo.Capture, now time.Time) error
	Fail(ctx context.Context, id, reason, failure string, now time.Time) error
	// MarkerStored records the marker of a ready photo rendered before
	// markers existed; WithoutMarker lists such photos, newest first.
	MarkerStored(ctx context.Context, id string) error
	WithoutMarker(ctx context.Context, limit int) ([]string, error)
	// VariantsStored records the variants of a photo (it marks the marker
	// stored too: a marker is one of them). WithoutVariants lists the
	// ready photos rendered before variants existed, newest first: the
	// back-fill's work, resumed from the rows alone after any crash.
	VariantsStored(ctx context.Context, id string, vs []Variant) error
	WithoutVariants(ctx context.Context, limit int) ([]string, error)
	// Retry moves a failed photo back to pending as if new (no attempts, no
	// failure) and returns it. Only a failed row changes, so of two uploads
	// retrying one photo at once only one does; the other, and a photo that
	// is not failed, get ENOTFOUND.
	Retry(ctx context.Context, id string, now time.Time) (Media, error)
	// Stale lists unfinished rows not updated since before, oldest first.
	Stale(ctx context.Context, before time.Time, limit int) ([]Media, error)
	// Touch marks a row as looked after, so the next sweep skips it.
	Touch(ctx context.Context, id string, now time.Time) error
	// Existing returns which of ids have a row (deleted ones included:
	// their objects are removed by Purge, not by the orphan sweep).
	Existing(ctx context.Context, ids []string) (map[string]bool, error)
	// Usage is what an owner stores (photos, rows in any state, and the
	// bytes of their originals) and what its direct uploads open at now
	// declare, but for the upload of mediaID (may be "").
	Usage(ctx context.Context, ownerID, mediaID string, now time.Time) (Usage, error)
	// ByOwner lists an owner's photos newest first (by id), older than
	// before when it is set, at most limit.
	ByOwner(ctx context.Context, ownerID, before string, limit int) ([]Media, error)
	// GetMany returns the photos of ids that exist, in any order.
	GetMany(ctx context.Context, ids []string) ([]Media, error)

	// MarkDeleted hides a photo at once: every read but Existing answers
	// ENOTFOUND from then on, and it leaves the guides that showed it, in
	// the same transaction (their tiles are bumped when the cover changes).
	// A photo already deleted is ENOTFOUND.
	MarkDeleted(ctx context.Context, id string, now time.Time) error
	// MarkOwnerDeleted does the same for every photo of ownerID and returns
	// the ids of all its deleted photos not yet purged.
	MarkOwnerDeleted(ctx context.Context, ownerID string, now time.Time) ([]string, error)
	// Deleted lists photos deleted before before and not yet purged.
	Deleted(ctx context.Context, before time.Time, limit int) ([]string, error)
	// Purge removes the row of a deleted photo; a missing row is success.
	Purge(ctx context.Context, id string) error
}

// Usage is an account's storage, which its quotas bound.
type Usage struct {
	Photos int64
	Bytes  int64
	// Open and OpenBytes are the direct uploads open (not expired) that
	// would each add a photo, and the bytes they declared: they count
	// against the quotas until they complete or end, so uploads opened
	// together cannot pass a quota by completing together.
	Open      int64
	OpenBytes int64
}

// Limiter spends events of a Rate shared by every process (ratelimit.Redis
// implements it). Take spends n (a negative n gives them back, n == 0 only
// asks) and refuses, spending nothing, when they do not fit.
type Limiter interface {
	Take(ctx context.Context, key string, r guidepost.Rate, n int) guidepost.RateResult
}

// Keys records Idempotency-Key uses; the idempotency package owns the
// claim, and the sql package stores it for every feature.
type Keys = idempotency.Store

// KeyUse is one use of an Idempotency-Key.
type KeyUse = idempotency.Use

// Blobs is the object store. Errors use the guidepost vocabulary
// (ENOTFOUND, EUNAVAILABLE).
type Blobs interface {
	Put(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType, sha256Hex string) error
	// PutImmutable stores a derivative whose key names its content, with
	// Cache-Control: public, max-age=31536000, immutable.
	PutImmutable(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType, sha256Hex string) error
	Get(ctx context.Context, key string) (io.ReadCloser, int64, error)
	Delete(ctx context.Context, key string) error
	PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error)
	// PresignGetAt signs as of signedAt, valid until signedAt+ttl: the
	// same arguments give the same URL.
	PresignGetAt(ctx context.Context, key string, signedAt time.Time, ttl time.Duration) (string, error)
	List(ctx context.Context, prefix string, fn func(Object) error) error
	// Copy copies an object inside the store; copying again is harmless.
	Copy(ctx context.Context, src, dst string) error
}

// Object is one key the object store listed, what the orphan sweep needs
// to decide whether a row should own it.
type Object struct {
	Key          string
	LastModified time.Time
	Size         int64
}

// Queue carries derive tasks to workers. A task's id is the media id.
type Queue interface {
	// Enqueue is idempotent: a task already queued or running for id is
	// success. A finished one (archived after failing, or kept after
	// completing) is replaced, so that a photo retried after it failed runs
	// again rather than being blocked by its old task's id.
	Enqueue(ctx context.Context, mediaID string) error
	// TaskState tells the sweeper whether a photo still has a task.
	TaskState(ctx context.Context, mediaID string) (TaskState, error)
	// EnqueuePurge queues the removal of a deleted photo's objects and row.
	// It is idempotent like Enqueue; a lost one is redone by the sweeper.
	EnqueuePurge(ctx context.Context, mediaID string) error
}

// TaskState is what the queue knows of a photo's task.
type TaskState int

const (
	TaskMissing TaskState = iota // none: lost, or never queued
	TaskLive                     // waiting, running or due for a retry
	TaskDead                     // the queue gave up on it
)

// Notifier tells a photo's owner that it is finished (ready or failed),
// once the row saying so is committed, from whatever process finished it.
// Delivery is at least once at best: a duplicate run may tell twice, and
// a notification lost to an outage is not sent again.
type Notifier interface {
	PhotoFinished(ctx context.Context, ownerID, mediaID string, status Status) error
}

type noNotifier struct{}

func (noNotifier) PhotoFinished(context.Context, string, string, Status) error { return nil }

// Clock is the time source; tests move it.
type Clock = guidepost.Clock

// Observer receives the duration of each derive stage (download, render or
// its parts, upload) and how many WebPs and AVIFs each render encoded
// again to reach the JPEG's SSIM (photo.Result.Reencodes); the worker
// exports them as metrics.
type Observer interface {
	ObserveStage(stage string, d time.Duration)
	ObserveReencodes(n int)
}

type noObserver struct{}

func (noObserver) ObserveStage(string, time.Duration) {}
func (noObserver) ObserveReencodes(int)               {}

// Renderer runs photo.RenderProbed on a photo probed by the service. The
// default runs it in this process, where image/jpeg and the HEIC decoder
// cannot be interrupted; the worker runs it in a child process it can kill
// (worker.ChildRenderer). It must not return before the render's memory is
// free: the decode semaphore's weight is released when it returns.
type Renderer interface {
	Render(ctx context.Context, data []byte, info photo.Info, opts photo.Options) (photo.Result, error)
}

// InProcess renders in the calling goroutine.
type InProcess struct{}

func (InProcess) Render(ctx context.Context, data []byte, info photo.Info, opts photo.Options) (photo.Result, error) {
	return photo.RenderProbed(ctx, data, info, opts)
}

// Multipart is the object store's multipart upload, which lets a client send
// a photo straight to the store in parts and resume after a cut. Errors use
// the guidepost vocabulary; an upload the store no longer holds open
// (completed or aborted) is ENOTFOUND.
type Multipart interface {
	// CreateMultipart opens an upload; checksums: its parts will be sent
	// with their SHA-256 (Part.SHA256), which the store then verifies.
	CreateMultipart(ctx context.Context, key, contentType string, checksums bool) (uploadID string, err error)
	// PresignPart returns a URL that PUTs exactly part (its size, and its
	// SHA-256 when it has one), and the headers beyond Host and
	// Content-Length that the PUT must carry for the signature to hold.
	PresignPart(ctx context.Context, key, uploadID string, part Part, ttl time.Duration) (url string, header map[string]string, err error)
	// ListParts lists the parts held, with the SHA-256 the store verified
	// for each, if any.
	ListParts(ctx context.Context, key, uploadID string) ([]Part, error)
	// CompleteMultipart joins parts, passing their SHA-256 when they have one.
	CompleteMultipart(ctx context.Context, key, uploadID string, parts []Part) error
	AbortMultipart(ctx context.Context, key, uploadID string) error
	ListMultipart(ctx context.Context, prefix string, fn func(OpenUpload) error) error
	// Stat is a stored object's size and ETag.
	Stat(ctx context.Context, key string) (size int64, etag string, err error)
	// ReadFrom opens an object from off to its end, and tells its whole
	// size.
	ReadFrom(ctx context.Context, key string, off int64) (body io.ReadCloser, size int64, err error)
}

// Part is one part of an upload: as declared, or as the store holds it.
type Part struct {
	Number int32
	Size   int64
	ETag   string
	SHA256 string // hex; "" when none was declared (or the store has none)
}

// OpenUpload is a multipart upload the store holds open.
type OpenUpload struct {
	Key       string
	UploadID  string
	Initiated time.Time
}
