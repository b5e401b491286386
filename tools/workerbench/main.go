// Command workerbench measures the photo worker's CPU per photo on one
// JPEG, next to libvips making the same outputs, in one run so the ratio
// is fair on a shared machine. -formats is a MEDIA_FORMATS setting
// (jpeg, jpeg,webp, jpeg,webp,avif): both sides make every derivative
// (web, thumbnail, small, marker) in each of its formats.
//
// Three guidepost figures: the render alone in this process (photo.Render:
// web JPEG, thumbnail, ThumbHash); and the whole derive the way the worker
// runs it (download from S3, render in a child process unless -child=false,
// upload both JPEGs, mark ready), over -n distinct uploaded copies (a
// comment segment makes each SHA-256 differ) with -concurrency at a time.
// CPU is the process's own plus its children's (rusage).
//
// libvips makes the same outputs in steps, as vipsthumbnail can, per
// format: `vipsthumbnail photo -s 2048` at the web quality, then `-s 1080`
// from that, `-s 540` from the thumbnail and the centred 256 px square
// from the thumbnail, each at guidepost's quality for that format
// (photo.Qualities; AVIF at effort 2). Its process starts are measured on
// a 1×1 JPEG (one per output) and subtracted; the ratio is against that
// net figure.
//
//	bin/workerbench -photo testdata/bench/photo-12mp.jpg -n 20 \
//	    -database postgres://postgres@127.0.0.1:5432/DB?sslmode=disable -bucket BUCKET
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
	"github.com/guidepost/guidepost/objstore"
	gsql "github.com/guidepost/guidepost/sql"
	"github.com/guidepost/guidepost/worker"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == worker.RenderChildCommand {
		os.Exit(worker.RenderChild(os.Stdin, os.Stdout))
	}
	path := flag.String("photo", "testdata/bench/photo-12mp.jpg", "JPEG to process")
	n := flag.Int("n", 20, "photos per side")
	conc := flag.Int("concurrency", 1, "WORKER_CONCURRENCY: derives at once")
	child := flag.Bool("child", true, "render in a child process, as the worker does")
	dbURL := flag.String("database", os.Getenv("DATABASE_URL"), "a migrated database")
	bucket := flag.String("bucket", "guidepost", "S3 bucket on the local stack (created if missing)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the derive phase here")
	formatList := flag.String("formats", "jpeg,webp", "MEDIA_FORMATS setting to measure")
	flag.Parse()
	formats, err := photo.ParseEncodings(*formatList)
	if err != nil {
		log.Fatal(err)
	}
	jpeg, err := os.ReadFile(*path)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	db, err := gsql.Open(ctx, *dbURL)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	blobs := objstore.New(objstore.Config{Endpoint: "http://127.0.0.1:7070", Region: "us-east-1", Bucket: *bucket,
		AccessKey: "guidepost", SecretKey: "guidepost-secret"})
	if err := blobs.CreateBucket(ctx); err != nil {
		log.Fatal(err)
	}
	deps := media.Deps{Store: gsql.NewMedia(db), Keys: gsql.NewIdempotencyKeys(db), Blobs: blobs,
		Queue: noQueue{}, Clock: guidepost.SystemClock{}}
	if *child {
		self, err := os.Executable()
		if err != nil {
			log.Fatal(err)
		}
		deps.Renderer = &worker.ChildRenderer{Command: []string{self, worker.RenderChildCommand}}
	}
	svc := media.New(deps, media.Config{RenderSlots: *conc, Formats: formats})

	ids := uploadCopies(ctx, db, svc, jpeg, *n)
	renderCPU, renderWall := measure(func() { renderAll(ctx, jpeg, *n, formats) })
	goCPU, goWall := measure(func() { profiled(*profile, func() { deriveAll(ctx, svc, ids, *conc) }) })
	vipsCPU, vipsWall := measure(func() { vips(*path, *n, formats) })
	startCPU, startWall := measure(func() { vipsStarts(4 * len(formats) * *n) })

	per := func(cpu float64) float64 { return cpu / float64(*n) }
	net := per(vipsCPU - startCPU)
	where := "in process"
	if *child {
		where = "render in a child"
	}
	fmt.Printf("photo %s (%.1f MB), %d photos each, concurrency %d, formats %s, JPEG codec %s, WebP codec %s\n",
		*path, float64(len(jpeg))/1e6, *n, *conc, *formatList, photo.JPEGCodec, photo.WebPCodec)
	fmt.Printf("%-58s %9s %9s %12s\n", "", "CPU s", "wall s", "CPU s/photo")
	row := func(name string, cpu, wall float64) {
		fmt.Printf("%-58s %9.2f %9.2f %12.3f\n", name, cpu, wall, per(cpu))
	}
	row("guidepost render (4 derivatives × "+*formatList+" + ThumbHash)", renderCPU, renderWall)
	row("guidepost derive (download, "+where+", upload, row)", goCPU, goWall)
	row("vips: vipsthumbnail 2048, 1080, 540, 256 crop × formats", vipsCPU, vipsWall)
	row("vips: process starts (one an output, on a 1×1 JPEG)", startCPU, startWall)
	fmt.Printf("%-58s %9.2f %9s %12.3f\n", "vips: the same outputs, starts subtracted", vipsCPU-startCPU, "", net)
	fmt.Printf("ratio render/vips (CPU per photo): %.2f\n", per(renderCPU)/net)
	fmt.Printf("ratio derive/vips (CPU per photo): %.2f\n", per(goCPU)/net)
}

