// Command uploadbench measures how fast a running guidepost accepts photo
// uploads: p50/p95/p99 of POST /v1/media at several concurrency levels, each
// uploader a separate guest user sending distinct bytes (a comment segment
// carries a counter), so every request takes the full path (temp file,
// SHA-256, probe, S3 put, row, enqueue) and none is answered as a duplicate.
// With -mode direct each uploader declares the photo (POST /v1/uploads),
// PUTs its parts to S3 itself and completes it: the latencies are then the
// API's part only, create + complete. Each level also reports the API
// process's CPU per accepted photo, from its /metrics (run `guidepost
// serve` alone, so no worker shares that process).
//
//	go run ./scripts/uploadbench -url http://127.0.0.1:8080 \
//	    -photo testdata/bench/photo-12mp.jpg -conc 1,8,32 -duration 15s -mode direct
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
	flag.Parse()
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
		r := runLevel(*url, jpeg, c, *warmup, *duration, &seq, *mode == "direct")
		fmt.Printf("%6d %8d %8.1f %8.1f %8.1f %9.1f %6d %14.2f", c, len(r.lat), r.pct(50), r.pct(95), r.pct(99),
			float64(len(r.lat))/duration.Seconds(), r.errors, 1000*r.cpu/float64(r.all))
		if *mode == "direct" {
			fmt.Printf("   create p50/p95 %.1f/%.1f, complete p50/p95 %.1f/%.1f ms",
				pct(r.create, 50), pct(r.create, 95), pct(r.complete, 50), pct(r.complete, 95))
		}
		fmt.Println()
	}
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

func runLevel(base string, jpeg []byte, conc int, warmup, duration time.Duration, seq *atomic.Uint64, direct bool) result {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}, Timeout: time.Minute}
	var (
		mu  sync.Mutex
		all result
		wg  sync.WaitGroup
	)
	tokens := make([]string, conc)
	for i := range tokens {
		tokens[i] = guest(hc, base)
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
				if direct {
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
