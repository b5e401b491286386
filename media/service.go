package media

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/semaphore"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/idempotency"
	"github.com/guidepost/guidepost/media/photo"
)

// Config holds the feature's limits and timings; DefaultConfig has every
// default, and New fills a zero field from it.
type Config struct {
	MaxBytes   int64         // largest upload body (25 MiB)
	MaxPixels  int64         // photo.DefaultMaxPixels (50 MP)
	PublicBase string        // when set, derivative URLs are plain URLs under it
	URLTTL     time.Duration // lifetime of an original's presigned URL (15 min); derivatives see StableURLWindow
	KeyTTL     time.Duration // how long an Idempotency-Key replays (24 h)
	// KeyLease is how long an in-flight key blocks repeats (409) before it
	// counts as abandoned by a crashed server and may be taken over.
	KeyLease time.Duration // 1 min
	// PendingAge: an unfinished photo untouched this long is checked by the
	// sweeper for a live task (5 min).
	PendingAge time.Duration
	// OrphanAge: an original with no row this old is deleted (24 h); younger
	// ones may belong to an upload still writing its row.
	OrphanAge time.Duration
	// OrphanLookback bounds how far back past OrphanAge a sweep lists keys
	// (48 h), so a sweep costs a few days of uploads, not the whole bucket.
	OrphanLookback time.Duration
	// OrphanFullEvery spaces the sweeps that list every original and go by
	// its last-modified time (24 h), which find an orphan under any key.
	OrphanFullEvery time.Duration
	// RenderSlots sizes the decode semaphore at slotMiB a slot: a render
	// takes a weight in proportion to the memory it needs, so memory, not
	// task count, is what the semaphore bounds. Set it from
	// WORKER_CONCURRENCY.
	RenderSlots int
	// MaxAttempts caps how often a worker may start on one photo; a photo
	// that crashes its worker every time is failed instead of looping.
	MaxAttempts int
	// QuotaPhotos and QuotaBytes bound what one account stores (5,000
	// photos, 10 GiB of originals); see checkQuota.
	QuotaPhotos int64
	QuotaBytes  int64
	// Formats are the encodings every derivative is rendered in
	// (MEDIA_FORMATS; photo.DefaultEncodings). JPEG is always one.
	Formats []photo.Encoding
	Direct  DirectConfig
	// UploadRate (RATE_UPLOADS_PER_USER) counts each account's accepted
	// uploads in Deps.Limiter (see limits.go); a zero Rate, or no Limiter,
	// limits nothing.
	UploadRate guidepost.Rate
}

// DirectConfig bounds direct uploads.
type DirectConfig struct {
	// PartSize is the size of every part but the last (5 MiB, the store's
	// minimum): a cut connection costs at most this much to send again.
	PartSize int64
	TTL      time.Duration // an upload not completed by then is aborted (24 h)
	URLTTL   time.Duration // lifetime of a part URL (1 h); GET gives fresh ones
	MaxOpen  int           // uploads open at once per account (10)
	DayBytes int64         // bytes an account may declare per 24 h (2 GiB)
	// CompleteLease: a complete call unfinished this long belongs to a
	// process that died, and another may take it over (1 min).
	CompleteLease time.Duration
}

// DefaultConfig is the feature's configuration with every default: the
// numbers config.Parse starts from.
func DefaultConfig() Config {
	return Config{
		MaxBytes:        25 << 20,
		MaxPixels:       photo.DefaultMaxPixels,
		URLTTL:          15 * time.Minute,
		KeyTTL:          idempotency.DefaultConfig().TTL,
		KeyLease:        idempotency.DefaultConfig().Lease,
		PendingAge:      5 * time.Minute,
		OrphanAge:       24 * time.Hour,
		OrphanLookback:  48 * time.Hour,
		OrphanFullEvery: 24 * time.Hour,
		RenderSlots:     1,
		MaxAttempts:     15,
		QuotaPhotos:     5000,
		QuotaBytes:      10 << 30,
		Formats:         slices.Clone(photo.DefaultEncodings),
		Direct: DirectConfig{
			PartSize:      minPartSize,
			TTL:           24 * time.Hour,
			URLTTL:        time.Hour,
			MaxOpen:       10,
			DayBytes:      2 << 30,
			CompleteLease: time.Minute,
		},
		UploadRate: guidepost.Rate{Name: "upload", Count: 120, Period: time.Hour},
	}
}

