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
	// ErrTooComplex: the file is coded in a way no camera or encoder writes
	// and that would make decoding it cost far more than its pixel count
	// says (a JPEG with thousands of scans); refused like a corrupt file.
	ErrTooComplex = errors.New("photo: too complex to decode")
	// ErrCorrupt: the magic bytes matched but the file does not parse or decode.
	// Retrying will not help: a worker should not retry it.
	ErrCorrupt = errors.New("photo: corrupt image")
)
