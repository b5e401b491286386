package api

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"net/http/httptest"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/objstore"
	gsql "github.com/guidepost/guidepost/sql"
)

// seoulViewport is the all-Seoul viewport answer over the demo data, as
// `make run` serves it: the demo guides from PostgreSQL, the 12 nearest
// City Hall with a presigned thumbnail URL (the demo photos).
func seoulViewport(b *testing.B) []byte {
	ctx := context.Background()
	db := testkit.DB(b)
	author := auth.User{ID: uuid.NewString(), DisplayName: "Demo", Guest: true, CreatedAt: time.Now()}
	if err := gsql.NewUsers(db).CreateUser(ctx, author); err != nil {
		b.Fatal(err)
	}
	if _, err := seedgen.DemoGuides(ctx, db, author.ID); err != nil {
		b.Fatal(err)
	}
	seoul := guides.BBox{MinLng: 126.76, MinLat: 37.41, MaxLng: 127.19, MaxLat: 37.70}
	items, truncated, err := gsql.NewGuides(db).InBBox(ctx, guides.BBoxQuery{BBox: seoul, Limit: guides.MaxBBoxLimit})
	if err != nil || truncated {
		b.Fatalf("viewport: %v, truncated %v", err, truncated)
	}
	byHall := slices.Clone(items)
	slices.SortFunc(byHall, func(x, y guides.Item) int {
		dx := math.Hypot(x.Lat-37.5665, x.Lng-126.9780)
		dy := math.Hypot(y.Lat-37.5665, y.Lng-126.9780)
		return int(math.Copysign(1, dx-dy))
	})
	blobs := objstore.New(testkit.S3Config(b))
	thumbs := map[string]string{}
	for _, it := range byHall[:12] {
		if thumbs[it.ID], err = blobs.PresignGet(ctx, media.ThumbKey(uuid.NewString()), 15*time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	for i := range items {
		items[i].CoverURLs.Thumbnail = thumbs[items[i].ID]
	}
	answer := itemsAnswer(items, false, cursorField(""),
		answerField{"truncated", func(b []byte) []byte { return strconv.AppendBool(b, truncated) }})
	return bytes.Clone(*answer)
}

// BenchmarkViewportCodings: what compressing the all-Seoul viewport costs
// per answer, through the whole router (identity is the baseline), and
// what each coding level would cost on its own (to choose them).
//
//	go test ./api -run '^$' -bench ViewportCodings -benchtime 2s -count 3
func BenchmarkViewportCodings(b *testing.B) {
	answer := seoulViewport(b)
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry()}, Config{})
	s.engine.GET("/bench/viewport", func(c *gin.Context) { c.Data(200, answerType, answer) })
	for _, coding := range []string{"identity", "gzip", "zstd"} {
		b.Run("router/"+coding, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/bench/viewport", nil)
			req.Header.Set("Accept-Encoding", coding)
			var sent int
			cpu := cpuTime()
			for b.Loop() {
				rec := httptest.NewRecorder()
				s.Handler().ServeHTTP(rec, req)
				sent = rec.Body.Len()
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(sent), "bytes/answer")
		})
	}
	// Reused encoders, as the middleware's pools reuse them.
	levels := []struct {
		name string
		enc  encoder
	}{
		{"gzip-1", gzipLevel(1)}, {"gzip-5", gzipLevel(5)}, {"gzip-6", gzipLevel(6)}, {"gzip-9", gzipLevel(9)},
		{"zstd-fastest", zstdLevel(zstd.SpeedFastest)},
		{"zstd-default", zstdLevel(zstd.SpeedDefault)},
		{"zstd-better", zstdLevel(zstd.SpeedBetterCompression)},
	}
	for _, l := range levels {
		b.Run("encoder/"+l.name, func(b *testing.B) {
			var out bytes.Buffer
			cpu := cpuTime()
			for b.Loop() {
				out.Reset()
				l.enc.Reset(&out)
				l.enc.Write(answer)
				l.enc.Close()
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(out.Len()), "bytes/answer")
		})
	}
}

// cpuTime is the process's CPU time (user and system, every thread: the
// collector's work counts too). On a shared machine it says what an
// answer costs better than wall time, which waits for other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64((cpuTime()-since).Microseconds())/float64(b.N), "cpu-µs/answer")
}

func gzipLevel(level int) encoder {
	z, _ := gzip.NewWriterLevel(nil, level)
	return z
}

func zstdLevel(level zstd.EncoderLevel) encoder {
	z, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	return z
}
