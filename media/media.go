// Package media is the photo-upload feature: accepting an upload quickly
// (store the original, record the row, queue the work), deriving the web and
// thumbnail JPEGs in a worker, and sweeping up after crashes so that no photo
// is lost between S3, PostgreSQL and the queue. The pixel work itself lives
// in media/photo; storage, queue and database sit behind small interfaces.
package media

import (
	"time"
)

// Status is where a photo is in its life.
type Status string

const (
	StatusPending    Status = "pending"    // stored and queued, not started
	StatusProcessing Status = "processing" // a worker has started on it
	StatusReady      Status = "ready"      // derivatives exist
	StatusFailed     Status = "failed"     // it will never be ready; Failure says why
)

// Finished reports whether no more work will happen on a photo in s.
func (s Status) Finished() bool { return s == StatusReady || s == StatusFailed }

// Media is one uploaded photo, as stored.
type Media struct {
	ID            string
	OwnerID       string
	Status        Status
	ContentType   string // of the original, from its magic bytes
	Bytes         int64  // of the original
	Width         int    // displayed size: after EXIF orientation
	Height        int
	SHA256        string // hex, of the original, computed by the server
	ThumbHash     string // base64, once ready
	Failure       string // words for the user, once failed
	FailureReason string // its label (corrupt, gave_up, …): can a re-upload help?
	Attempts      int    // times a worker started on it
	CreatedAt     time.Time
	UpdatedAt     time.Time
	ProcessedAt   time.Time // zero until ready or failed
}

// View is a photo as one viewer sees it: the row plus the URLs that viewer
// may use. An empty URL means "not available" (not ready, or not theirs).
type View struct {
	Media
	WebURL      string
	ThumbURL    string
	OriginalURL string // the owner's only: originals keep their EXIF and GPS
}

// Object keys are made here from the id alone, so nothing a client sends
// (a file name, a path) can ever reach a key.
const keyPrefix = "media/"

func OriginalKey(id string) string { return keyPrefix + id + "/original" }
func WebKey(id string) string      { return keyPrefix + id + "/web.jpg" }
func ThumbKey(id string) string    { return keyPrefix + id + "/thumb.jpg" }
