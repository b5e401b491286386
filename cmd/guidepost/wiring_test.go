package main

import (
	"reflect"
	"testing"

	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/cache"
	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/media"
)

// With nothing set, the binary runs on the defaults each package's own
// tests run on: config starts from the packages' DefaultConfig, and the
// wiring hands every setting on. A rate the wiring dropped would be a
// limit the binary no longer has (a zero Rate limits nothing).
func TestWiringHandsOnThePackagesDefaults(t *testing.T) {
	cfg, err := config.Parse(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	a := &app{cfg: cfg}

	wantAPI := api.DefaultConfig()
	wantAPI.MetricsElsewhere = true // METRICS_ADDR is an internal address unless it says public
	gotAPI := a.apiConfig()
	gotAPI.Streams = wantAPI.Streams // the API's own timings, set by no variable
	if !reflect.DeepEqual(gotAPI, wantAPI) {
		t.Errorf("api config\n got %+v\nwant %+v", gotAPI, wantAPI)
	}

	if got, want := authConfig(cfg), auth.DefaultConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("auth config\n got %+v\nwant %+v", got, want)
	}

	// The fields no variable sets are left to media, which fills them.
	wantMedia := media.DefaultConfig()
	wantMedia.RenderSlots = cfg.WorkerConcurrency
	wantMedia.MaxPixels, wantMedia.MaxAttempts = 0, 0
	wantMedia.URLTTL, wantMedia.KeyTTL, wantMedia.KeyLease, wantMedia.OrphanLookback, wantMedia.OrphanFullEvery = 0, 0, 0, 0, 0
	wantMedia.Direct.PartSize, wantMedia.Direct.CompleteLease = 0, 0
	if got := a.mediaConfig(); !reflect.DeepEqual(got, wantMedia) {
		t.Errorf("media config\n got %+v\nwant %+v", got, wantMedia)
	}

	def := cache.DefaultConfig()
	wantCache := cache.Config{LikePoll: def.LikePoll, RefreshAfter: def.RefreshAfter, MaxAge: def.MaxAge,
		RedisTimeout: def.RedisTimeout, L1Bytes: def.L1Bytes, MaxTileGuides: def.MaxTileGuides, FillOnMiss: def.FillOnMiss, FillDuty: def.FillDuty, FillAllowance: def.FillAllowance}
	if got := a.cacheConfig(); !reflect.DeepEqual(got, wantCache) {
		t.Errorf("cache config\n got %+v\nwant %+v", got, wantCache)
	}
}
