package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo/demophoto"
	gsql "github.com/guidepost/guidepost/sql"
)

// demoPhotoCount demo guides get a generated photo each.
const demoPhotoCount = demophoto.Count

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
		jpg := demophoto.JPEG(i)
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
