// Command guidepost-load drives realistic load against a local guidepost
// API: many guest users, distinct photos, map queries over Korean cities,
// likes with double taps. It counts accepted and completed work apart,
// classifies failures, and writes a JSON summary, an HTML report and a
// BENCHMARKS.md row per run. See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if child, err := serveChild(os.Args); child {
		if err != nil {
			log.Error("floor server", "err", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "guidepost-load:", err)
		os.Exit(2)
	}
	cfg.Log = log
	cfg.CommandLine = commandLine(os.Args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := execute(ctx, cfg); err != nil {
		log.Error("run failed", "err", err)
		os.Exit(1)
	}
}

// execute runs the scenario (or bench) and writes its outputs.
func execute(ctx context.Context, cfg Config) error {
	switch cfg.Scenario {
	case "bench":
		return runBench(ctx, cfg)
	case "scale":
		return runScale(ctx, cfg)
	}
	sum, err := run(ctx, cfg)
	if sum.Scenario == "" {
		return err
	}
	if werr := writeOutputs(&cfg, &sum); werr != nil {
		return errors.Join(err, werr)
	}
	printSummary(os.Stdout, &sum)
	return err
}
