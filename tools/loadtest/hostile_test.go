package main

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"testing"
	"time"
)

// The scan bomb is a JPEG Go decodes (so the server accepts it as a photo),
// and each repeated scan costs a full walk of the picture.
func TestScanBombDecodesAndCostsPerScan(t *testing.T) {
	small := scanBombJPEG(4000, 3000, 1)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(small))
	if err != nil || cfg.Width != 4000 || cfg.Height != 3000 {
		t.Fatalf("config %+v %v", cfg, err)
	}
	img, err := jpeg.Decode(bytes.NewReader(withNonce(small, "guidepost-load abuse 1")))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 4000 {
		t.Fatalf("bounds %v", img.Bounds())
	}
	big := scanBombJPEG(4000, 3000, 100)
	if len(big) > len(small)+100*40 {
		t.Fatalf("100 scans take %d bytes: each should be a few", len(big)-len(small))
	}
	start := time.Now()
	if _, err := jpeg.Decode(bytes.NewReader(big)); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, 100 scans: decoded in %v", len(big), time.Since(start))
}

func TestInflateBombIsAValidPNG(t *testing.T) {
	b := inflateBombPNG(2000, 2000)
	cfg, err := png.DecodeConfig(bytes.NewReader(withNonce(b, "n")))
	if err != nil || cfg.Width != 2000 {
		t.Fatalf("%+v %v", cfg, err)
	}
	if _, _, err := image.Decode(bytes.NewReader(withNonce(b, "nonce 2"))); err != nil {
		t.Fatal(err)
	}
	if len(b) > 20_000 {
		t.Fatalf("%d bytes for 4 MP of black", len(b))
	}
}
