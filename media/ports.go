package media

import (
	"context"
	"io"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

// Store keeps the media rows. Methods answer in the guidepost error
// vocabulary: ENOTFOUND for a missing row, ECONFLICT for a second row with
// the same owner and SHA-256, EUNAVAILABLE when the database cannot be reached.
type Store interface {
	Create(ctx context.Context, m Media) error
	Get(ctx context.Context, id string) (Media, error)
	BySHA256(ctx context.Context, ownerID, sha256 string) (Media, error)
	// Start moves an unfinished photo to processing and counts the attempt;
	// a finished one is returned unchanged.
	Start(ctx context.Context, id string, now time.Time) (Media, error)
	// Finish and Fail change only unfinished rows, so a task that runs twice
	// cannot move a photo back or overwrite the first result. Fail records
	// the reason (a label, see FailureReason) and the owner's words.
	Finish(ctx context.Context, id, thumbHash string, now time.Time) error
	Fail(ctx context.Context, id, reason, failure string, now time.Time) error
	// Retry moves a failed photo back to pending as if new (no attempts, no
	// failure) and returns it. Only a failed row changes, so of two uploads
	// retrying one photo at once only one does; the other, and a photo that
	// is not failed, get ENOTFOUND.
	Retry(ctx context.Context, id string, now time.Time) (Media, error)
	// Stale lists unfinished rows not updated since before, oldest first.
	Stale(ctx context.Context, before time.Time, limit int) ([]Media, error)
	// Touch marks a row as looked after, so the next sweep skips it.
	Touch(ctx context.Context, id string, now time.Time) error
	// Existing returns which of ids have a row.
	Existing(ctx context.Context, ids []string) (map[string]bool, error)
}

// Keys records Idempotency-Key uses.
type Keys interface {
	// Claim reserves key for this request unless another use holds it; it
	// then returns that use instead (claimed false). An expired record, or
	// an in-flight one abandoned before staleBefore with the same
	// fingerprint, is taken over.
	Claim(ctx context.Context, k KeyUse, staleBefore, expiredBefore time.Time) (held KeyUse, claimed bool, err error)
	// Complete records how the claimed use ended, for replays. Complete and
	// Release act only on the claim k itself made (its At is the claim's
	// token): once a request outlives KeyLease, another may take its key
	// over, and the stale one must not overwrite or free the new claim.
	// Complete then answers ECONFLICT; Release does nothing.
	Complete(ctx context.Context, k KeyUse) error
	// Release forgets an in-flight claim whose request failed, so the client
	// may retry with the same key.
	Release(ctx context.Context, k KeyUse) error
	DeleteExpired(ctx context.Context, before time.Time) (int64, error)
}

// KeyUse is one use of an Idempotency-Key.
type KeyUse struct {
	OwnerID     string
	Scope       string
	Key         string
	Fingerprint string
	Done        bool
	Outcome     Outcome   // when Done
	ResourceID  string    // when Done
	At          time.Time // when claimed; identifies the claim
}

// Blobs is the object store. Errors use the guidepost vocabulary
// (ENOTFOUND, EUNAVAILABLE).
type Blobs interface {
	Put(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType, sha256Hex string) error
	Get(ctx context.Context, key string) (io.ReadCloser, int64, error)
	Delete(ctx context.Context, key string) error
	PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error)
	// PresignGetAt signs as of signedAt, valid until signedAt+ttl: the
	// same arguments give the same URL.
	PresignGetAt(ctx context.Context, key string, signedAt time.Time, ttl time.Duration) (string, error)
	List(ctx context.Context, prefix string, fn func(Object) error) error
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
}

// TaskState is what the queue knows of a photo's task.
type TaskState int

const (
	TaskMissing TaskState = iota // none: lost, or never queued
	TaskLive                     // waiting, running or due for a retry
	TaskDead                     // the queue gave up on it
)

// Clock is the time source; tests move it.
type Clock = guidepost.Clock

// Observer receives the duration of each derive stage (download, render or
// its parts, upload); the worker exports them as metrics.
type Observer interface {
	ObserveStage(stage string, d time.Duration)
}

type noObserver struct{}

func (noObserver) ObserveStage(string, time.Duration) {}

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
