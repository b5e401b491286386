// Command floorbench compares hot map answers with their floor: the same
// bytes served from memory by a minimal gin server (c.Data), both under
// wrk in one run, alternating, so that the ratio is fair on a shared
// machine.
//
// For each path it fetches the answer from a running API until the cache
// is warm (two identical answers in a row), serves those bytes from a gin
// route of its own, then runs `wrk -t2 -c64` against the floor and the
// API in turn, -runs times. It prints requests/s per run, the ratio
// API/floor per run, and the medians.
//
// The floor answers with the API's own headers (ETag, Cache-Control,
// Vary, a fresh X-Request-ID), so both send the same bytes: the floor
// skips the work, not the wire. With -api-pid it also prints the CPU each
// process spent per request: on a shared machine requests/s follow the
// neighbours, CPU per request much less.
//
//	guidepost serve &   # GUIDES_CACHE=on, a seeded database
//	bin/floorbench -api http://127.0.0.1:8080 -runs 3 -d 10s -api-pid $(pgrep -n guidepost)
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

func main() {
	api := flag.String("api", "http://127.0.0.1:8080", "the running API")
	paths := flag.String("paths", "/v1/guides/nearby?lat=37.5665&lng=126.9780&radius_m=1000&limit=20 "+
		"/v1/guides?bbox=126.97,37.56,126.99,37.57&limit=50", "space-separated answers to compare")
	runs := flag.Int("runs", 3, "alternating runs per path")
	dur := flag.String("d", "10s", "wrk duration per run")
	threads := flag.Int("t", 2, "wrk threads")
	conns := flag.Int("c", 64, "wrk connections")
	apiPID := flag.Int("api-pid", 0, "the API's process id: also report CPU per request (0: do not)")
	flag.Parse()

	answers := map[string]answer{}
	for _, p := range strings.Fields(*paths) {
		answers[p] = warm(*api + p)
	}
	floor := serveFloor(answers)
	fmt.Printf("wrk -t%d -c%d -d%s, %d runs, %s\n", *threads, *conns, *dur, *runs, time.Now().UTC().Format(time.RFC3339))
	for _, p := range strings.Fields(*paths) {
		var ratios, floors, apis, cpuRatios []float64
		var lines []string
		for range *runs {
			f, fcpu := measure(floor+p, os.Getpid(), *threads, *conns, *dur)
			a, acpu := measure(*api+p, *apiPID, *threads, *conns, *dur)
			floors, apis, ratios = append(floors, f), append(apis, a), append(ratios, a/f)
			line := fmt.Sprintf("floor %8.0f req/s, API %8.0f req/s, ratio %.2f", f, a, a/f)
			if *apiPID != 0 {
				cpuRatios = append(cpuRatios, acpu/fcpu)
				line += fmt.Sprintf("; CPU per request: floor %.1f µs, API %.1f µs, API/floor %.2f", fcpu, acpu, acpu/fcpu)
			}
			lines = append(lines, line+"; load "+loadAverage())
		}
		if got := fetch(*api + p); !bytes.Equal(got.body, answers[p].body) {
			log.Printf("%s: the answer changed during the run (%d bytes, was %d)", p, len(got.body), len(answers[p].body))
		}
		fmt.Printf("\n%s (%d bytes)\n", p, len(answers[p].body))
		for i, l := range lines {
			fmt.Printf("  run %d: %s\n", i+1, l)
		}
		fmt.Printf("  median: floor %8.0f req/s, API %8.0f req/s, ratio %.2f", median(floors), median(apis), median(ratios))
		if *apiPID != 0 {
			fmt.Printf("; CPU per request API/floor %.2f", median(cpuRatios))
		}
		fmt.Println()
	}
}

// answer is what the API sent for a path: the floor sends it back.
type answer struct {
	body   []byte
	header http.Header
}

// warm fetches until two answers in a row are the same: the cache holds
// the tiles and later answers come from it.
func warm(url string) answer {
	prev := fetch(url)
	for range 50 {
		cur := fetch(url)
		if bytes.Equal(cur.body, prev.body) {
			return cur
		}
		prev = cur
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatalf("%s: the answer does not settle", url)
	return answer{}
}

// fetch asks as wrk does: no Accept-Encoding, so neither side compresses.
func fetch(url string) answer {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		log.Fatalf("%s: %d %v %s", url, resp.StatusCode, err, b)
	}
	return answer{body: b, header: resp.Header}
}

// serveFloor serves each captured answer at its path with c.Data, as cheaply
// as gin can answer at all, with the API's headers (a request id made as
// the API makes one), and returns the base URL.
func serveFloor(answers map[string]answer) string {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	byPath := map[string]answer{}
	for p, a := range answers {
		path, _, _ := strings.Cut(p, "?")
		byPath[path] = a // one answer per route is enough for the floor
	}
	for path, a := range byPath {
		r.GET(path, func(c *gin.Context) {
			h := c.Writer.Header()
			for _, k := range []string{"Cache-Control", "Etag", "Vary"} {
				h[k] = a.header[k]
			}
			id := make([]byte, 12)
			rand.Read(id)
			h["X-Request-Id"] = []string{hex.EncodeToString(id)}
			c.Data(http.StatusOK, a.header.Get("Content-Type"), a.body)
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(http.Serve(ln, r)) }() // lives as long as the command
	return "http://" + ln.Addr().String()
}

var (
	rps      = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	requests = regexp.MustCompile(`([0-9]+) requests in`)
)

// measure runs wrk against url and returns requests/s and, when pid is
// not 0, the CPU that process spent per request, in microseconds.
func measure(url string, pid, threads, conns int, dur string) (perSec, cpuPerReq float64) {
	before := cpuTime(pid)
	out := wrk(url, threads, conns, dur)
	spent := cpuTime(pid) - before
	m := rps.FindSubmatch(out)
	n := requests.FindSubmatch(out)
	if m == nil || n == nil {
		log.Fatalf("wrk said:\n%s", out)
	}
	perSec, _ = strconv.ParseFloat(string(m[1]), 64)
	count, _ := strconv.ParseFloat(string(n[1]), 64)
	return perSec, spent.Seconds() * 1e6 / count
}

func wrk(url string, threads, conns int, dur string) []byte {
	cmd := exec.Command("wrk", "-t"+strconv.Itoa(threads), "-c"+strconv.Itoa(conns), "-d"+dur, url)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("wrk (apt-get install wrk): %v", err)
	}
	if bytes.Contains(out, []byte("Non-2xx")) {
		log.Printf("%s: some answers were not 2xx:\n%s", url, out)
	}
	return out
}

// cpuTime is the user and system CPU pid has used (0 for pid 0), from
// /proc/pid/stat: fields 14 and 15, in clock ticks of 1/100 s.
func cpuTime(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		log.Fatalf("CPU of process %d: %v", pid, err)
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
