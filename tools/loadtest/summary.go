package main

import (
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Summary is the JSON written per run (summary.json) and the input of the
// HTML report and the BENCHMARKS.md row.
type Summary struct {
	Scenario   string    `json:"scenario"`
	StepsOn    string    `json:"steps_on,omitempty"`
	Target     string    `json:"target"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Commit     string    `json:"commit,omitempty"`
	Command    string    `json:"command,omitempty"`
	Host       Host      `json:"host"`
	Load       LoadInfo  `json:"load"`
	Setup      SetupInfo `json:"setup"`

	Totals     KindStats            `json:"totals"` // foreground requests: the load itself
	Kinds      map[string]KindStats `json:"kinds"`
	Background map[string]KindStats `json:"background,omitempty"` // media polls, read-backs
	Failures   Failures             `json:"failures"`

	Uploads   *UploadSummary    `json:"uploads,omitempty"`
	Likes     *LikeSummary      `json:"likes,omitempty"`
	Queue     QueueSummary      `json:"queue"`
	ServerCPU ServerCPU         `json:"server_cpu"`
	Generator GeneratorCPU      `json:"generator_cpu"`
	CPU       CPUSplit          `json:"cpu"`
	Worker    WorkerInfo        `json:"worker"`
	Steps     *StepsSummary     `json:"steps,omitempty"`
	ColdStart *ColdStartSummary `json:"coldstart,omitempty"`
	Abuse     *AbuseSummary     `json:"abuse,omitempty"`
	Tiles     *TileSummary      `json:"tiles,omitempty"`

	Timeline     []Bucket `json:"timeline,omitempty"`
	Samples      []Sample `json:"samples,omitempty"`
	ErrorSamples []string `json:"error_samples,omitempty"`
	Notes        []string `json:"notes,omitempty"`
}

// Host says what the numbers were measured on: the generator shares it
// with the server unless -allow-remote.
type Host struct {
	NumCPU     int    `json:"num_cpu"`
	GOMAXPROCS int    `json:"gomaxprocs"` // of the generator
	GoVersion  string `json:"go_version"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
}

type LoadInfo struct {
	Model     string  `json:"model"` // open | closed | steps
	Rate      float64 `json:"rate,omitempty"`
	VUs       int     `json:"vus,omitempty"`
	RampS     float64 `json:"ramp_s,omitempty"`
	ThinkS    float64 `json:"think_s,omitempty"`
	DurationS float64 `json:"duration_s"`     // planned
	ActualS   float64 `json:"actual_s"`       // first arrival to last iteration done
	Seed      uint64  `json:"seed,omitempty"` // nearby: the trace's seed
}

type SetupInfo struct {
	Users           int     `json:"users"`
	GuidesSeeded    int     `json:"guides_seeded"`
	GuidesFound     int     `json:"guides_discovered"`
	GuidePool       int     `json:"guide_pool"`
	HotGuides       int     `json:"hot_guides,omitempty"`
	PhotoBytes      []int   `json:"photo_bytes,omitempty"`
	Requests        int     `json:"requests"`
	FailedRequests  int     `json:"failed_requests"`
	Seconds         float64 `json:"seconds"`
	SharedFromBench bool    `json:"shared,omitempty"`
}

type KindStats struct {
	Requests       int            `json:"requests"`
	RatePerS       float64        `json:"rate_per_s"`
	OK             int            `json:"ok"`
	SuccessRate    float64        `json:"success_rate"`
	ThroughputPerS float64        `json:"throughput_per_s"` // successes per second
	Latency        Latency        `json:"latency_ms"`
	StatusCodes    map[string]int `json:"status_codes"`
}

type Latency struct {
	Avg float64 `json:"avg"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

type Failures struct {
	ByStatus map[string]int `json:"by_status"` // "0": no HTTP answer
	ByKind   map[string]int `json:"by_kind"`   // timeout, connection_refused, 5xx, 4xx, …
	Rejected int            `json:"rejected"`  // 503/429: shed by the server
	Dropped  int            `json:"dropped"`   // arrivals the generator could not start
}

type UploadSummary struct {
	Attempted      int     `json:"attempted"`
	Accepted       int     `json:"accepted"`     // distinct media the API took (202)
	Deduplicated   int     `json:"deduplicated"` // 200: same bytes seen before (should be 0)
	AcceptedPerS   float64 `json:"accepted_per_s"`
	Ready          int     `json:"ready"`     // completed: status ready
	Failed         int     `json:"failed"`    // status failed
	NotReady       int     `json:"not_ready"` // still pending when the drain bound ran out
	ReadyPerS      float64 `json:"ready_per_s"`
	ReadyLatencyS  Latency `json:"accepted_to_ready_s"` // seconds, observed at poll granularity
	Drained        bool    `json:"drained"`
	DrainS         float64 `json:"drain_s"` // load end → last photo resolved (or the bound)
	DrainBoundS    float64 `json:"drain_bound_s"`
	MaxQueueDepth  float64 `json:"max_queue_depth"`
	PollIntervalMs float64 `json:"poll_interval_ms"`
}

type LikeSummary struct {
	Taps         int          `json:"taps"`
	Accepted     int          `json:"accepted"`
	AcceptedPerS float64      `json:"accepted_per_s"`
	Rejected     int          `json:"rejected"` // certainly not applied (4xx, 503, refused)
	Unknown      int          `json:"unknown"`  // outcome unknown (timeout, reset, 5xx)
	Mismatched   int          `json:"mismatched,omitempty"`
	Guides       []GuideLikes `json:"guides"`
	Expected     int          `json:"expected"` // Σ expected_min − baseline
	Recorded     int          `json:"recorded"` // Σ actual − baseline
	Lost         int          `json:"lost"`
	Duplicated   int          `json:"duplicated"`
	Verified     bool         `json:"verified"`
	ReadError    string       `json:"read_error,omitempty"`
}

type QueueSummary struct {
	Available  bool               `json:"available"`
	MaxDepth   float64            `json:"max_depth"`
	MaxByState map[string]float64 `json:"max_by_state,omitempty"`
	Scrapes    int                `json:"scrapes"`
	Failed     int                `json:"failed_scrapes"`
}

type ServerCPU struct {
	Available    bool    `json:"available"`
	LoadSeconds  float64 `json:"load_seconds"`  // during the load phase
	LoadCores    float64 `json:"load_cores"`    // load_seconds / load duration
	TotalSeconds float64 `json:"total_seconds"` // load + drain + verification
}

type GeneratorCPU struct {
	Seconds float64 `json:"seconds"` // user+sys of this process during the load
	Cores   float64 `json:"cores"`
}

// WorkerInfo is the photo worker's state during the load: "running",
// "paused" (this tool stopped it: a scenario without uploads), "drained"
// (not this tool's: it waited for the queue to empty first), "none" (the
// server started runs no worker) or "unknown".
type WorkerInfo struct {
	State          string  `json:"state"`
	BacklogAtStart float64 `json:"backlog_at_start"`    // media jobs queued when the load began (-1: unknown)
	Discarded      int     `json:"discarded,omitempty"` // queued jobs deleted after the run (bench: the next scenario starts empty)
}

type StepsSummary struct {
	On              string       `json:"on"`
	StepS           float64      `json:"step_s"`
	Rule            string       `json:"rule"`
	Steps           []StepResult `json:"steps"`
	HeldIndex       int          `json:"held_index"` // -1: none held
	HeldRate        float64      `json:"held_rate"`  // the ceiling: the highest rate held
	FirstFailedRate float64      `json:"first_failed_rate,omitempty"`
	StoppedEarly    bool         `json:"stopped_early"`    // the doubling stopped at a failing step
	Capped          bool         `json:"capped,omitempty"` // no step failed: the ceiling is above -step-max
	Refine          int          `json:"refine,omitempty"` // refining steps allowed after the first failure
}

type ColdStartSummary struct {
	Binary      string         `json:"binary"`
	Addr        string         `json:"addr"`
	ReadyAfterS float64        `json:"ready_after_s"` // process start → /readyz 200
	TargetRate  float64        `json:"target_rate"`
	FirstMinute WindowSummary  `json:"first_minute"`
	After       *WindowSummary `json:"after_first_minute,omitempty"`
	ServerLog   string         `json:"server_log,omitempty"`
	CacheOff    *ColdFloor     `json:"cache_off,omitempty"` // -cold-floor
	// PrimaryAlone is the same load on a fresh server without replicas
	// (-cold-replicas), run just before.
	PrimaryAlone *ColdFloor `json:"primary_alone,omitempty"`
	// PrimaryCPUS is the primary cluster's CPU seconds over the load
	// (-primary-data); per request, in ms, beside it.
	PrimaryCPUS     float64 `json:"primary_cpu_s,omitempty"`
	PrimaryCPUPerMs float64 `json:"primary_cpu_ms_per_request,omitempty"`
}

// ColdFloor is the same load on a fresh server with GUIDES_CACHE=off, run
// just before: what a cold cache is compared with.
type ColdFloor struct {
	Requests int            `json:"requests"`
	Latency  Latency        `json:"latency_ms"`
	Rejected int            `json:"rejected_503"`
	Failures map[string]int `json:"failures,omitempty"`
	P95Ratio float64        `json:"p95_ratio"` // the cold run's p95 ÷ this one's
	// The primary cluster's CPU over this run (-primary-data).
	PrimaryCPUS     float64 `json:"primary_cpu_s,omitempty"`
	PrimaryCPUPerMs float64 `json:"primary_cpu_ms_per_request,omitempty"`
	// Per kind and per second, to compare with the cold run's own.
	Kinds    map[string]KindStats `json:"kinds,omitempty"`
	Timeline []Bucket             `json:"timeline,omitempty"`
}

type WindowSummary struct {
	Seconds    float64        `json:"seconds"`
	Arrivals   int            `json:"arrivals"`
	Requests   int            `json:"requests"`
	Served     int            `json:"served"`
	ServedPerS float64        `json:"served_per_s"`
	Rejected   int            `json:"rejected_503"`
	Failures   map[string]int `json:"failures"`
	Latency    Latency        `json:"latency_ms"`
}

// Bucket is one second of the timeline (by request start time; ready
// photos by the time they were seen ready).
type Bucket struct {
	T        int     `json:"t"`
	Arrivals int     `json:"arrivals"`
	Dropped  int     `json:"dropped,omitempty"`
	Requests int     `json:"requests"`
	OK       int     `json:"ok"`
	Errors   int     `json:"errors"`
	Rejected int     `json:"rejected,omitempty"`
	Accepted int     `json:"uploads_accepted,omitempty"`
	Ready    int     `json:"photos_ready,omitempty"`
	Likes    int     `json:"likes_accepted,omitempty"`
	P50Ms    float64 `json:"p50_ms"`
	P95Ms    float64 `json:"p95_ms"`
	P99Ms    float64 `json:"p99_ms"`
}

func hostInfo() Host {
	return Host{NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func latencyOf(l vegeta.LatencyMetrics) Latency {
	return Latency{Avg: ms(l.Mean), P50: ms(l.P50), P95: ms(l.P95), P99: ms(l.P99), Max: ms(l.Max)}
}

func kindStats(k *kindAgg, dur time.Duration) KindStats {
	k.m.Close()
	n := int(k.m.Requests)
	ks := KindStats{Requests: n, OK: k.ok, Latency: latencyOf(k.m.Latencies), StatusCodes: k.m.StatusCodes}
	if n > 0 {
		ks.SuccessRate = round(float64(k.ok)/float64(n), 5)
	}
	if s := dur.Seconds(); s > 0 {
		ks.RatePerS, ks.ThroughputPerS = round(float64(n)/s, 3), round(float64(k.ok)/s, 3)
	}
	return ks
}

// quantiles of plain durations (small samples: accepted → ready).
func quantiles(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	sec := func(d time.Duration) float64 { return round(d.Seconds(), 3) }
	q := func(p float64) float64 { return sec(s[min(int(p*float64(len(s))), len(s)-1)]) }
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Latency{Avg: sec(sum / time.Duration(len(s))), P50: q(0.5), P95: q(0.95), P99: q(0.99), Max: sec(s[len(s)-1])}
}

func statusKey(code int) string { return strconv.Itoa(code) }

func round(v float64, digits int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', digits, 64), 64)
	return f
}

// uploadAttempts sums the upload kinds (one per photo size).
func uploadAttempts(kinds map[string]KindStats) int {
	n := 0
	for k, s := range kinds {
		if strings.HasPrefix(k, "upload:") {
			n += s.Requests
		}
	}
	return n
}