// withDefaults fills every zero field from DefaultConfig but the rate,
// whose zero means none.
func (c Config) withDefaults() Config {
	def := DefaultConfig()
	guidepost.Default(&c.MaxBytes, def.MaxBytes)
	guidepost.Default(&c.MaxPixels, def.MaxPixels)
	guidepost.Default(&c.URLTTL, def.URLTTL)
	guidepost.Default(&c.KeyTTL, def.KeyTTL)
	guidepost.Default(&c.KeyLease, def.KeyLease)
	guidepost.Default(&c.PendingAge, def.PendingAge)
	guidepost.Default(&c.OrphanAge, def.OrphanAge)
	guidepost.Default(&c.OrphanLookback, def.OrphanLookback)
	guidepost.Default(&c.OrphanFullEvery, def.OrphanFullEvery)
	guidepost.Default(&c.RenderSlots, def.RenderSlots)
	guidepost.Default(&c.MaxAttempts, def.MaxAttempts)
	guidepost.Default(&c.QuotaPhotos, def.QuotaPhotos)
	guidepost.Default(&c.QuotaBytes, def.QuotaBytes)
	d, dd := &c.Direct, def.Direct
	d.PartSize = max(d.PartSize, dd.PartSize) // the default is the store's minimum
	guidepost.Default(&d.TTL, dd.TTL)
	guidepost.Default(&d.URLTTL, dd.URLTTL)
	guidepost.Default(&d.CompleteLease, dd.CompleteLease)
	guidepost.Default(&d.MaxOpen, dd.MaxOpen)
	guidepost.Default(&d.DayBytes, dd.DayBytes)
	return c
}

// minPartSize is S3's smallest part but the last.
const minPartSize = 5 << 20

// slotMiB is the render memory, in MiB, that one RenderSlots slot allows;
// the semaphore counts MiB of photo.Info.RenderMemory. 400 MiB is what the
// costliest common photo needs (a 12 MP HEIC through WebAssembly, ~330 MiB;
// a 24 MP progressive JPEG, ~300 MiB), so each slot can always render one
// photo, and a 12 MP baseline JPEG (~70 MiB) leaves room for others. At
// WORKER_CONCURRENCY=2 renders hold at most 800 MiB, which with the Go
// runtime and the buffers of tasks downloading or uploading keeps a worker
// near 1 GB; a 48 MP HEIC (~1.3 GB estimated, ~1 GB measured) takes the
// whole budget and renders alone.
const slotMiB = 400

// renderBudget is the decode semaphore's capacity, in MiB.
func (s *Service) renderBudget() int64 { return int64(s.cfg.RenderSlots) * slotMiB }

// Deps are the services the feature consumes.
type Deps struct {
	Store    Store
	Keys     Keys
	Blobs    Blobs
	Queue    Queue
	Clock    Clock
	Observer Observer // optional
	Renderer Renderer // optional: InProcess
	Notifier Notifier // optional: the worker's tells owners that photos finished
	// Uploads and Multipart serve direct uploads; without them (the worker)
	// those calls answer EUNAVAILABLE.
	Uploads   Uploads
	Multipart Multipart
	// Blocks (optional) hides the photos of users a viewer blocks.
	Blocks Blocks
	// Limiter (optional) counts Config.UploadRate, shared by every API
	// process; nil: uploads are not rate limited.
	Limiter Limiter
	// Log receives the feature's lines; lines logged with a request's
	// context carry its request_id. Nil discards.
	Log *slog.Logger
}

// Service implements uploads, reads, derivation and sweeping.
type Service struct {
	deps   Deps
	cfg    Config
	render *semaphore.Weighted
	newID  func() (uuid.UUID, error)

	mu            sync.Mutex
	orphansDoneTo time.Time // ids made before this were checked for orphans
	orphansFullAt time.Time // when every original was last checked
}

// New builds the service.
func New(deps Deps, cfg Config) *Service {
	cfg = cfg.withDefaults()
	if deps.Observer == nil {
		deps.Observer = noObserver{}
	}
	if deps.Renderer == nil {
		deps.Renderer = InProcess{}
	}
	if deps.Notifier == nil {
		deps.Notifier = noNotifier{}
	}
	deps.Log = guidepost.Logger(deps.Log)
	s := &Service{deps: deps, cfg: cfg, newID: uuid.NewV7}
	s.render = semaphore.NewWeighted(s.renderBudget())
	return s
}

