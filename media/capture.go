package media

import "github.com/guidepost/guidepost/media/photo"

// readCapture reads where and when the photo was taken from the original's
// metadata. It reads a few kilobytes of header, after the render has
// accepted the photo, and never fails a photo: no metadata is no capture.
func readCapture(data []byte) photo.Capture {
	f, err := photo.Sniff(data[:min(len(data), photo.SniffLen)])
	if err != nil {
		return photo.Capture{}
	}
	return photo.ReadCapture(data, f)
}
