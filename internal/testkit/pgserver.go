package testkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

const pgBin = "/usr/lib/postgresql/15/bin"

// PGServer is a private PostgreSQL cluster for fault tests: stopping it
// never disturbs the shared server the other packages use.
type PGServer struct {
	Port int
	URL  string // database "guidepost", PostGIS available
	dir  string
	t    testing.TB
	// extra are server settings beyond the port (-c name=value …).
	extra string
}

// StartPostgres initialises and starts a throwaway cluster on a spare port.
// initdb refuses to run as root, so it runs as the postgres user.
func StartPostgres(t testing.TB) *PGServer {
	t.Helper()
	s := newPGServer(t, "guidepost-pg-")
	s.asPostgres(filepath.Join(pgBin, "initdb"), "-D", s.data(), "-A", "trust", "-U", "postgres", "--no-sync")
	s.Start()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `CREATE DATABASE guidepost`); err != nil {
		t.Fatal(err)
	}
	return s
}

// newPGServer is a server on a spare port whose folder (writable by the
// postgres user) is removed, the server stopped first, when the test ends.
func newPGServer(t testing.TB, prefix string) *PGServer {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	s := &PGServer{Port: FreePort(t), dir: dir, t: t}
	s.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/guidepost?sslmode=disable", s.Port)
	t.Cleanup(func() {
		s.Stop()
		os.RemoveAll(dir)
	})
	return s
}

func (s *PGServer) data() string { return filepath.Join(s.dir, "data") }

// Start (re)starts the cluster and waits until it accepts connections.
func (s *PGServer) Start() {
	s.t.Helper()
	s.asPostgres(filepath.Join(pgBin, "pg_ctl"), "-D", s.data(), "-w", "-l", filepath.Join(s.dir, "log"),
		"-o", "-p "+strconv.Itoa(s.Port)+" -c listen_addresses=127.0.0.1 -k "+s.dir+" -c fsync=off"+s.extra, "start")
}

// Stop shuts the cluster down at once, as a crash or a failover would.
func (s *PGServer) Stop() {
	cmd := exec.Command("runuser", "-u", "postgres", "--", filepath.Join(pgBin, "pg_ctl"), "-D", s.data(), "-m", "immediate", "-w", "stop")
	cmd.Run()
}

func (s *PGServer) asPostgres(args ...string) {
	s.t.Helper()
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
	} else {
		cmd = exec.Command(args[0], args[1:]...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("testkit: %v: %v\n%s", args[:1], err, out)
	}
}
