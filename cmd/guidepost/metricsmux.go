package main

import (
	"net/http"
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsMux is what an internal metrics address serves: /metrics and the
// runtime profiles under /debug/pprof/. Profiles reveal the process's
// internals and cost CPU on demand, so they live only here, never on
// HTTP_ADDR (METRICS_ADDR=public puts /metrics, and only it, there). The
// handlers are mounted by hand: importing net/http/pprof also registers
// them on http.DefaultServeMux, which nothing in guidepost serves.
func (a *app) metricsMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(a.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/debug/pprof/", pprof.Index) // also heap, goroutine, block, mutex, allocs
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
