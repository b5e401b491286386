package main

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// pairState is what the tool knows about one (user, guide) like: whether
// the like may exist and whether it may be absent. Both true means a
// request with an unknown outcome (timeout, dropped connection, 5xx) left it
// undecided; the read-back then accepts either.
type pairState struct{ mayLiked, mayUnliked bool }

type likeAnswer struct {
	Liked     bool `json:"liked_by_me"`
	LikeCount int  `json:"like_count"`
}

// likeStats counts taps as the server answered them.
type likeStats struct {
	taps, accepted, rejected, unknown, mismatched atomic.Int64
}

// tap sends taps identical like (or unlike) requests for u on guide at
// once, as a double tap on a phone does, and updates the expected state.
// choose gets the current certain state and returns like (true) or unlike.
// Taps of one user are serialised by u.mu: mixing a like and an unlike in
// flight would leave the expected state undefined.
func (e *env) tap(ctx context.Context, u *user, guide string, taps int, choose func(liked bool) bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	like := choose(likedNow(u, guide))
	kind, method := "like", http.MethodPut
	if !like {
		kind, method = "unlike", http.MethodDelete
	}
	outs := make([]outcome, taps)
	answers := make([]likeAnswer, taps)
	var wg sync.WaitGroup
	for i := range taps {
		send := func() {
			outs[i] = e.c.do(ctx, request{kind: kind, method: method,
				path: "/v1/guides/" + guide + "/like", user: u, out: &answers[i]})
		}
		if i == taps-1 {
			send() // the last tap on this goroutine: one fewer goroutine per tap
		} else {
			wg.Go(send)
		}
	}
	wg.Wait()
	e.applyTaps(u, guide, like, outs, answers)
}

func (e *env) applyTaps(u *user, guide string, like bool, outs []outcome, answers []likeAnswer) {
	st := u.likes[guide]
	if st == nil {
		st = &pairState{mayUnliked: true}
		u.likes[guide] = st
	}
	success, unknown := false, false
	for i, o := range outs {
		e.likeStats.taps.Add(1)
		switch {
		case o.ok():
			success = true
			e.likeStats.accepted.Add(1)
			e.c.rec.event(evLike, time.Now())
			if answers[i].Liked != like {
				e.likeStats.mismatched.Add(1)
			}
		case mayHaveApplied(o.code, o.fail):
			unknown = true
			e.likeStats.unknown.Add(1)
		default:
			e.likeStats.rejected.Add(1)
		}
	}
	switch {
	case success: // idempotent: one success fixes the state whatever the other tap did
		st.mayLiked, st.mayUnliked = like, !like
	case unknown && like:
		st.mayLiked = true
	case unknown:
		st.mayUnliked = true
	}
}

// likedNow tells the current certain state (u.mu held).
func likedNow(u *user, guide string) bool {
	st := u.likes[guide]
	return st != nil && st.mayLiked && !st.mayUnliked
}

// GuideLikes compares one guide's like count with the expectation.
type GuideLikes struct {
	ID          string `json:"id"`
	Baseline    int    `json:"baseline"`
	ExpectedMin int    `json:"expected_min"` // baseline + pairs certainly liked
	ExpectedMax int    `json:"expected_max"` // + pairs whose last request had an unknown outcome
	Actual      int    `json:"actual"`
	Lost        int    `json:"lost"`
	Duplicated  int    `json:"duplicated"`
}

// expectLikes folds every user's final state into per-guide bounds.
func expectLikes(users []*user, hot []*hotGuide) []GuideLikes {
	rows := make([]GuideLikes, len(hot))
	for i, h := range hot {
		rows[i] = GuideLikes{ID: h.id, Baseline: h.baseline, ExpectedMin: h.baseline, ExpectedMax: h.baseline}
	}
	for _, u := range users {
		u.mu.Lock()
		for i, h := range hot {
			if st := u.likes[h.id]; st != nil && st.mayLiked {
				rows[i].ExpectedMax++
				if !st.mayUnliked {
					rows[i].ExpectedMin++
				}
			}
		}
		u.mu.Unlock()
	}
	return rows
}

// compareLikes fills Actual, Lost and Duplicated; it reports whether every
// count lies within its bounds.
func compareLikes(rows []GuideLikes, actual []int) bool {
	ok := true
	for i := range rows {
		r := &rows[i]
		r.Actual = actual[i]
		r.Lost = max(0, r.ExpectedMin-r.Actual)
		r.Duplicated = max(0, r.Actual-r.ExpectedMax)
		ok = ok && r.Lost == 0 && r.Duplicated == 0
	}
	return ok
}

// verifyLikes reads the counts back until they match or settle runs out:
// a server that records likes asynchronously gets time to catch up, and
// what is still missing then is reported as lost.
func (e *env) verifyLikes(ctx context.Context, hot []*hotGuide, settle time.Duration) *LikeSummary {
	rows := expectLikes(e.fx.users, hot)
	deadline := time.Now().Add(settle)
	var readErr string
	for {
		actual, err := e.readCounts(ctx, hot)
		if err != nil {
			readErr = err.Error()
		} else if readErr = ""; compareLikes(rows, actual) {
			break
		}
		if time.Now().After(deadline) || !sleepCtx(ctx, e.cfg.PollEvery) {
			break
		}
	}
	return e.likeSummary(rows, readErr)
}

func (e *env) readCounts(ctx context.Context, hot []*hotGuide) ([]int, error) {
	out := make([]int, len(hot))
	for i, h := range hot {
		n, err := readLikeCount(ctx, e.c, e.fx.users[0], h.id, "like_readback")
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}
