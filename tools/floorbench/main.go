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
//	guidepost serve &   # GUIDES_CACHE=on, a seeded database
//	bin/floorbench -api http://127.0.0.1:8080 -runs 3 -d 10s
package main

import (
	"bytes"
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
	flag.Parse()

	answers := map[string][]byte{}
	for _, p := range strings.Fields(*paths) {
		answers[p] = warm(*api + p)
	}
	floor := serveFloor(answers)
	fmt.Printf("wrk -t%d -c%d -d%s, %d runs, %s\n", *threads, *conns, *dur, *runs, time.Now().UTC().Format(time.RFC3339))
	for _, p := range strings.Fields(*paths) {
		var ratios, floors, apis []float64
		for range *runs {
			f := wrk(floor+p, *threads, *conns, *dur)
			a := wrk(*api+p, *threads, *conns, *dur)
			floors, apis, ratios = append(floors, f), append(apis, a), append(ratios, a/f)
		}
		if got := fetch(*api + p); !bytes.Equal(got, answers[p]) {
			log.Printf("%s: the answer changed during the run (%d bytes, was %d)", p, len(got), len(answers[p]))
		}
		fmt.Printf("\n%s (%d bytes)\n", p, len(answers[p]))
		for i := range ratios {
			fmt.Printf("  run %d: floor %8.0f req/s, API %8.0f req/s, ratio %.2f\n", i+1, floors[i], apis[i], ratios[i])
		}
		fmt.Printf("  median: floor %8.0f req/s, API %8.0f req/s, ratio %.2f\n", median(floors), median(apis), median(ratios))
	}
}

// warm fetches until two answers in a row are the same: the cache holds
// the tiles and later answers come from it.
func warm(url string) []byte {
	prev := fetch(url)
	for range 50 {
		cur := fetch(url)
		if bytes.Equal(cur, prev) {
			return cur
		}
		prev = cur
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatalf("%s: the answer does not settle", url)
	return nil
}

func fetch(url string) []byte {
	resp, err := http.Get(url)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		log.Fatalf("%s: %d %v %s", url, resp.StatusCode, err, b)
	}
	return b
}

// serveFloor serves each captured answer at its path with c.Data, as cheaply
// as gin can answer at all, and returns the base URL.
func serveFloor(answers map[string][]byte) string {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	byPath := map[string][]byte{}
	for p, b := range answers {
		path, _, _ := strings.Cut(p, "?")
		byPath[path] = b // one answer per route is enough for the floor
	}
	for path, b := range byPath {
		r.GET(path, func(c *gin.Context) { c.Data(http.StatusOK, "application/json; charset=utf-8", b) })
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(http.Serve(ln, r)) }() // lives as long as the command
	return "http://" + ln.Addr().String()
}

var rps = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

func wrk(url string, threads, conns int, dur string) float64 {
	cmd := exec.Command("wrk", "-t"+strconv.Itoa(threads), "-c"+strconv.Itoa(conns), "-d"+dur, url)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("wrk (apt-get install wrk): %v", err)
	}
	m := rps.FindSubmatch(out)
	if m == nil {
		log.Fatalf("wrk said:\n%s", out)
	}
	if bytes.Contains(out, []byte("Non-2xx")) {
		log.Printf("%s: some answers were not 2xx:\n%s", url, out)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