// UploadLimit is the largest body an upload may have.
func (s *Service) UploadLimit() int64 { return s.cfg.MaxBytes }

// CheckSize refuses a declared body size over the limit before a byte is
// read; a negative size means "not declared".
func (s *Service) CheckSize(declared int64) error {
	if declared > s.cfg.MaxBytes {
		return errTooLarge(s.cfg.MaxBytes)
	}
	return nil
}

// Get returns a photo as viewerID (may be "") sees it.
func (s *Service) Get(ctx context.Context, id, viewerID string) (View, error) {
	m, err := s.readable(ctx, id, viewerID, true)
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, m, viewerID)
}

// readable loads a photo viewerID may read: not hidden (unless the viewer
// owns it and ownerSeesHidden) and not of someone the viewer blocks, both
// answered as a photo that does not exist.
func (s *Service) readable(ctx context.Context, id, viewerID string, ownerSeesHidden bool) (Media, error) {
	m, err := s.deps.Store.Get(ctx, id)
	if err != nil {
		return Media{}, err
	}
	if m.Hidden() && !(ownerSeesHidden && visibleTo(m, viewerID)) {
		return Media{}, errHidden
	}
	set, err := s.blocked(ctx, viewerID)
	if err != nil {
		return Media{}, err
	}
	if set.Has(m.OwnerID) {
		return Media{}, errHiddenPhoto
	}
	return m, nil
}

// errHidden is what anyone but the owner hears of a photo moderation holds:
// the same as of a photo that does not exist.
var errHidden = guidepost.Errorf(guidepost.ENOTFOUND, "media not found")

// visibleTo reports whether viewerID may see m at all: a hidden photo is
// its owner's alone.
func visibleTo(m Media, viewerID string) bool {
	return !m.Hidden() || viewerID != "" && viewerID == m.OwnerID
}

// view adds the URLs. Presigning is local computation, no request to S3.
func (s *Service) view(ctx context.Context, m Media, viewerID string) (View, error) {
	v := View{Media: m}
	if words := failureWords[m.FailureReason]; m.Status == StatusFailed && words != "" {
		// The words of today, also for photos that failed under older ones.
		v.Failure = words
	}
	var err error
	// A hidden photo's derivatives are withheld from everyone, its owner
	// too: a URL handed out could be passed on.
	if m.Status == StatusReady && !m.Hidden() {
		if err := s.addURLs(ctx, &v); err != nil {
			return View{}, err
		}
	}
	if viewerID != "" && viewerID == m.OwnerID {
		v.Owner = true
		// Always presigned: the original keeps EXIF and GPS, so it is never
		// under a public base.
		if v.OriginalURL, err = s.deps.Blobs.PresignGet(ctx, OriginalKey(m.ID), s.cfg.URLTTL); err != nil {
			return View{}, err
		}
	}
	return v, nil
}

// Public is what anyone but the owner may see of a photo: the owner-only
// fields are blanked, so that no view handed to another feature (a guide)
// can carry them by mistake.
func Public(v View) View {
	v.Owner, v.SHA256, v.Failure, v.FailureReason, v.OriginalURL = false, "", "", "", ""
	v.Capture = photo.Capture{}
	return v
}

// StableURLWindow is how long a derivative's URL stays the same: it is
// signed as of the start of the current window and valid for two, so the
// URL handed out at any moment works for at least one more window.
const StableURLWindow = time.Hour

// publicURL is a derivative's URL: under PublicBase when configured, else
// presigned as of the hour, so the same photo has the same URL all hour
// (a URL signed per answer would change every second and defeat every
// cache between S3 and the phone). Never used for originals.
func (s *Service) publicURL(ctx context.Context, key string) (string, error) {
	if s.cfg.PublicBase != "" {
		return s.cfg.PublicBase + "/" + key, nil
	}
	u, _, err := s.presignStable(ctx, key, s.deps.Clock.Now())
	return u, err
}

// presignStable signs key as of the start of now's StableURLWindow, valid
// for two windows; until is when the URL stops working.
func (s *Service) presignStable(ctx context.Context, key string, now time.Time) (u string, until time.Time, err error) {
	at := now.UTC().Truncate(StableURLWindow)
	u, err = s.deps.Blobs.PresignGetAt(ctx, key, at, 2*StableURLWindow)
	return u, at.Add(2 * StableURLWindow), err
}

