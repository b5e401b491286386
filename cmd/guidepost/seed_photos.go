package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"math"

	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/media"
	gsql "github.com/guidepost/guidepost/sql"
)

// demoPhotoCount demo guides get a generated photo each.
const demoPhotoCount = 12

// seedDemoPhotos uploads generated photos as the demo user through the real
// upload path (S3 original, row, queued task) and attaches one to each of
// the first demo guides. The bytes depend only on the photo's number, so a
// second run finds them as duplicates and changes nothing.
func seedDemoPhotos(ctx context.Context, cfg config.Config, ownerID string, stdout io.Writer) error {
	a, err := open(ctx, cfg, newLogger(cfg, io.Discard))
	if err != nil {
		return err
	}
	defer a.Close()
	mediaSvc := a.mediaService(nil, nil, nil, false)
	guideSvc := a.guideService(gsql.NewGuides(a.db), mediaSvc, nil)
	ids, err := gsql.DemoGuideIDs(ctx, a.db, ownerID, demoPhotoCount)
	if err != nil {
		return err
	}
	for i, guideID := range ids {
		jpg := demoPhoto(i)
		sp, err := mediaSvc.Spool(bytes.NewReader(jpg))
		if err != nil {
			return fmt.Errorf("seed: demo photo %d: %w", i, err)
		}
		res, err := mediaSvc.Upload(ctx, media.UploadInput{OwnerID: ownerID, File: sp})
		sp.Close()
		if err != nil {
			return fmt.Errorf("seed: demo photo %d: %w", i, err)
		}
		mediaIDs := []string{res.Media.ID}
		if _, err := guideSvc.Update(ctx, guideID, ownerID, guides.Patch{MediaIDs: &mediaIDs}); err != nil {
			return fmt.Errorf("seed: attach demo photo %d: %w", i, err)
		}
	}
	fmt.Fprintf(stdout, "demo: %d guides have a photo (rendered by the worker once `guidepost dev` runs)\n", len(ids))
	return nil
}

// demoPhoto draws a 1600×1200 landscape: a sky gradient, a sun and hills
// whose colours and shapes vary with n.
func demoPhoto(n int) []byte {
	const w, h = 1600, 1200
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	hue := float64(n) / demoPhotoCount
	sunX, sunY := 300+float64(n*97%1000), 250+float64(n*53%200)
	for y := range h {
		for x := range w {
			fy := float64(y) / h
			c := color.RGBA{uint8(90 + 120*fy*hue), uint8(140 + 80*fy), uint8(230 - 60*fy), 255}
			if math.Hypot(float64(x)-sunX, float64(y)-sunY) < 90 {
				c = color.RGBA{255, 220, 120, 255}
			}
			ridge := 750 + 120*math.Sin(float64(x)/(180+float64(n*13))+float64(n))
			if float64(y) > ridge {
				c = color.RGBA{uint8(40 + 60*hue), uint8(110 + 40*fy), 60, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88})
	return buf.Bytes()
}
