// Package media is the photo-upload feature: accepting an upload quickly
// (store the original, record the row, queue the work), deriving the web,
// thumbnail and marker JPEGs in a worker, and sweeping up after crashes so that no photo
// is lost between S3, PostgreSQL and the queue. The pixel work itself lives
// in media/photo; storage, queue and database sit behind small interfaces.
package media

import (
	"time"

	"github.com/guidepost/guidepost/media/photo"
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
	Marker        bool   // its marker image is stored (photos made ready before markers may have none)
	CreatedAt     time.Time
	UpdatedAt     time.Time
	ProcessedAt   time.Time // zero until ready or failed
	// Capture is where and when the photo was taken, read from the
	// original once it is processed; only its owner ever sees it.
	Capture photo.Capture
	// HiddenAt is set while moderation holds the photo off every public
	// surface (HiddenReason says why): only its owner finds it then, and
	// no one is given its derivatives' URLs.
	HiddenAt     time.Time
	HiddenReason string
	// Variants are the stored derivatives, nil for a photo rendered before
	// variants (it answers with its JPEGs until the back-fill renders it).
	Variants []Variant
}

// Hidden reports whether moderation holds the photo.
func (m Media) Hidden() bool { return !m.HiddenAt.IsZero() }

// View is a photo as one viewer sees it: the row plus the URLs that viewer
// may use. An empty URL means "not available" (not ready, or not theirs).
type View struct {
	Media
	// Owner: the viewer owns the photo and may see the owner-only fields
	// (SHA-256, failure detail, original URL, Capture). Anyone else sees
	// none of them.
	Owner       bool
	WebURL      string
	ThumbURL    string
	MarkerURL   string       // "" also for a ready photo whose marker is not rendered yet
	VariantURLs []VariantURL // of a ready photo, smallest first
	OriginalURL string       // the owner's only: originals keep their EXIF and GPS
}

// VariantURL is a Variant as a viewer may fetch it.
type VariantURL struct {
	Variant
	URL string
}

// Object keys are made here from the id alone, so nothing a client sends
// (a file name, a path) can ever reach a key. Originals keep their EXIF and
// GPS and live under their own prefix, apart from the derivatives: serving
// derivatives publicly (MEDIA_PUBLIC_BASE_URL, or a bucket policy on
// media/) can then never expose an original. Both prefixes start each key
// with the UUIDv7 id, so the orphan sweep lists them by time.
const (
	keyPrefix      = "media/"
	originalPrefix = "originals/"
)

func OriginalKey(id string) string { return originalPrefix + id }
func WebKey(id string) string      { return keyPrefix + id + "/web.jpg" }
func ThumbKey(id string) string    { return keyPrefix + id + "/thumb.jpg" }
func MarkerKey(id string) string   { return keyPrefix + id + "/marker.jpg" }

// legacyOriginalKey is where originals lived before they had their own
// prefix; MoveOriginals moves them, and readers fall back to it meanwhile.
func legacyOriginalKey(id string) string { return keyPrefix + id + "/original" }

// objectKeys are every key a photo may have, for deletion.
func objectKeys(id string) []string {
	return []string{OriginalKey(id), legacyOriginalKey(id), WebKey(id), ThumbKey(id), MarkerKey(id)}
}
