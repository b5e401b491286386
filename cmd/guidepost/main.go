// Command guidepost is the whole backend in one binary: the HTTP API, the
// photo worker, migrations and demo data, chosen by subcommand.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/config"
	"github.com/guidepost/guidepost/worker"
)

const usage = `usage: guidepost <command> [flags]

commands:
  serve     run the HTTP API
  worker    run the photo worker (any number, on any machines)
  migrate   apply database migrations, then exit
  dev       migrations, then the API and a worker in one process (local use)
  seed      load demo data (guidepost seed -h for flags)
  admin     operator commands (guidepost admin for the list)
  render    render one photo file's derivatives into a folder (no service needed)
`

func main() {
	if len(os.Args) == 2 && os.Args[1] == worker.RenderChildCommand {
		// One render for a worker (worker.ChildRenderer): no config, no
		// logger, nothing but the photo on stdin.
		os.Exit(worker.RenderChild(os.Stdin, os.Stdout))
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "guidepost:", err)
		os.Exit(1)
	}
}

// run wires everything for one subcommand. Startup errors are returned, one
// line naming the dependency, never swallowed.
func run(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return errors.New("no command given")
	}
	if args[0] == "render" { // needs no configuration: a build checks its binary with it
		return renderPhoto(ctx, args[1:], stdout, getenv)
	}
	if args[0] == "dev" {
		getenv = developmentByDefault(getenv)
	}
	cfg, err := config.Parse(getenv)
	if err != nil {
		return err
	}
	out := stdout
	if longRunning[args[0]] {
		lines := guidepost.NewLogWriter(stdout, logFlushEvery, logBuffer)
		defer lines.Close() // before run returns: main may exit next
		out = lines
	}
	log := newLogger(cfg, out)
	switch args[0] {
	case "serve":
		return openAndRun(ctx, cfg, log, (*app).runAPI)
	case "worker":
		return openAndRun(ctx, cfg, log, (*app).runWorker)
	case "migrate":
		return migrate(ctx, cfg, log)
	case "dev":
		return dev(ctx, cfg, log)
	case "seed":
		return seed(ctx, cfg, log, args[1:], stdout)
	case "admin":
		return admin(ctx, cfg, log, args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stdout, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}

// longRunning commands log through a LogWriter: the API logs a line per
// request, and a write per line cost a hot answer as much as building the
// line. One-shot commands write theirs at once, between their own output.
var longRunning = map[string]bool{"serve": true, "worker": true, "dev": true}

// A line waits at most logFlushEvery (a variable for a test that needs
// the lines held until run returns); logBuffer bytes of lines go out at
// once (a few hundred access lines).
var logFlushEvery = 100 * time.Millisecond

const logBuffer = 64 << 10

// developmentByDefault makes `guidepost dev`, a local command, run as
// GUIDEPOST_ENV=development unless the environment says otherwise.
func developmentByDefault(getenv func(string) string) func(string) string {
	return func(k string) string {
		if v := getenv(k); v != "" || k != "GUIDEPOST_ENV" {
			return v
		}
		return "development"
	}
}

// newLogger is the process's one logger, handed to every component; no
// package logs through slog's global default. Lines logged with a request's
// context carry its request_id.
func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	return slog.New(guidepost.NewLogHandler(w, cfg.LogFormat == "json", opts))
}
