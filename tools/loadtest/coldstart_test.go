package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the guidepost binary: run with
// GUIDEPOST_LOAD_FAKE_SERVER=1, `serve` serves the fake API on HTTP_ADDR
// after a start-up delay, shedding its first requests
// (GUIDEPOST_LOAD_FAKE_SHED=0: none), until SIGTERM; `worker` idles until
// SIGTERM; `migrate` exits at once.
const (
	fakeServerEnv   = "GUIDEPOST_LOAD_FAKE_SERVER"
	fakeShedEnv     = "GUIDEPOST_LOAD_FAKE_SHED"
	fakeStartDelay  = 300 * time.Millisecond
	fakeRejectFirst = 25
)

func TestMain(m *testing.M) {
	if child, err := serveChild(os.Args); child { // a floor server
		if err != nil {
			os.Exit(1)
		}
		return
	}
	if os.Getenv(fakeServerEnv) == "1" {
		switch os.Args[len(os.Args)-1] {
		case "migrate":
		case "worker":
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			<-ctx.Done()
			stop()
		default:
			serveFakeProcess()
		}
		return
	}
	os.Exit(m.Run())
}

func serveFakeProcess() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	time.Sleep(fakeStartDelay) // a server that takes a while to become ready
	f := newFakeAPI()
	f.anyToken, f.rejectFirst = true, fakeRejectFirst
	if os.Getenv(fakeShedEnv) == "0" {
		f.rejectFirst = 0
	}
	srv := &http.Server{Addr: os.Getenv("HTTP_ADDR"), Handler: f.handler()}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		<-ctx.Done()
		_ = srv.Close()
	}()
	_ = srv.ListenAndServe()
	stop() // ends the closer when the server failed to start
	<-closed
}

func TestColdStartAgainstFakeProcess(t *testing.T) {
	t.Setenv(fakeServerEnv, "1") // inherited by the server subprocess: it becomes the fake
	setupFake := newFakeAPI()    // users and guides are made here, as on a running server
	setupSrv := setupFake.start(t)
	cfg := testConfig(t, "coldstart", setupSrv.URL)
	cfg.ServerBin = os.Args[0]
	cfg.Rate, cfg.Duration, cfg.SeedGuides = 60, 1500*time.Millisecond, 10
	cfg.ColdFloor = true // the same load on a fresh server first, each run with hot guides of its own
	sum, err := run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cs := sum.ColdStart
	if cs == nil {
		t.Fatal("no coldstart summary")
	}
	t.Logf("coldstart: %+v first minute %+v", *cs, cs.FirstMinute)
	if cs.ReadyAfterS < fakeStartDelay.Seconds() || cs.ReadyAfterS > 5 {
		t.Errorf("ready after %v s, want ≥ %v", cs.ReadyAfterS, fakeStartDelay.Seconds())
	}
	if cs.FirstMinute.Rejected != fakeRejectFirst || sum.Failures.ByStatus["503"] != fakeRejectFirst {
		t.Errorf("503s: first minute %d, by status %d; want %d", cs.FirstMinute.Rejected, sum.Failures.ByStatus["503"], fakeRejectFirst)
	}
	// 60/s for 1.5 s: vegeta's ConstantPacer sends hit k at k/60 s, so the
	// 90th falls on the end and may not be sent.
	if a := cs.FirstMinute.Arrivals; a < 88 || a > 90 || cs.FirstMinute.Served+fakeRejectFirst != cs.FirstMinute.Requests {
		t.Errorf("arrivals %d (want ~90 at 60/s for 1.5 s), served %d of %d", cs.FirstMinute.Arrivals, cs.FirstMinute.Served, cs.FirstMinute.Requests)
	}
	if cs.TargetRate != 60 || cs.Addr == "" || cs.After != nil {
		t.Errorf("coldstart fields: %+v", *cs)
	}
	if sum.Likes == nil || sum.Likes.Lost != 0 || sum.Likes.Duplicated != 0 || !sum.Likes.Verified || len(sum.Likes.Guides) != 20 {
		t.Errorf("likes on the cold server: %+v", sum.Likes)
	}
	if f := cs.CacheOff; f == nil || f.Rejected != fakeRejectFirst || f.Requests < 80 || f.P95Ratio <= 0 {
		t.Errorf("the floor run: %+v", f)
	}
	if sum.Worker.State != "none" || sum.CPU.ServerFrom != "proc" {
		t.Errorf("worker %+v, CPU %+v", sum.Worker, sum.CPU)
	}
}
