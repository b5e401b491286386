// Command nearbybench measures the guide routes of a running guidepost:
// nearby searches in an area (closed loop, fixed concurrency), or a like
// storm on one guide. It is small on purpose: on a 2-core machine the load
// generator shares the CPU with the server it measures.
//
//	bin/nearbybench -url http://127.0.0.1:8080 -area seoul -c 16 -d 15s
//	bin/nearbybench -url http://127.0.0.1:8080 -area seoul -q '카페,coffee,야경,museum,등대,makgeolli'
//	bin/nearbybench -url http://127.0.0.1:8080 -likes 500
//	bin/nearbybench -url http://127.0.0.1:8080 -likes 1000 -floor -runs 3
//	bin/nearbybench -url http://127.0.0.1:8080 -likes 1000 -floor -floor-db postgres://… -runs 3
//	bin/nearbybench -url http://127.0.0.1:8080 -likes 1000 -floor -floor-db postgres://… -floor-db-group -runs 3 -storms 5
//	bin/nearbybench -url http://127.0.0.1:8080 -likes 1000 -floor -runs 3 -storms 5
//
// With -floor the storm alternates between the API and a floor server
// (floor.go) -runs times and prints each figure beside the floor's; with
// -floor-db also beside a floor that commits each write (floordb.go), or
// with -floor-db-group shares its commits as the API does (floorgroup.go).
// -storms pools several storms of each into one run's figures.
// -floor-cpus pins the floors, so that with this program under taskset
// on other CPUs (and the API, PostgreSQL and Redis pinned with the
// floors) the generator takes no time from the servers it compares:
//
//	taskset -c 1 bin/nearbybench -url … -likes 1000 -floor -runs 3 -storms 5 -floor-cpus 0
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	neturl "net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type area struct {
	lat, lng    float64
	dLat, dLng  float64 // uniform half-widths in degrees
	radius      float64
	description string
}

var areas = map[string]area{
	// Within ~2 km of Seoul City Hall: the densest spot of the seed.
	"seoul": {37.5665, 126.9780, 0.018, 0.022, 1000, "central Seoul, within ~2 km of City Hall"},
	// All of Seoul: a larger working set of tiles.
	"seoul-wide": {37.5665, 126.9780, 0.15, 0.2, 1000, "Seoul, within ~17 km of City Hall"},
	// Inland Gangwon, far from the seeded cities: ~3 guides per km².
	"sparse": {37.55, 128.45, 0.25, 0.35, 1000, "inland Gangwon (sparse)"},
}

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "guidepost base URL")
	areaName := flag.String("area", "seoul", "seoul | seoul-wide | sparse")
	conc := flag.Int("c", 16, "concurrent requests")
	dur := flag.Duration("d", 15*time.Second, "duration")
	limit := flag.Int("limit", 20, "limit per search")
	radius := flag.Float64("radius", 0, "radius_m (0: the area's default, 1000)")
	likes := flag.Int("likes", 0, "instead: N guest users each double-tap like on one new guide at once")
	texts := flag.String("q", "", "text searches, comma-separated: each request sends one of them, at random, as q")
	signedIn := flag.Bool("auth", false, "search as a guest user (lists then carry the viewer's likes and exact counts)")
	floor := flag.Bool("floor", false, "likes: alternate the storm between the API and a floor server (the same routes from memory)")
	floorDB := flag.String("floor-db", "", "likes -floor: also storm a database floor that commits each write in a scratch schema of this database (a PostgreSQL URL)")
	floorConns := flag.Int("floor-db-conns", apiPoolSize, "likes -floor-db: the database floor's pool size (the API's by default)")
	floorGroup := flag.Bool("floor-db-group", false, "likes -floor-db: the database floor's likes share commits as the API's do (4 committers, a 2 ms window) instead of one commit each")
	runs := flag.Int("runs", 3, "likes -floor: runs against each")
	flag.StringVar(&floorCPUs, "floor-cpus", "", "likes -floor: pin the floor servers to these CPUs (taskset -c list); pin this program apart with taskset, and the API and its database with the floors")
	storms := flag.Int("storms", 1, "likes -floor: storms against each a run, alternating, pooled into the run's figures")
	jsonOut := flag.Bool("json", false, "print the summary as JSON")
	flag.Parse()
	if *floorGroup && *floorDB == "" {
		fmt.Fprintln(os.Stderr, "-floor-db-group needs -floor-db")
		os.Exit(2)
	}
	if addr := os.Getenv(floorEnv); addr != "" {
		conns, _ := strconv.Atoi(os.Getenv(floorConnsEnv))
		group, _ := strconv.ParseBool(os.Getenv(floorGroupEnv))
		if err := serveFloor(addr, dbFloorOpts{os.Getenv(floorDBEnv), max(1, conns), group}); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		return
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: 4096, MaxConnsPerHost: 0, IdleConnTimeout: time.Minute}}
	var out any
	switch {
	case *likes > 0 && (*floor || *floorDB != ""):
		cmp, err := stormBesideFloor(client, *base, *likes, *runs, max(1, *storms), dbFloorOpts{*floorDB, *floorConns, *floorGroup})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out = cmp
		if !*jsonOut {
			cmp.print(os.Stdout)
			return
		}
	case *likes > 0:
		out = likeStorm(client, *base, *likes, func() float64 { return metricsCPU(client) })
	default:
		a, ok := areas[*areaName]
		if !ok {
			fmt.Fprintln(os.Stderr, "unknown area", *areaName)
			os.Exit(2)
		}
		if *radius > 0 {
			a.radius = *radius
		}
		var qs []string
		if *texts != "" {
			qs = strings.Split(*texts, ",")
		}
		token := ""
		if *signedIn {
			var s struct {
				AccessToken string `json:"access_token"`
			}
			post(client, "POST", *base+"/v1/auth/guest", "", "", &s)
			token = s.AccessToken
		}
		out = nearby(client, *base, a, *conc, *dur, *limit, qs, token)
	}
	if *jsonOut {
		json.NewEncoder(os.Stdout).Encode(out)
	} else {
		fmt.Printf("%+v\n", out)
	}
}

