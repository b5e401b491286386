package media_test

import (
	"context"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/media"
	gsql "github.com/guidepost/guidepost/sql"
)

// A direct upload times every step of create and complete once, so
// uploadbench can place the time above its floor (the store calls alone)
// step by step.
func TestDirectUploadTimesEachStep(t *testing.T) {
	d := newDirect(t, media.Config{})
	reg := prometheus.NewRegistry()
	d.svc = media.New(media.Deps{
		Store: gsql.NewMedia(d.db), Keys: gsql.NewIdempotencyKeys(d.db), Blobs: d.s3, Queue: d.queue, Clock: d.clock,
		Uploads: gsql.NewUploads(d.db), Multipart: d.s3, Limiter: d.limiter, Observer: media.NewStepTimes(reg),
	}, media.Config{})
	data := photo(t, "orient-6.jpg")
	tk := d.start(declare(alice, data, "image/jpeg"))
	d.sendAll(tk, data)
	if _, err := d.svc.CompleteUpload(context.Background(), tk.ID, alice); err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() == "guidepost_direct_upload_step_seconds" {
				counts[m.GetLabel()[0].GetValue()] = m.GetHistogram().GetSampleCount()
			}
		}
	}
	want := []string{"create.db_lookup", "create.rate", "create.s3_create", "create.db_insert", "create.presign",
		"complete.db_claim", "complete.s3_list_parts", "complete.presign", "complete.s3_complete", "complete.s3_probe",
		"complete.db_admit", "complete.db_insert", "complete.db_state", "complete.enqueue", "complete.answer"}
	for _, step := range want {
		if counts[step] != 1 {
			t.Errorf("step %s timed %d times, want once", step, counts[step])
		}
	}
	for step := range counts {
		if !slices.Contains(want, step) {
			t.Errorf("unexpected step %s", step)
		}
	}
}
