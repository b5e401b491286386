package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media/photo/hostile"
)

// renderBound is how long a photo may hold a worker: a render child is
// killed after 30 s; the rest is the queue and the poll.
const renderBound = 45 * time.Second

// Every file of the adversarial corpus (testdata/hostile, and larger ones
// made here by the same package) is refused at upload with a problem+json
// naming the file and why, or finishes within the bound: ready when it is
// a real if odd photo, failed with words for a person when it is not. A
// normal photo uploaded after them all still turns ready.
func TestMediaHostileFiles(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev")
	c := newMediaClient(t, p.URL)
	corpus := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "testdata", "hostile", name))
		if err != nil {
			t.Fatalf("%v (run scripts/gen-testdata.sh --hostile)", err)
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		status int    // 422, or 202 then want
		want   string // ready or failed
		reason string // in the 422's message
	}{
		{"scan-bomb.jpg", corpus("scan-bomb.jpg"), 422, "", "scans"},
		{"canvas-small.webp", corpus("canvas-small.webp"), 422, "", "damaged"},
		{"canvas-huge.webp", corpus("canvas-huge.webp"), 422, "", "megapixels"},
		{"box-flood.heic", corpus("box-flood.heic"), 422, "", "damaged"},
		{"box-flood-25mib.heic", hostile.HEIFFlood(25<<20 - 4<<10), 422, "", "damaged"},
		{"junk-markers.jpg", corpus("junk-markers.jpg"), 202, "ready", ""},
		{"appn-9mib.jpg", hostile.InsertBeforeSOF(hostile.ProgressiveJPEG(640, 480, 0), hostile.APPSegments(9<<20)), 202, "ready", ""},
		{"exif-loop.jpg", corpus("exif-loop.jpg"), 202, "ready", ""},
		{"inflate-bomb.png", corpus("inflate-bomb.png"), 202, "ready", ""},
	} {
		r := c.upload(map[string][]byte{tc.name: tc.data}, "")
		if tc.status == 422 {
			wantProblem(t, tc.name, r, 422, "file")
			if msg := problemMessage(r); !strings.Contains(msg, tc.reason) {
				t.Errorf("%s: the refusal says %q; want it to speak of %q", tc.name, msg, tc.reason)
			}
			continue
		}
		if r.status != 202 {
			t.Errorf("%s: %d %+v", tc.name, r.status, r.problem)
			continue
		}
		start := time.Now()
		m := c.waitDone(r.doc.ID, renderBound)
		t.Logf("%s: %s after %s", tc.name, m.Status, time.Since(start).Round(100*time.Millisecond))
		if m.Status != tc.want || m.Status == "failed" && (m.Failure == nil || *m.Failure == "") {
			t.Errorf("%s: %s, failure %v; want %s", tc.name, m.Status, m.Failure, tc.want)
		}
	}
	r := c.upload(map[string][]byte{"photo.jpg": testPhoto(t, "photo.jpg")}, "")
	if m := c.waitDone(r.doc.ID, renderBound); m.Status != "ready" {
		t.Fatalf("a normal photo after the hostile ones: %+v", m)
	}
	if n := s.rows(); n != 5 {
		t.Errorf("%d rows: the refused files must store nothing", n)
	}
}

// problemMessage is the first field error's message of a refusal.
func problemMessage(r mediaReply) string {
	if len(r.problem.Errors) == 0 {
		return ""
	}
	return r.problem.Errors[0].Message
}