type nearbySummary struct {
	Area      string  `json:"area"`
	Conc      int     `json:"concurrency"`
	Requests  int     `json:"requests"`
	Errors    int     `json:"errors"`
	PerSecond float64 `json:"req_per_s"`
	P50ms     float64 `json:"p50_ms"`
	P95ms     float64 `json:"p95_ms"`
	P99ms     float64 `json:"p99_ms"`
	MeanItems float64 `json:"mean_items"`
}

func nearby(client *http.Client, base string, a area, conc int, dur time.Duration, limit int, texts []string, token string) nearbySummary {
	var (
		mu        sync.Mutex
		lats      []time.Duration
		errs      atomic.Int64
		items     atomic.Int64
		wg        sync.WaitGroup
		deadline  = time.Now().Add(dur)
		startTime = time.Now()
	)
	for w := range conc {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			var mine []time.Duration
			for time.Now().Before(deadline) {
				lat := a.lat + (rng.Float64()*2-1)*a.dLat
				lng := a.lng + (rng.Float64()*2-1)*a.dLng
				url := fmt.Sprintf("%s/v1/guides/nearby?lat=%.6f&lng=%.6f&radius_m=%g&limit=%d", base, lat, lng, a.radius, limit)
				if len(texts) > 0 {
					url += "&q=" + neturl.QueryEscape(texts[rng.IntN(len(texts))])
				}
				t0 := time.Now()
				req, _ := http.NewRequest("GET", url, nil)
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := client.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				var body struct{ Items []json.RawMessage }
				err = json.NewDecoder(resp.Body).Decode(&body)
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					errs.Add(1)
					continue
				}
				mine = append(mine, time.Since(t0))
				items.Add(int64(len(body.Items)))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(startTime)
	slices.Sort(lats)
	return nearbySummary{Area: a.description, Conc: conc, Requests: len(lats), Errors: int(errs.Load()),
		PerSecond: float64(len(lats)) / elapsed.Seconds(), P50ms: percentile(lats, 0.50), P95ms: percentile(lats, 0.95), P99ms: percentile(lats, 0.99),
		MeanItems: float64(items.Load()) / math.Max(1, float64(len(lats)))}
}

type likeSummary struct {
	Users        int         `json:"users"`
	Taps         int         `json:"taps"`
	Seconds      float64     `json:"seconds"`
	TapsPerS     float64     `json:"taps_per_s"`
	RecordedPerS float64     `json:"likes_recorded_per_s"`
	LikeCount    int64       `json:"like_count"`
	Answers      map[int]int `json:"answers"`
	P50ms        float64     `json:"p50_ms"`
	P95ms        float64     `json:"p95_ms"`
	P99ms        float64     `json:"p99_ms"`
	ServerCPU    float64     `json:"server_cpu_s"`     // during the storm; -1: unknown
	GeneratorCPU float64     `json:"generator_cpu_s"`  // this program, during the storm
	HostCPU      float64     `json:"host_cpu_s"`       // the whole machine busy, during the storm; -1: unknown
	HostCPUs     int         `json:"host_cpus"`        // the machine's CPUs
	DBCPU        float64     `json:"db_cpu_s"`         // every PostgreSQL process on the machine, during the storm; -1: unknown
	Storms       int         `json:"storms,omitempty"` // pooled into this summary (pool)

	lats []time.Duration // every tap's, sorted, for pooling storms
}

func post(client *http.Client, method, url, token, body string, out any) int {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// likeStorm: users guests, one new guide, every user taps like twice at
// the same moment; recorded likes are read back from the guide. serverCPU
// reads the server's CPU seconds (-1: unknown).
func likeStorm(client *http.Client, base string, users int, serverCPU func() float64) likeSummary {
	tokens := make([]string, users)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range users {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			var s struct {
				AccessToken string `json:"access_token"`
			}
			post(client, "POST", base+"/v1/auth/guest", "", "", &s)
			tokens[i] = s.AccessToken
		})
	}
	wg.Wait()
	var g struct{ ID string }
	post(client, "POST", base+"/v1/guides", tokens[0], `{"title":"like storm","lat":37.5665,"lng":126.978}`, &g)
	answers := map[int]int{}
	var lats []time.Duration
	var mu sync.Mutex
	start := make(chan struct{})
	for _, tok := range tokens {
		for range 2 {
			wg.Go(func() {
				<-start
				t0 := time.Now()
				code := post(client, "PUT", base+"/v1/guides/"+g.ID+"/like", tok, "", nil)
				took := time.Since(t0)
				mu.Lock()
				answers[code]++
				lats = append(lats, took)
				mu.Unlock()
			})
		}
	}
	time.Sleep(200 * time.Millisecond) // let every goroutine reach the gate
	// PostgreSQL's processes are read outside the other readings: walking
	// /proc is the generator's work, not the storm's.
	db0 := dbCPU()
	srv0, gen0 := serverCPU(), selfCPU()
	host0, cpus := hostCPU()
	t0 := time.Now()
	close(start)
	wg.Wait()
	took := time.Since(t0)
	srv1, gen1 := serverCPU(), selfCPU()
	host1, _ := hostCPU()
	db1 := dbCPU()
	var after struct {
		LikeCount int64 `json:"like_count"`
	}
	post(client, "GET", base+"/v1/guides/"+g.ID, "", "", &after)
	return pool([]likeSummary{{Users: users, Taps: 2 * users, Seconds: took.Seconds(), LikeCount: after.LikeCount,
		Answers: answers, ServerCPU: pick(srv0 >= 0 && srv1 >= 0, srv1-srv0, -1), GeneratorCPU: gen1 - gen0,
		HostCPU: pick(host0 >= 0 && host1 >= 0, host1-host0, -1), HostCPUs: cpus,
		DBCPU: dbCPUSince(db0, db1), lats: lats}})
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// metricsURL is where the server serves /metrics: not its public address
// unless METRICS_ADDR=public.
var metricsURL = flag.String("metrics", "http://127.0.0.1:9090", "the server's internal metrics address (its METRICS_ADDR; the -url when that is public)")

// metricsCPU is process_cpu_seconds_total from the server's /metrics, or -1.
func metricsCPU(client *http.Client) float64 {
	resp, err := client.Get(*metricsURL + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "process_cpu_seconds_total "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}
