// Command workerbench measures photo-worker throughput in photos per
// CPU-second (photos/s/core) on one JPEG, next to vipsthumbnail making the
// same thumbnail, in one run so the ratio is fair on a shared machine.
//
// It uploads -n distinct copies through the media service (a comment
// segment makes each SHA-256 differ), then derives them all the way the
// worker does (download from S3, render, upload both JPEGs, mark ready) with
// -concurrency at a time, and counts the process's CPU time. vipsthumbnail
// then makes the 1080-px q70 thumbnail of the same file -n times, its CPU
// time counted from the children's rusage.
//
//	go run ./scripts/workerbench -photo testdata/bench/photo-12mp.jpg -n 20 \
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
	"github.com/guidepost/guidepost/objstore"
	gsql "github.com/guidepost/guidepost/sql"
)

func main() {
	path := flag.String("photo", "testdata/bench/photo-12mp.jpg", "JPEG to process")
	n := flag.Int("n", 20, "photos per side")
	conc := flag.Int("concurrency", 1, "WORKER_CONCURRENCY: derives at once")
	dbURL := flag.String("database", os.Getenv("DATABASE_URL"), "a migrated database")
	bucket := flag.String("bucket", "guidepost", "S3 bucket on the local stack")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the derive phase here")
	flag.Parse()
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
	svc := media.New(media.Deps{Store: gsql.NewMedia(db), Keys: gsql.NewIdempotencyKeys(db), Blobs: blobs,
		Queue: noQueue{}, Clock: guidepost.SystemClock{}}, media.Config{RenderSlots: *conc})

	ids := uploadCopies(ctx, db, svc, jpeg, *n)
	goCPU, goWall := measure(rusageSelf, func() { profiled(*profile, func() { deriveAll(ctx, svc, ids, *conc) }) })
	vipsCPU, vipsWall := measure(rusageChildren, func() { vips(*path, *n) })

	fmt.Printf("photo %s (%.1f MB), %d photos each, concurrency %d\n", *path, float64(len(jpeg))/1e6, *n, *conc)
	fmt.Printf("%-44s %9s %9s %14s\n", "", "CPU s", "wall s", "photos/CPU-s")
	fmt.Printf("%-44s %9.2f %9.2f %14.2f\n", "guidepost derive (download+render+upload+row)", goCPU, goWall, float64(*n)/goCPU)
	fmt.Printf("%-44s %9.2f %9.2f %14.2f\n", "vipsthumbnail -s 1080 (thumbnail only)", vipsCPU, vipsWall, float64(*n)/vipsCPU)
	fmt.Printf("ratio guidepost/vips photos per CPU-second: %.2f\n", (float64(*n)/goCPU)/(float64(*n)/vipsCPU))
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

func vips(path string, n int) {
	out := filepath.Join(os.TempDir(), "workerbench-thumb.jpg")
	defer os.Remove(out)
	for range n {
		cmd := exec.Command("vipsthumbnail", path, "-s", "1080x1080", "-o", out+"[Q=70,strip]")
		if b, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("vipsthumbnail: %v: %s", err, b)
		}
	}
}

const (
	rusageSelf     = syscall.RUSAGE_SELF
	rusageChildren = syscall.RUSAGE_CHILDREN
)

func cpuSeconds(who int) float64 {
	var ru syscall.Rusage
	syscall.Getrusage(who, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func measure(who int, fn func()) (cpu, wall float64) {
	c0, t0 := cpuSeconds(who), time.Now()
	fn()
	return cpuSeconds(who) - c0, time.Since(t0).Seconds()
}
