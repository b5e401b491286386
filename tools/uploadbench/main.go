// Command uploadbench measures how fast a running guidepost accepts photo
// uploads: p50/p95/p99 of POST /v1/media at several concurrency levels, each
// uploader a separate guest user sending distinct bytes (a comment segment
// carries a counter), so every request takes the full path (temp file,
// SHA-256, probe, S3 put, row, enqueue) and none is answered as a duplicate.
// With -mode direct each uploader declares the photo (POST /v1/uploads),
// PUTs its parts to S3 itself and completes it: the latencies are then the
// API's part only, create + complete; -floor runs each level a second time
// making only the S3 calls create and complete need (floor.go), straight
// to the store, and prints the ratio. Beside each API level it prints the
// mean of each step of create and complete from the API's
// guidepost_direct_upload_step_seconds (the database, Redis, each store
// call, the probe), and beside each floor level the mean of each of its
// store calls, so the time above the floor is placed, step by step;
// -floor-read whole makes the floor's GET read to the end, as the API's
// JPEG probe does (it counts the scans). Each level also reports the API
// process's CPU per accepted photo, from its /metrics (run `guidepost
// serve` alone, so no worker shares that process).
//
//	bin/uploadbench -url http://127.0.0.1:8080 \
//	    -photo testdata/bench/photo-12mp.jpg -conc 1,8,32 -duration 15s -mode direct
//	bin/uploadbench -mode direct -floor -runs 3 -conc 32   # S3_* as the server's
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "guidepost base URL")
	path := flag.String("photo", "testdata/bench/photo-12mp.jpg", "JPEG to upload (scripts/gen-testdata.sh --bench)")
	levels := flag.String("conc", "1,8,32", "concurrent uploaders, one level after another")
	duration := flag.Duration("duration", 15*time.Second, "measuring time per level")
	warmup := flag.Duration("warmup", 2*time.Second, "unrecorded time before each level")
	mode := flag.String("mode", "media", "media (POST /v1/media) or direct (POST /v1/uploads, parts to S3, complete)")
	floor := flag.Bool("floor", false, "with -mode direct: after each run of a level, the same level making only the store's calls (floor.go)")
	runs := flag.Int("runs", 1, "runs of each level (API and floor alternating), medians printed after them")
	partSize := flag.Int64("part-size", 5<<20, "the floor's part size: guidepost's DIRECT part size")
	floorRead := flag.String("floor-read", "header", "the floor's GET: header (64 KiB, the issue's floor) or whole (to the end, as guidepost's JPEG probe reads)")
	flag.Parse()
	if *floor && *mode != "direct" {
		log.Fatalf("uploadbench: -floor needs -mode direct")
	}
	if *floorRead != "header" && *floorRead != "whole" {
		log.Fatalf("uploadbench: -floor-read %q: want header or whole", *floorRead)
	}
	if *mode != "media" && *mode != "direct" {
		log.Fatalf("uploadbench: -mode %q: want media or direct", *mode)
	}
	jpeg, err := os.ReadFile(*path)
	if err != nil || len(jpeg) < 4 || jpeg[0] != 0xFF || jpeg[1] != 0xD8 {
		log.Fatalf("uploadbench: %s: not a JPEG (%v)", *path, err)
	}
	fmt.Printf("%s: photo %s, %.1f MB; %s per level after %s warm-up\n", *mode, *path, float64(len(jpeg))/1e6, *duration, *warmup)
	fmt.Printf("%6s %8s %8s %8s %8s %9s %6s %14s\n", "conc", "n", "p50 ms", "p95 ms", "p99 ms", "uploads/s", "errors", "API CPU ms/up")
	var seq atomic.Uint64
	for _, s := range strings.Split(*levels, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || c < 1 {
			log.Fatalf("uploadbench: bad level %q", s)
		}
		var apiP95, floorP95 []float64
		for range max(1, *runs) {
			before := serverSteps(http.DefaultClient)
			r := runLevel(*url, jpeg, c, *warmup, *duration, &seq, *mode, nil)
			printLevel(c, r, *duration, *mode == "direct", "")
			if steps := stepsSince(before, serverSteps(http.DefaultClient)); len(steps) > 0 {
				fmt.Printf("%6s API steps, mean ms per upload (warm-up included): %s\n", "", stepLine(steps))
			}
			apiP95 = append(apiP95, r.pct(95))
			if *floor {
				fl := newStoreFloor(*partSize, *floorRead == "whole")
				r := runLevel(*url, jpeg, c, *warmup, *duration, &seq, "floor", fl)
				fl.sweep()
				printLevel(c, r, *duration, true, "store floor, GET "+*floorRead)
				fmt.Printf("%6s floor calls, mean ms per upload (warm-up included): %s\n", "", stepLine(fl.calls.totals()))
				floorP95 = append(floorP95, r.pct(95))
			}
		}
		if *floor {
			a, f := median(apiP95), median(floorP95)
			fmt.Printf("%6d create+complete p95, median of %d: API %.1f ms, store floor %.1f ms, ratio %.2f (per run: %.2f)\n",
				c, len(apiP95), a, f, a/f, ratios(apiP95, floorP95))
		}
	}
}

