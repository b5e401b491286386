package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// stormComparison is -likes with -floor: the same storm against the API
// and the floors, alternating, run after run. FloorDB is empty unless
// -floor-db asked for the database floor; Floor is the memory floor.
type stormComparison struct {
	Date         string        `json:"date"`
	Users        int           `json:"users"`
	Storms       int           `json:"storms"` // pooled into each run's figures
	API          []likeSummary `json:"api"`
	Floor        []likeSummary `json:"floor"`
	FloorDB      []likeSummary `json:"floor_db,omitempty"`
	FloorDBConns int           `json:"floor_db_conns,omitempty"` // the database floor's pool
	FloorDBGroup bool          `json:"floor_db_group,omitempty"` // its likes shared commits
}

// stormBesideFloor starts the floors, then storms each and the API in
// turn: the memory floor, the database floor when db.url is set, the API.
// Each run pools storms storms of each (pool).
func stormBesideFloor(client *http.Client, base string, users, runs, storms int, db dbFloorOpts) (*stormComparison, error) {
	f, err := startFloor(dbFloorOpts{})
	if err != nil {
		return nil, err
	}
	defer f.stop()
	var fdb *floorProc
	if db.url != "" {
		if fdb, err = startFloor(db); err != nil {
			return nil, err
		}
		defer fdb.stop()
	}
	cmp := &stormComparison{Date: time.Now().UTC().Format(time.RFC3339), Users: users, Storms: storms}
	storm := func(base string, cpu func() float64) likeSummary {
		s := likeStorm(client, base, users, cpu)
		client.CloseIdleConnections() // each storm opens its own connections, as 1,000 phones do
		return s
	}
	apiCPU := func() float64 { return metricsCPU(client) }
	for range runs {
		// The targets alternate storm by storm, so a run's pools see the
		// same moments of the machine.
		var api, floor, floorDB []likeSummary
		for range storms {
			floor = append(floor, storm(f.base, f.cpu))
			if fdb != nil {
				floorDB = append(floorDB, storm(fdb.base, fdb.cpu))
			}
			api = append(api, storm(base, apiCPU))
		}
		cmp.Floor, cmp.API = append(cmp.Floor, pool(floor)), append(cmp.API, pool(api))
		if fdb != nil {
			cmp.FloorDB, cmp.FloorDBConns, cmp.FloorDBGroup = append(cmp.FloorDB, pool(floorDB)), db.conns, db.group
		}
	}
	return cmp, nil
}

// busyShare is the machine's busy CPU over a run's storms against all its
// CPUs for their whole time: near 100 % the storms ran out of machine,
// and their p95 follows the work each target costs the machine.
func busyShare(s likeSummary) string {
	if s.HostCPU < 0 || s.Seconds <= 0 || s.HostCPUs <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", 100*s.HostCPU/(s.Seconds*float64(s.HostCPUs)))
}

// ratios is the API's p95 and recorded likes/s, run by run, over a floor's.
func ratios(api, floor []likeSummary) (p95, recorded []float64) {
	for i := range min(len(api), len(floor)) {
		p95 = append(p95, api[i].P95ms/floor[i].P95ms)
		recorded = append(recorded, api[i].RecordedPerS/floor[i].RecordedPerS)
	}
	return p95, recorded
}

func (c *stormComparison) print(w io.Writer) {
	db := len(c.FloorDB) > 0
	fmt.Fprintf(w, "like storm, %d users × 2 taps, %s; API beside the floor, run by run, %d storm(s) of each pooled a run\n",
		c.Users, c.Date, max(1, c.Storms))
	if db {
		fmt.Fprintf(w, "floor: from memory (what HTTP costs); db floor: %s, a pool of %d (the least durable work)\n",
			pick(c.FloorDBGroup, "likes sharing commits as the API's do", "one commit per write"), c.FloorDBConns)
	}
	fmt.Fprint(w, "run | API p50 / p95 ms | floor p50 / p95 ms | p95 ÷ floor | ")
	if db {
		fmt.Fprint(w, "db floor p50 / p95 ms | p95 ÷ db floor | ")
	}
	fmt.Fprint(w, "API recorded/s | floor recorded/s | ")
	if db {
		fmt.Fprint(w, "db floor recorded/s | ")
	}
	fmt.Fprintln(w, "API refused | server CPU s API / floor"+pick(db, " / db floor", "")+" | PostgreSQL CPU s API"+pick(db, " / db floor", "")+" | generator CPU s API / floor"+pick(db, " / db floor", "")+" | machine busy CPU s API / floor"+pick(db, " / db floor", "")+", and its share of the storms' time")
	p95, rec := ratios(c.API, c.Floor)
	dbP95, dbRec := ratios(c.API, c.FloorDB)
	for i := range c.API {
		a, f := c.API[i], c.Floor[i]
		fmt.Fprintf(w, "%d | %.0f / %.0f | %.0f / %.0f | %.2f | ", i+1, a.P50ms, a.P95ms, f.P50ms, f.P95ms, p95[i])
		if db {
			fmt.Fprintf(w, "%.0f / %.0f | %.2f | ", c.FloorDB[i].P50ms, c.FloorDB[i].P95ms, dbP95[i])
		}
		fmt.Fprintf(w, "%.0f (count %d) | %.0f | ", a.RecordedPerS, a.LikeCount, f.RecordedPerS)
		if db {
			fmt.Fprintf(w, "%.0f (count %d) | ", c.FloorDB[i].RecordedPerS, c.FloorDB[i].LikeCount)
		}
		fmt.Fprintf(w, "%d | %.2f / %.2f", a.Taps-a.Answers[http.StatusOK], a.ServerCPU, f.ServerCPU)
		if db {
			fmt.Fprintf(w, " / %.2f", c.FloorDB[i].ServerCPU)
		}
		fmt.Fprintf(w, " | %.2f", a.DBCPU)
		if db {
			fmt.Fprintf(w, " / %.2f", c.FloorDB[i].DBCPU)
		}
		fmt.Fprintf(w, " | %.2f / %.2f", a.GeneratorCPU, f.GeneratorCPU)
		if db {
			fmt.Fprintf(w, " / %.2f", c.FloorDB[i].GeneratorCPU)
		}
		fmt.Fprintf(w, " | %.2f / %.2f", a.HostCPU, f.HostCPU)
		if db {
			fmt.Fprintf(w, " / %.2f", c.FloorDB[i].HostCPU)
		}
		fmt.Fprintf(w, ", %s / %s", busyShare(a), busyShare(f))
		if db {
			fmt.Fprintf(w, " / %s", busyShare(c.FloorDB[i]))
		}
		fmt.Fprintln(w)
	}
	p95of := func(s likeSummary) float64 { return s.P95ms }
	fmt.Fprintf(w, "median: p95 ÷ floor %.2f; recorded/s ÷ floor %.2f; API p95 %.0f ms, floor p95 %.0f ms\n",
		median(p95), median(rec), median(field(c.API, p95of)), median(field(c.Floor, p95of)))
	if db {
		fmt.Fprintf(w, "median: p95 ÷ db floor %.2f; recorded/s ÷ db floor %.2f; db floor p95 %.0f ms\n",
			median(dbP95), median(dbRec), median(field(c.FloorDB, p95of)))
	}
}

func field(ss []likeSummary, f func(likeSummary) float64) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
