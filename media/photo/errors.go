package photo

import "errors"

// Callers map these to HTTP statuses or job outcomes; details are wrapped
// around them, so test with errors.Is.
var (
	// ErrUnsupported: not one of the accepted formats (415 at upload).
	ErrUnsupported = errors.New("photo: unsupported format")
	// ErrTooManyPixels: the header declares more pixels than allowed (413/422);
	// raised before any pixel memory is allocated.
	ErrTooManyPixels = errors.New("photo: too many pixels")
	// ErrTooLarge: Render's input is over Options.MaxBytes (413).
	ErrTooLarge = errors.New("photo: file too large")
	// ErrCorrupt: the magic bytes matched but the file does not parse or decode.
	// Retrying will not help: a worker should not retry it.
	ErrCorrupt = errors.New("photo: corrupt image")
)
