package api_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/api"
	"github.com/guidepost/guidepost/guides"
)

// stuckGuides is a guide store whose nearby search ignores its context
// until released, as CPU-bound or uncancellable work does.
type stuckGuides struct {
	guides.Store
	entered, release chan struct{}
}

func (s stuckGuides) Nearby(context.Context, guides.NearbyQuery) ([]guides.Item, error) {
	close(s.entered)
	<-s.release
	return nil, nil
}

// http.Server.Close does not wait for handlers; WaitHandlers does, so the
// caller can close the pools only once nothing uses them.
func TestWaitHandlersOutlastsServerClose(t *testing.T) {
	g := stuckGuides{entered: make(chan struct{}), release: make(chan struct{})}
	svc := guides.New(guides.Deps{Store: g, Clock: guidepost.SystemClock{}}, guides.Config{CursorKey: guides.CursorKey(strings.Repeat("k", 32))})
	s := api.New(api.Deps{Log: slog.New(slog.DiscardHandler), Registry: prometheus.NewRegistry(), Guides: svc}, api.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s.Handler()}
	var wg sync.WaitGroup
	wg.Go(func() { hs.Serve(ln) })
	wg.Go(func() {
		if resp, err := http.Get("http://" + ln.Addr().String() + "/v1/guides/nearby?lat=1&lng=2"); err == nil {
			resp.Body.Close()
		}
	})
	<-g.entered
	if err := hs.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if n, err := s.WaitHandlers(ctx); n != 1 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with a handler stuck: %d running, %v", n, err)
	}
	close(g.release)
	if _, err := s.WaitHandlers(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}