func printLevel(c int, r result, duration time.Duration, direct bool, label string) {
	cpu := 1000 * r.cpu / float64(max(1, r.all))
	if r.cpu < 0 {
		cpu = -1
	}
	fmt.Printf("%6d %8d %8.1f %8.1f %8.1f %9.1f %6d %14.2f", c, len(r.lat), r.pct(50), r.pct(95), r.pct(99),
		float64(len(r.lat))/duration.Seconds(), r.errors, cpu)
	if direct {
		fmt.Printf("   create p50/p95 %.1f/%.1f, complete p50/p95 %.1f/%.1f ms",
			pct(r.create, 50), pct(r.create, 95), pct(r.complete, 50), pct(r.complete, 95))
	}
	if label != "" {
		fmt.Printf("   (%s)", label)
	}
	fmt.Println()
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}

func ratios(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = float64(int(100*a[i]/b[i]+0.5)) / 100
	}
	return out
}

type result struct {
	lat      []time.Duration // create + complete in direct mode
	create   []time.Duration // direct mode only
	complete []time.Duration
	errors   int
	all      int     // accepted uploads, warm-up included
	cpu      float64 // API CPU seconds over the whole level, warm-up included
}

func (r result) pct(p float64) float64 { return pct(r.lat, p) }

func pct(lat []time.Duration, p float64) float64 {
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	i := min(int(float64(len(lat))*p/100), len(lat)-1)
	return float64(lat[i].Microseconds()) / 1000
}

// runLevel runs conc uploaders for warmup+duration: mode media or direct
// against the API, or floor against the store alone (fl).
func runLevel(base string, jpeg []byte, conc int, warmup, duration time.Duration, seq *atomic.Uint64, mode string, fl *storeFloor) result {
	direct := mode != "media"
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}, Timeout: time.Minute}
	var (
		mu  sync.Mutex
		all result
		wg  sync.WaitGroup
	)
	tokens := make([]string, conc)
	for i := range tokens {
		if fl == nil {
			tokens[i] = guest(hc, base)
		}
	}
	cpu0 := apiCPU(hc)
	start := time.Now()
	measureFrom, stop := start.Add(warmup), start.Add(warmup+duration)
	for _, token := range tokens {
		wg.Go(func() {
			body, ctype, counter := uniqueBody(jpeg)
			raw, rawCounter := uniqueJPEG(jpeg)
			for time.Now().Before(stop) {
				n := seq.Add(1)
				binary.BigEndian.PutUint64(body[counter:], n)
				binary.BigEndian.PutUint64(raw[rawCounter:], n)
				t0 := time.Now()
				var d, create, complete time.Duration
				var ok bool
				if fl != nil {
					create, complete, ok = fl.upload(hc, raw)
					d = create + complete
				} else if direct {
					create, complete, ok = uploadDirect(hc, base, token, raw)
					d = create + complete
				} else {
					ok = upload(hc, base, token, body, ctype)
					d = time.Since(t0)
				}
				mu.Lock()
				if ok {
					all.all++
				}
				if !t0.Before(measureFrom) {
					if ok {
						all.lat = append(all.lat, d)
						if direct {
							all.create, all.complete = append(all.create, create), append(all.complete, complete)
						}
					} else {
						all.errors++
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	all.cpu = apiCPU(hc) - cpu0
	if fl != nil || cpu0 < 0 {
		all.cpu = -1 // the API was idle, or its CPU unknown
	}
	return all
}

// uniqueBody is a multipart body holding jpeg with a COM segment right after
// SOI; the 8 bytes at counter make each upload's SHA-256 distinct.
func uniqueBody(jpeg []byte) (body []byte, ctype string, counter int) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, _ := w.CreateFormFile("file", "photo.jpg")
	part.Write(jpeg[:2])
	part.Write([]byte{0xFF, 0xFE, 0x00, 0x0A})
	counter = buf.Len()
	part.Write(make([]byte, 8))
	part.Write(jpeg[2:])
	w.Close()
	return buf.Bytes(), w.FormDataContentType(), counter
}

// uniqueJPEG is jpeg with the same counter segment as uniqueBody, for a
// client that sends the file itself.
func uniqueJPEG(jpeg []byte) (data []byte, counter int) {
	data = append([]byte{}, jpeg[:2]...)
	data = append(data, 0xFF, 0xFE, 0x00, 0x0A)
	counter = len(data)
	data = append(data, make([]byte, 8)...)
	return append(data, jpeg[2:]...), counter
}

func upload(hc *http.Client, base, token string, body []byte, ctype string) bool {
	req, _ := http.NewRequest("POST", base+"/v1/media", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		log.Printf("upload: %v", err)
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		log.Printf("upload: HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode == http.StatusAccepted
}

func guest(hc *http.Client, base string) string {
	resp, err := hc.Post(base+"/v1/auth/guest", "application/json", nil)
	if err != nil {
		log.Fatalf("uploadbench: %v", err)
	}
	defer resp.Body.Close()
	var s struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil || s.AccessToken == "" {
		log.Fatalf("uploadbench: guest: HTTP %d %v", resp.StatusCode, err)
	}
	return s.AccessToken
}
