package media

import (
	"context"
	"errors"
	"fmt"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media/photo"
)

// Upload refusals. Each names the field at fault so a client can point at
// it; api/ maps the codes to 400/413/415/422.
func errTooLarge(limit int64) error {
	return &guidepost.Error{
		Code:    guidepost.ETOOLARGE,
		Message: fmt.Sprintf("the upload is larger than the limit of %d MiB", limit>>20),
		Fields:  []guidepost.FieldError{{Field: "file", Code: guidepost.FTOOLARGE, Message: fmt.Sprintf("must be at most %d bytes", limit)}},
	}
}

func errEmptyFile() error {
	return guidepost.Invalid(guidepost.Field("file", guidepost.FREQUIRED, "must not be empty"))
}

func errUnsupported(cause error) error {
	return &guidepost.Error{
		Code:    guidepost.EUNSUPPORTED,
		Message: "the file is not a JPEG, PNG, WebP or HEIC photo",
		Fields:  []guidepost.FieldError{{Field: "file", Code: guidepost.FUNSUPPORTED, Message: "must be a JPEG, PNG, WebP or HEIC photo"}},
		Err:     cause,
	}
}

func errUnprocessable(field, code, message string, cause error) error {
	return &guidepost.Error{
		Code:    guidepost.EUNPROCESSABLE,
		Message: field + ": " + message,
		Fields:  []guidepost.FieldError{{Field: field, Code: code, Message: message}},
		Err:     cause,
	}
}

// probeRefusal answers a photo.Probe error at upload (POST /v1/media, or a
// direct upload's complete) with what the header shows is wrong; any other
// error is returned as it is.
func probeRefusal(err error) error {
	switch {
	case errors.Is(err, photo.ErrTooManyPixels):
		return errUnprocessable("file", guidepost.FTOOLARGE, "must have at most 50 megapixels", err)
	case errors.Is(err, photo.ErrCorrupt):
		return errUnprocessable("file", guidepost.FINVALIDFORMAT, "is not a readable image: its header is damaged; open it in your photo app and "+reexport, err)
	case errors.Is(err, photo.ErrTooComplex):
		return errUnprocessable("file", guidepost.FUNSUPPORTED, "is coded with more scans than any camera or photo app writes, "+
			"too costly to read: export it again as a standard JPEG", err)
	case errors.Is(err, photo.ErrUnsupported):
		return errUnsupported(err)
	}
	return err
}

// TaskError is a derive failure. Permanent ones will fail the same way on
// every retry (the photo itself is bad), so the worker must not retry them;
// the others (storage, database) should be retried with backoff.
type TaskError struct {
	Reason    string // a metrics label: corrupt, unavailable, …
	Permanent bool
	Err       error
	failure   string // for the owner, when Permanent
}

func (e *TaskError) Error() string { return "derive: " + e.Reason + ": " + e.Err.Error() }
func (e *TaskError) Unwrap() error { return e.Err }

// FailureReason is the metrics label of a derive error.
func FailureReason(err error) string {
	var te *TaskError
	switch {
	case errors.As(err, &te):
		return te.Reason
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled"
	}
	return "internal"
}

// IsPermanent reports whether retrying err cannot help.
func IsPermanent(err error) bool {
	var te *TaskError
	return errors.As(err, &te) && te.Permanent
}

// Failure messages are shown to the photo's owner, so they speak of the
// photo, not of decoders, and say what will work: where the bytes are at
// fault, uploading them again fails the same way (reuploadHelps).
const (
	reexport = "export it again as a JPEG or PNG"

	failCorrupt   = "The photo could not be read: the file is damaged or incomplete, so uploading the same file again will fail the same way. Open it in your photo app and " + reexport + ", then upload that copy."
	failFormat    = "This file is not a photo we can read. Please upload a JPEG, PNG, WebP or HEIC photo."
	failPixels    = "The photo has more than 50 megapixels. Export a smaller copy from your photo app and upload that."
	failSize      = "The file is too large. Please upload a smaller photo."
	failMissing   = "The uploaded file was lost before it could be processed. Please upload it again."
	failGaveUp    = "We could not process this photo. Please upload it again."
	failComplex   = "The photo is coded in a way that takes too long or too much memory to read. Please export it again as a standard JPEG, PNG or HEIC."
	failChecksum  = "The photo's bytes do not match the SHA-256 its upload declared: the file changed or was damaged on the way. Please upload it again."
	reasonGaveUp  = "gave_up"
	reasonMissing = "missing_original"
	// reasonChecksum: a direct upload's declared SHA-256 is not its bytes'.
	reasonChecksum = "checksum_mismatch"

	reasonCorrupt     = "corrupt"
	reasonUnsupported = "unsupported"
	reasonPixels      = "too_many_pixels"
	reasonSize        = "too_large"
	reasonComplex     = "too_complex"
)

// failureWords is what the owner reads for each permanent reason.
var failureWords = map[string]string{
	reasonCorrupt: failCorrupt, reasonUnsupported: failFormat, reasonPixels: failPixels,
	reasonSize: failSize, reasonComplex: failComplex, reasonChecksum: failChecksum,
	reasonMissing: failMissing, reasonGaveUp: failGaveUp,
}

// reuploadHelps reports whether uploading the same bytes again can make a
// photo that failed for reason ready. The photo's own faults would only
// fail again; the others (the worker gave up during an outage, the
// original was lost, or a reason this version does not know) lay outside
// the bytes, and the owner was asked to upload the photo again.
func reuploadHelps(reason string) bool {
	switch reason {
	case reasonCorrupt, reasonUnsupported, reasonPixels, reasonSize, reasonComplex:
		return false
	}
	return true
}

// classifyRender turns a photo pipeline error into a task error. ctx errors
// stay transient: the worker is stopping, the photo is fine.
func classifyRender(err error) *TaskError {
	permanent := func(reason, failure string) *TaskError {
		return &TaskError{Reason: reason, Permanent: true, Err: err, failure: failure}
	}
	switch {
	case errors.Is(err, photo.ErrCorrupt):
		return permanent(reasonCorrupt, failCorrupt)
	case errors.Is(err, photo.ErrUnsupported):
		return permanent(reasonUnsupported, failFormat)
	case errors.Is(err, photo.ErrTooManyPixels):
		return permanent(reasonPixels, failPixels)
	case errors.Is(err, photo.ErrTooLarge):
		return permanent(reasonSize, failSize)
	case errors.Is(err, photo.ErrTooComplex):
		return permanent(reasonComplex, failComplex)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &TaskError{Reason: "canceled", Err: err}
	}
	// An unknown render error is most likely a bug on our side: retry it,
	// and the retry limit turns it into a failure if it persists.
	return &TaskError{Reason: "internal", Err: err}
}

// transient wraps a storage or database error met during a task.
func transient(err error) *TaskError {
	reason := "internal"
	switch guidepost.ErrorCode(err) {
	case guidepost.EUNAVAILABLE:
		reason = "unavailable"
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		reason = "canceled"
	}
	return &TaskError{Reason: reason, Err: err}
}