// addURLs fills a ready photo's URLs: every variant's, and the JPEG
// fields that predate them.
func (s *Service) addURLs(ctx context.Context, v *View) error {
	vs := variantsOf(v.Media)
	v.VariantURLs = make([]VariantURL, 0, len(vs))
	for _, x := range vs {
		u, err := s.publicURL(ctx, x.Key)
		if err != nil {
			return err
		}
		v.VariantURLs = append(v.VariantURLs, VariantURL{Variant: x, URL: u})
		if x.Format != photo.EncodingJPEG {
			continue
		}
		switch x.Kind {
		case KindWeb:
			v.WebURL = u
		case KindThumb:
			v.ThumbURL = u
		case KindMarker:
			v.MarkerURL = u
		}
	}
	return nil
}

// WithURLs lets other features (guides) show a ready photo without knowing
// how URLs are made. A URL that cannot be made is left "": the photo then
// shows by its ThumbHash alone.
func (s *Service) WithURLs(ctx context.Context, v View) View {
	if v.Status == StatusReady {
		s.addURLs(ctx, &v)
	}
	return v
}

// CoverURLs are what a list shows of a guide's cover: little enough that a
// 40-item answer stays within 1.3× of what it was before covers had
// markers and variants (README, "Lists and search"). A presigned URL is
// ~400 bytes, a signature of its own that no encoding shares: a list
// carries one (the thumbnail, as before), and names the marker by its
// short API path (VariantPath), which redirects to a presigned URL. Under
// a public base the marker's URL is the object's, in the folder every
// variant is in.
type CoverURLs struct {
	Thumbnail string // the JPEG thumbnail, as before variants
	// Marker is the JPEG marker crop's URL under a public base, else its
	// API path (/v1/media/{id}/marker.jpg, relative to the API's base);
	// "" for a photo rendered before variants.
	Marker string
	// Formats are the encodings each kind is stored in, when the marker
	// is given: every variant's URL is then the marker's with its file
	// name replaced by <kind>.<ext>, so a client builds a srcset from
	// them.
	Formats []photo.Encoding
}

// CoverURLs are the list URLs of a ready photo rendered with variants
// (nil for one rendered before, under its old fixed names).
func (s *Service) CoverURLs(ctx context.Context, id string, variants []Variant) CoverURLs {
	m := Media{ID: id, Variants: variants}
	var out CoverURLs
	if variants == nil {
		out.Thumbnail, _ = s.publicURL(ctx, ThumbKey(id))
		return out
	}
	out.Thumbnail, _ = s.publicURL(ctx, jpegKey(m, KindThumb))
	key := jpegKey(m, KindMarker)
	switch {
	case key == "":
	case s.cfg.PublicBase == "":
		// The API path finds any variant by kind and format, wherever
		// its object lies.
		out.Formats = encodingsOf(variants)
		out.Marker = VariantPath(id, KindMarker, photo.EncodingJPEG)
	default:
		if out.Formats = sharedFormats(key, variants); out.Formats != nil {
			out.Marker, _ = s.publicURL(ctx, key)
		}
	}
	return out
}

// encodingsOf are the encodings variants are stored in, in their order.
func encodingsOf(variants []Variant) []photo.Encoding {
	var out []photo.Encoding
	for _, v := range variants {
		if !slices.Contains(out, v.Format) {
			out = append(out, v.Format)
		}
	}
	return out
}

// sharedFormats are the encodings of variants when every one of them
// lies beside marker (the key of the marker's JPEG) as <kind>.<ext>, nil
// otherwise.
func sharedFormats(marker string, variants []Variant) []photo.Encoding {
	dir := marker[:strings.LastIndexByte(marker, '/')+1]
	var out []photo.Encoding
	for _, v := range variants {
		// v.Key == dir+v.Kind+"."+ext, without building it for every
		// variant of every item of every list answer.
		name, ok := strings.CutPrefix(v.Key, dir)
		if !ok || !strings.HasPrefix(name, v.Kind) || name[len(v.Kind):] != "."+v.Format.Ext() {
			return nil
		}
		if !slices.Contains(out, v.Format) {
			out = append(out, v.Format)
		}
	}
	return out
}
