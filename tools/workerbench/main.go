// Command workerbench measures the photo worker's CPU per photo on one
// JPEG for each MEDIA_FORMATS setting, next to libvips making the same
// outputs, in one run so the ratios are fair on a shared machine, and the
// bytes of every derivative in every format on both sides.
//
// -formats lists the settings, separated by ';' (default
// "jpeg;jpeg,webp;jpeg,webp,avif"). For each, two guidepost figures: the
// render alone in this process (photo.Render: four derivatives in each
// format, and the ThumbHash); and the whole derive the way the worker runs
// it (download from S3, render in a child process unless -child=false,
// upload every file, mark ready), over -n distinct uploaded copies (a
// comment segment makes each SHA-256 differ) with -concurrency at a time.
// CPU is the process's own plus its children's (rusage).
//
// With -dirs or -demo it only weighs: every photo of each directory, and
// the demo seed's photos (demophoto), rendered in every format of
// -formats by both sides, bytes summed per format and derivative, and a
// map screen of 40 markers; no database or S3 is needed:
//
//	bin/workerbench -demo -dirs testdata/photos,testdata/bench -formats 'jpeg,webp,avif'
//
// libvips makes the same outputs the same way: one decode and resize chain
// per photo (vipsthumbnail to 2048, 1080 from it, 540 and the centred
// 256 px square from that, each kept as uncompressed .v), then `vips copy`
// into each format at guidepost's quality for that derivative
// (photo.Qualities), libwebp at guidepost's effort (photo.WebPMethod), AVIF
// at effort 2. A setting's libvips figure is the chain plus its formats'
// encodes. Process starts, measured on a 1×1 image for each program, are
// subtracted. The tables: CPU seconds per photo for each setting, the CPU
// each format adds, and bytes per format and width.
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
	n := flag.Int("n", 20, "photos per side and setting")
	conc := flag.Int("concurrency", 1, "WORKER_CONCURRENCY: derives at once")
	child := flag.Bool("child", true, "render in a child process, as the worker does")
	dbURL := flag.String("database", os.Getenv("DATABASE_URL"), "a migrated database")
	bucket := flag.String("bucket", "guidepost", "S3 bucket on the local stack (created if missing)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the derive phases here")
	formatList := flag.String("formats", "jpeg;jpeg,webp;jpeg,webp,avif", "MEDIA_FORMATS settings to measure, separated by ';'")
	dirs := flag.String("dirs", "", "bytes only: weigh every photo in these directories (comma-separated)")
	demo := flag.Bool("demo", false, "bytes only: weigh the photos seed --demo uploads")
	flag.Parse()
	settings, err := parseSettings(*formatList)
	if err != nil {
		log.Fatal(err)
	}
	if *dirs != "" || *demo {
		weighSets(*dirs, *demo, allFormats(settings))
		return
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

	fig := figures{n: *n, settings: settings, render: map[string]float64{}, derive: map[string]float64{}}
	var stop func()
	if *profile != "" {
		stop = startProfile(*profile)
	}
	for _, set := range settings {
		svc := media.New(deps, media.Config{RenderSlots: *conc, Formats: set})
		ids := uploadCopies(ctx, db, svc, jpeg, *n)
		fig.render[settingName(set)], _ = measure(func() { renderAll(ctx, jpeg, *n, set) })
		fig.derive[settingName(set)], _ = measure(func() { deriveAll(ctx, svc, ids, *conc) })
	}
	if stop != nil {
		stop()
	}
	formats := allFormats(settings)
	fig.goBytes, fig.sizes = renderBytes(ctx, jpeg, formats)
	fig.vipsResize, fig.vipsEncode, fig.vipsBytes = vips(*path, *n, formats)

	where := "in process"
	if *child {
		where = "render in a child"
	}
	fmt.Printf("photo %s (%.1f MB), %d photos a setting, concurrency %d, derive with %s, JPEG codec %s, WebP codec %s\n",
		*path, float64(len(jpeg))/1e6, *n, *conc, where, photo.JPEGCodec, photo.WebPCodec)
	fig.report(os.Stdout)
}

// renderBytes renders the photo once in every format: the bytes of each
// derivative by format, and each derivative's size.
func renderBytes(ctx context.Context, jpeg []byte, formats []photo.Encoding) (map[photo.Encoding][4]int, [4]string) {
	res, err := photo.Render(ctx, bytes.NewReader(jpeg), photo.JPEG, photo.Options{Encodings: formats[1:]})
	if err != nil {
		log.Fatal(err)
	}
	ds := [4]photo.Derivative{res.Web, res.Thumb, res.Small, res.Marker}
	out := map[photo.Encoding][4]int{}
	var sizes [4]string
	for i, d := range ds {
		sizes[i] = fmt.Sprintf("%d×%d", d.Width, d.Height)
		for _, e := range formats {
			b := out[e]
			b[i] = len(d.File(e))
			out[e] = b
		}
	}
	return out, sizes
}

// renderAll renders the photo n times in this process, in the formats of
// a setting: the codec and pipeline cost alone, without S3, the database
// or a child process.
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

func startProfile(path string) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// vips makes every derivative of the photo n times with libvips: the
// resize chain's CPU, each format's encodes' CPU (process starts
// subtracted from both), and the bytes of the last outputs.
func vips(path string, n int, formats []photo.Encoding) (resize float64, encode map[photo.Encoding]float64, size map[photo.Encoding][4]int) {
	dir, err := os.MkdirTemp("", "workerbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	one := filepath.Join(dir, "one.v")
	run([]string{"vips", "black", one, "1", "1"})
	startResize, startEncode := vipsStartCommands(one, dir)
	resizeStart, _ := measure(func() { runN(startResize, n) })
	encodeStart, _ := measure(func() { runN(startEncode, n) })
	resizeStart, encodeStart = resizeStart/float64(n), encodeStart/float64(n)

	cmds := vipsResize(path, dir)
	resize, _ = measure(func() {
		for range n {
			runAll(cmds)
		}
	})
	resize -= float64(n*len(cmds)) * resizeStart
	encode, size = map[photo.Encoding]float64{}, map[photo.Encoding][4]int{}
	var grainy [4]bool
	for _, f := range formats { // JPEG first: its bytes say which derivatives are grainy
		cmds := vipsEncode(dir, f, grainy)
		cpu, _ := measure(func() {
			for range n {
				runAll(cmds)
			}
		})
		encode[f] = cpu - float64(n*len(cmds))*encodeStart
		size[f] = vipsSizes(dir, f)
		if f == photo.EncodingJPEG {
			grainy = vipsGrainy(dir)
		}
	}
	return resize, encode, size
}

// vipsSizes is the bytes of the four derivatives vipsEncode made in f.
func vipsSizes(dir string, f photo.Encoding) [4]int {
	var b [4]int
	for i, d := range derivatives {
		st, err := os.Stat(vipsOutput(dir, d.name, f))
		if err != nil {
			log.Fatal(err)
		}
		b[i] = int(st.Size())
	}
	return b
}

func runN(cmd []string, n int) {
	for range n {
		run(cmd)
	}
}

func runAll(cmds [][]string) {
	for _, c := range cmds {
		run(c)
	}
}

func run(cmd []string) {
	if b, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
		log.Fatalf("%v: %v: %s", cmd, err, b)
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
