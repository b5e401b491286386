package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"log/slog"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// scaleRow is one worker count of the scale-out measurement.
type scaleRow struct {
	Workers     int
	Photos      int
	Seconds     float64
	PerS        float64
	WorkerCPU   []float64 // per worker process, render children included
	S3CPU       float64   // versitygw
	HostBusy    float64   // every process on the host, other users' included
	HostSeconds float64
}

// runScaleout queues a fixed backlog of 12 MP photos with no worker
// running, then starts 1, 2, 3 workers (WORKER_CONCURRENCY=1 each) and
// times the backlog to ready, with each process's CPU.
func runScaleout(ctx context.Context, root, work string, log *slog.Logger, photos int, command string) error {
	f, err := startFleet(ctx, root, work, log, fleetConfig{APIs: 1, Workers: 0, WorkerConcurrency: 1})
	if err != nil {
		return err
	}
	defer f.stop()
	log.Info("encoding a 12 MP JPEG")
	photo := cameraLikeJPEG(4000, 3000)
	db, err := pgx.Connect(ctx, f.pg.url)
	if err != nil {
		return err
	}
	defer db.Close(ctx)
	var rows []scaleRow
	for k := 1; k <= 3; k++ {
		if _, err := db.Exec(ctx, `DELETE FROM media`); err != nil {
			return err
		}
		log.Info("queueing the backlog", "photos", photos)
		if err := uploadBacklog(ctx, f.apiURL(0), photo, photos, k); err != nil {
			return err
		}
		r, err := drainWith(ctx, f, db, k, photos)
		if err != nil {
			return err
		}
		log.Info("scale-out", "workers", k, "photos_per_s", r.PerS, "worker_cpu_s", r.WorkerCPU)
		rows = append(rows, r)
	}
	md := scaleTable(rows, len(photo), command)
	fmt.Print(md)
	return os.WriteFile(filepath.Join(work, "scaleout.md"), []byte(md), 0o644)
}

// drainWith starts k workers, waits for every photo to be ready, and stops
// them, reading their CPU just before.
func drainWith(ctx context.Context, f *fleet, db *pgx.Conn, k, photos int) (scaleRow, error) {
	r := scaleRow{Workers: k, Photos: photos}
	busy0, total0 := hostCPU()
	s30 := procCPU(f.s3.proc.pid())
	start := time.Now()
	for range k {
		if _, err := f.addWorker(); err != nil {
			return r, err
		}
	}
	err := waitFor(ctx, "backlog", 15*time.Minute, func() error {
		var ready, failed int
		if err := db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'ready'), count(*) FILTER (WHERE status = 'failed') FROM media`).Scan(&ready, &failed); err != nil {
			return err
		}
		if failed > 0 {
			return fmt.Errorf("%d photos failed", failed)
		}
		if ready < photos {
			return fmt.Errorf("%d of %d ready", ready, photos)
		}
		return nil
	})
	r.Seconds = time.Since(start).Seconds()
	r.PerS = float64(photos) / r.Seconds
	for _, w := range f.workers {
		r.WorkerCPU = append(r.WorkerCPU, procCPU(w.pid()))
	}
	r.S3CPU = procCPU(f.s3.proc.pid()) - s30
	busy1, total1 := hostCPU()
	r.HostBusy, r.HostSeconds = busy1-busy0, total1-total0
	for _, w := range f.workers {
		w.stop(syscall.SIGTERM, 30*time.Second)
	}
	f.workers = nil
	return r, err
}

// procCPU is user+system CPU seconds of pid and its reaped children (the
// render children a worker waited for), from /proc/PID/stat.
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	var ticks float64
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		v, _ := strconv.ParseFloat(fields[i], 64)
		ticks += v
	}
	return ticks / clockTicks()
}

func clockTicks() float64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if v, perr := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); err == nil && perr == nil && v > 0 {
		return v
	}
	return 100
}

// hostCPU is busy and total CPU seconds of the whole host from /proc/stat.
func hostCPU() (busy, total float64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	for i, f := range strings.Fields(line)[1:] {
		v, _ := strconv.ParseFloat(f, 64)
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	t := clockTicks()
	return busy / t, total / t
}

// cameraLikeJPEG is a photo-sized JPEG with smooth gradients and mild
// noise, at q90: closer to a phone photo's cost than pure noise.
func cameraLikeJPEG(w, h int) []byte {
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			img.Y[y*img.YStride+x] = uint8((x*255/w+y*255/h)/2 + rng.IntN(24))
		}
	}
	for y := range h / 2 {
		for x := range w / 2 {
			img.Cb[y*img.CStride+x] = uint8(100 + x*60/w + rng.IntN(6))
			img.Cr[y*img.CStride+x] = uint8(120 + y*60/h + rng.IntN(6))
		}
	}
	var buf bytes.Buffer
	jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	return buf.Bytes()
}

// uploadBacklog uploads n distinct copies of photo (a COM segment after
// SOI makes each one new bytes) as one guest, four at a time.
func uploadBacklog(ctx context.Context, base string, photo []byte, n, round int) error {
	hc := &http.Client{Timeout: time.Minute}
	resp, err := hc.Post(base+"/v1/auth/guest", "application/json", nil)
	if err != nil {
		return err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil {
		return err
	}
	errs := make([]error, n)
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = uploadOne(ctx, hc, base, tok.AccessToken, photo, fmt.Sprintf("round %d photo %d", round, i))
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func uploadOne(ctx context.Context, hc *http.Client, base, token string, photo []byte, tag string) error {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, _ := w.CreateFormFile("file", "photo.jpg")
	part.Write(photo[:2])
	part.Write([]byte{0xFF, 0xFE, 0, byte(len(tag) + 2)})
	part.Write([]byte(tag))
	part.Write(photo[2:])
	w.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/media", &body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("upload %s: HTTP %d", tag, resp.StatusCode)
	}
	return nil
}

func scaleTable(rows []scaleRow, size int, command string) string {
	var b strings.Builder
	commit, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	fmt.Fprintf(&b, "\n%s, commit %s, `%s`; %d cores. Backlog: %d photos of 4000×3000 (%.1f MB), WORKER_CONCURRENCY=1 per process.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.TrimSpace(string(commit)), command, runtime.NumCPU(), rows[0].Photos, float64(size)/1e6)
	b.WriteString("| workers | seconds | photos/s | ratio to 1 | CPU-s per worker (renders included) | CPU-s per photo | versitygw CPU-s | host busy (all users) |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		sum := 0.0
		var per []string
		for _, c := range r.WorkerCPU {
			sum += c
			per = append(per, fmt.Sprintf("%.1f", c))
		}
		fmt.Fprintf(&b, "| %d | %.1f | %.2f | %.2f | %s | %.2f | %.1f | %.0f%% of %d cores |\n", r.Workers, r.Seconds, r.PerS,
			r.PerS/rows[0].PerS, strings.Join(per, " + "), sum/float64(r.Photos), r.S3CPU,
			100*r.HostBusy/max(r.HostSeconds, 1e-9), runtime.NumCPU())
	}
	return b.String()
}
