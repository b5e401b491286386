package api

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
)

// MediaService is what the media routes consume; *media.Service implements
// it. Every rule about uploads (sizes, types, pixels, duplicates, keys)
// lives there; the handlers only move bytes and JSON.
type MediaService interface {
	UploadLimit() int64
	CheckSize(declared int64) error
	AdmitUpload(ctx context.Context, ownerID string) error
	Spool(body io.Reader) (*media.Spooled, error)
	Upload(ctx context.Context, in media.UploadInput) (media.UploadResult, error)
	Get(ctx context.Context, id, viewerID string) (media.View, error)
	VariantURL(ctx context.Context, viewerID, id, variant string) (media.VariantLink, error)
	GetMany(ctx context.Context, ids []string, viewerID string) (media.Batch, error)
	Mine(ctx context.Context, ownerID string, limit *int, cursor string) (media.MinePage, error)
	Delete(ctx context.Context, id, userID string) error
}

func (s *Server) mediaRoutes(v1 *gin.RouterGroup) {
	if s.deps.Media == nil {
		// Registered anyway, so the route table matches the contract.
		off := func(c *gin.Context) {
			fail(c, guidepost.Errorf(guidepost.EUNAVAILABLE, "photos are not enabled on this server"))
		}
		v1.POST("/media", off)
		v1.GET("/media", off)
		v1.GET("/media/:id", off)
		v1.GET("/media/:id/:variant", off)
		v1.DELETE("/media/:id", off)
		return
	}
	// The upload rate and the quotas are the media service's, the same for
	// this route and the direct uploads' (media.Service.AdmitUpload).
	v1.POST("/media", s.requireUser, s.metered(guidepost.Rate{}, s.cfg.Rates.UploadRefusals, dedupeAnswer), s.uploads.admit, s.uploadMedia)
	v1.GET("/media", s.getMediaBatch)
	v1.GET("/media/:id", s.getMedia)
	v1.GET("/media/:id/:variant", s.getMediaVariant)
	v1.DELETE("/media/:id", s.requireUser, s.deleteMedia)
}

type mediaURLsJSON struct {
	Web       *string `json:"web"`
	Thumbnail *string `json:"thumbnail"`
	Marker    *string `json:"marker"`
	Original  *string `json:"original,omitempty"`
	// Variants of a ready photo, smallest first, [] otherwise: what a
	// srcset is made of. The marker is a square crop, the rest the whole
	// photo.
	Variants []variantJSON `json:"variants"`
}