// renderAll renders the photo n times in this process: the codec and
// pipeline cost alone, without S3, the database or a child process.
func renderAll(ctx context.Context, jpeg []byte, n int, formats []photo.Encoding) {
	for range n {
		if _, err := photo.Render(ctx, bytes.NewReader(jpeg), photo.JPEG, photo.Options{Encodings: formats[1:]}); err != nil {
			log.Fatal(err)
		}
	}
}

type noQueue struct{}

func (noQueue) Enqueue(context.Context, string) error      { return nil }
func (noQueue) EnqueuePurge(context.Context, string) error { return nil }
func (noQueue) TaskState(context.Context, string) (media.TaskState, error) {
	return media.TaskLive, nil
}

// uploadCopies stores n distinct copies as one guest's pending photos.
func uploadCopies(ctx context.Context, db *gsql.DB, svc *media.Service, jpeg []byte, n int) []string {
	owner := uuid.Must(uuid.NewV7()).String()
	if err := gsql.NewUsers(db).CreateUser(ctx, auth.User{ID: owner, DisplayName: "bench", Guest: true, CreatedAt: time.Now()}); err != nil {
		log.Fatal(err)
	}
	stamp := uint64(time.Now().UnixNano())
	var ids []string
	for i := range n {
		data := append([]byte{0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x0A}, binary.BigEndian.AppendUint64(nil, stamp+uint64(i))...)
		data = append(data, jpeg[2:]...)
		sp, err := svc.Spool(bytes.NewReader(data))
		if err != nil {
			log.Fatal(err)
		}
		res, err := svc.Upload(ctx, media.UploadInput{OwnerID: owner, File: sp})
		sp.Close()
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, res.ID)
	}
	return ids
}

func deriveAll(ctx context.Context, svc *media.Service, ids []string, conc int) {
	work := make(chan string)
	var wg sync.WaitGroup
	for range 2 * conc { // as the worker: twice the tasks, the semaphore bounds renders
		wg.Go(func() {
			for id := range work {
				if err := svc.Derive(ctx, media.DeriveTask{MediaID: id}); err != nil {
					log.Fatal(err)
				}
			}
		})
	}
	for _, id := range ids {
		work <- id
	}
	close(work)
	wg.Wait()
}

func profiled(path string, fn func()) {
	if path == "" {
		fn()
		return
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	pprof.StartCPUProfile(f)
	defer pprof.StopCPUProfile()
	fn()
}

func vips(path string, n int, formats []photo.Encoding) {
	dir, err := os.MkdirTemp("", "workerbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for range n {
		for _, f := range formats {
			web, thumb, small, marker := photo.Qualities(f)
			opts := func(q int) string {
				o := fmt.Sprintf("[Q=%d,strip", q)
				if f == photo.EncodingAVIF {
					o += ",effort=2"
				}
				return o + "]"
			}
			out := func(name string) string { return filepath.Join(dir, name+"."+f.Ext()) }
			run("vipsthumbnail", path, "-s", "2048x2048", "-o", out("web")+opts(web))
			run("vipsthumbnail", out("web"), "-s", "1080x1080", "-o", out("thumb")+opts(thumb))
			run("vipsthumbnail", out("thumb"), "-s", "540x540", "-o", out("small")+opts(small))
			run("vipsthumbnail", out("thumb"), "-s", "256x256", "--smartcrop", "centre", "-o", out("marker")+opts(marker))
		}
	}
}

// vipsStarts runs vipsthumbnail n times on a 1×1 JPEG: the cost of
// starting the process (library initialisation included), to subtract.
func vipsStarts(n int) {
	dir, err := os.MkdirTemp("", "workerbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	one, out := filepath.Join(dir, "one.jpg"), filepath.Join(dir, "out.jpg")
	run("vips", "black", one, "1", "1")
	for range n {
		run("vipsthumbnail", one, "-s", "1080x1080", "-o", out+"[Q=70,strip]")
	}
}

func run(name string, args ...string) {
	if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		log.Fatalf("%s: %v: %s", name, err, b)
	}
}

// cpuSeconds is this process's CPU time plus that of its waited-for
// children (render children and vipsthumbnail).
func cpuSeconds() float64 {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano()).Seconds()
}

func measure(fn func()) (cpu, wall float64) {
	c0, t0 := cpuSeconds(), time.Now()
	fn()
	return cpuSeconds() - c0, time.Since(t0).Seconds()
}