type variantJSON struct {
	Kind   string `json:"kind"`
	Format string `json:"format"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	URL    string `json:"url"`
	Bytes  *int64 `json:"bytes"` // null for the JPEGs of a photo rendered before variants
}

func toVariantsJSON(vs []media.VariantURL) []variantJSON {
	out := make([]variantJSON, 0, len(vs))
	for _, v := range vs {
		j := variantJSON{Kind: v.Kind, Format: string(v.Format), Width: v.Width, Height: v.Height, URL: v.URL}
		if v.Bytes > 0 {
			j.Bytes = &v.Bytes
		}
		out = append(out, j)
	}
	return out
}

type mediaJSON struct {
	// Object tells a photo from an upload where an answer may be either
	// (POST /v1/uploads); every photo carries it, so clients need one test.
	Object      string        `json:"object"`
	ID          string        `json:"id"`
	Status      string        `json:"status"`
	ContentType string        `json:"content_type"`
	Bytes       int64         `json:"bytes"`
	Width       int           `json:"width"`
	Height      int           `json:"height"`
	ThumbHash   *string       `json:"thumbhash"`
	URLs        mediaURLsJSON `json:"urls"`
	CreatedAt   timestamp     `json:"created_at"`
	ProcessedAt *timestamp    `json:"processed_at"`
	// The owner's only; absent for anyone else.
	SHA256  *string      `json:"sha256,omitempty"`
	Failure *string      `json:"failure,omitempty"`
	Capture *captureJSON `json:"capture,omitempty"`
	// Only its owner ever sees a hidden photo.
	Hidden *holdJSON `json:"hidden,omitempty"`
}

// captureJSON is where and when the photo was taken, from its EXIF; each
// field is null when the photo does not say.
type captureJSON struct {
	TakenAt *timestamp `json:"taken_at"`
	Lat     *float64   `json:"lat"`
	Lng     *float64   `json:"lng"`
}

// toMediaJSON shows the owner-only fields to the owner alone: a view that
// is not the owner's goes through media.Public first, whatever it holds.
func toMediaJSON(v media.View) mediaJSON {
	if !v.Owner {
		v = media.Public(v)
	}
	j := mediaJSON{
		Object: "media", ID: v.ID, Status: string(v.Status), ContentType: v.ContentType, Bytes: v.Bytes,
		Width: v.Width, Height: v.Height, ThumbHash: nullable(v.ThumbHash),
		URLs: mediaURLsJSON{Web: nullable(v.WebURL), Thumbnail: nullable(v.ThumbURL), Marker: nullable(v.MarkerURL),
			Original: nullable(v.OriginalURL), Variants: toVariantsJSON(v.VariantURLs)},
		CreatedAt: timestamp(v.CreatedAt), ProcessedAt: stampOrNil(v.ProcessedAt),
	}
	if v.Hidden() {
		// Its own status, so a typed client narrowing on "ready" never
		// meets a ready photo without URLs.
		j.Status = "hidden"
		j.Hidden = &holdJSON{Reason: v.HiddenReason, HiddenAt: timestamp(v.HiddenAt)}
	}
	if v.Owner {
		j.SHA256, j.Failure = &v.SHA256, nullable(v.Failure)
		if v.Status.Finished() {
			j.Capture = toCaptureJSON(v.Capture)
		}
	}
	return j
}

func toCaptureJSON(c photo.Capture) *captureJSON {
	j := &captureJSON{TakenAt: stampOrNil(c.TakenAt)}
	if c.HasGPS {
		j.Lat, j.Lng = &c.Lat, &c.Lng
	}
	return j
}

// nullable shows an empty string as JSON null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// uploadMedia hands the multipart body's file part to the service, which
// spools and hashes it, then asks it to store the photo. A declared Content-Length over
// the limit is refused before a byte is read; an undeclared one is cut off
// by MaxBytesReader.
func (s *Server) uploadMedia(c *gin.Context) {
	svc := s.deps.Media
	err := svc.CheckSize(c.Request.ContentLength)
	if err == nil {
		err = svc.AdmitUpload(c.Request.Context(), auth.UserID(c.Request.Context()))
	}
	if err != nil {
		c.Header("Connection", "close") // the body stays unread, so the connection cannot serve another request
		fail(c, err)
		return
	}
	s.uploads.minRate(c, uploadBodyTime)
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, svc.UploadLimit())
	up, err := receiveFile(c.Request, svc)
	if err != nil {
		fail(c, err)
		return
	}
	defer up.Close()
	ctx := c.Request.Context()
	res, err := svc.Upload(ctx, media.UploadInput{
		OwnerID: auth.UserID(ctx), File: up, IdempotencyKey: c.GetHeader("Idempotency-Key"),
	})
	if err != nil {
		fail(c, err)
		return
	}
	acceptedPhoto(c, res)
}

// acceptedPhoto answers an accepted upload, from POST /v1/media or a direct
// upload's complete: 202 with the photo, or 200 with the owner's earlier
// photo of the same bytes.
func acceptedPhoto(c *gin.Context, res media.UploadResult) {
	status := http.StatusAccepted
	if res.Outcome == media.Duplicate {
		status = http.StatusOK
	}
	if res.Replayed {
		c.Header("Idempotent-Replayed", "true")
	}
	c.Header("Location", "/v1/media/"+res.ID)
	c.Header("Cache-Control", "no-store")
	c.JSON(status, toMediaJSON(res.View))
}

func (s *Server) getMedia(c *gin.Context) {
	ctx := c.Request.Context()
	v, err := s.deps.Media.Get(ctx, c.Param("id"), auth.UserID(ctx))
	if err != nil {
		fail(c, err)
		return
	}
	// Presigned URLs expire and the status moves: never cache.
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, toMediaJSON(v))
}

// deleteMedia answers 204 once the photo is gone for every reader; its
// objects are removed in the background.
func (s *Server) deleteMedia(c *gin.Context) {
	ctx := c.Request.Context()
	if err := s.deps.Media.Delete(ctx, c.Param("id"), auth.UserID(ctx)); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// receiveFile reads the multipart body: exactly one part named "file";
// other form fields are skipped, another file part is refused.
func receiveFile(r *http.Request, svc MediaService) (*media.Spooled, error) {
	mr, err := multipartReader(r)
	if err != nil {
		return nil, err
	}
	var got *media.Spooled
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			got, err = receivePart(part, got, svc)
		}
		if err != nil {
			got.Close()
			return nil, bodyError(r, err, svc)
		}
	}
	if got == nil {
		return nil, fileError(guidepost.FREQUIRED, "is required: send the photo in the multipart field \"file\"")
	}
	return got, nil
}

// receivePart spools the first "file" part, skips plain fields, and refuses
// any other file part, naming its field.
func receivePart(part *multipart.Part, got *media.Spooled, svc MediaService) (*media.Spooled, error) {
	name := part.FormName()
	switch {
	case name == "file" && got == nil:
		return svc.Spool(part)
	case name == "file":
		return got, fileError(guidepost.FDUPLICATE, "must hold exactly one file: send one photo per request")
	case part.FileName() != "":
		return got, guidepost.Invalid(guidepost.Field(name, guidepost.FUNKNOWNFIELD, "cannot hold a file: send one photo, in the field \"file\""))
	}
	_, err := io.Copy(io.Discard, part)
	return got, err
}

// ioChunk sizes the read buffer under the multipart reader (which hands
// out at most 4 KB a read): see media.Spool for the other side.
const ioChunk = 256 << 10

// multipartReader is http.Request.MultipartReader over a large read buffer.
func multipartReader(r *http.Request) (*multipart.Reader, error) {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		return nil, &guidepost.Error{Code: guidepost.EUNSUPPORTED, Message: "a photo must be sent as multipart/form-data",
			Fields: []guidepost.FieldError{guidepost.Field("Content-Type", guidepost.FUNSUPPORTED, "must be multipart/form-data")}}
	}
	return multipart.NewReader(bufio.NewReaderSize(r.Body, ioChunk), params["boundary"]), nil
}

// bodyError tells an oversized body (413), a client that went away and a
// malformed body (400) apart.
func bodyError(r *http.Request, err error, svc MediaService) error {
	var tooBig *http.MaxBytesError
	var appErr *guidepost.Error
	var fsErr *fs.PathError
	switch {
	case errors.Is(err, errBodyTooSlow):
		return guidepost.Errorf(codeBodyTimeout, "the upload stalled or arrived slower than the server's minimum rate; send it again on a better connection")
	case errors.As(err, &tooBig):
		return svc.CheckSize(tooBig.Limit + 1)
	case errors.As(err, &appErr), errors.As(err, &fsErr):
		return err // ours, or the temporary file failing: a 500
	case r.Context().Err() != nil:
		return errClientGone
	}
	return fileError(guidepost.FINVALIDFORMAT, "could not be read: the multipart body is malformed or was cut short")
}

func fileError(code, message string) error {
	return guidepost.Invalid(guidepost.Field("file", code, message))
}
