package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/objstore"
)

const pgBin = "/usr/lib/postgresql/15/bin"

// postgres is a private PostgreSQL cluster on a spare port: restarting it
// never disturbs the shared server on 5432.
type postgres struct {
	dir  string
	port int
	url  string
}

func startPostgres(ctx context.Context, dir string, port int) (*postgres, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	os.Chmod(dir, 0o777) // initdb runs as postgres when we are root
	pg := &postgres{dir: dir, port: port,
		url: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/guidepost?sslmode=disable", port)}
	if err := asPostgres(ctx, filepath.Join(pgBin, "initdb"), "-D", pg.data(), "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		return nil, err
	}
	if err := pg.start(ctx); err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE DATABASE guidepost`)
	return pg, err
}

func (pg *postgres) data() string { return filepath.Join(pg.dir, "data") }

// start (re)starts the cluster and waits until it accepts connections.
// fsync is off: the drills crash processes, not the machine.
func (pg *postgres) start(ctx context.Context) error {
	return asPostgres(ctx, filepath.Join(pgBin, "pg_ctl"), "-D", pg.data(), "-w", "-l", filepath.Join(pg.dir, "log"),
		"-o", "-p "+strconv.Itoa(pg.port)+" -c listen_addresses=127.0.0.1 -k "+pg.dir+" -c fsync=off -c max_connections=200", "start")
}

// stop shuts the cluster down at once, as a crash would.
func (pg *postgres) stop(ctx context.Context) error {
	return asPostgres(ctx, filepath.Join(pgBin, "pg_ctl"), "-D", pg.data(), "-m", "immediate", "-w", "stop")
}

func asPostgres(ctx context.Context, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--"}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, args[0], args[1:]...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", filepath.Base(args[0]), err, out)
	}
	return nil
}

// sentinelSet is a Redis primary, a replica and three sentinels started by
// scripts/sentinel.sh on spare ports.
type sentinelSet struct {
	script    string
	dir       string
	env       []string
	url       string
	data      []int
	sentinels []int
}

func startSentinel(ctx context.Context, root, dir string) (*sentinelSet, error) {
	ports, err := freePorts(5)
	if err != nil {
		return nil, err
	}
	s := &sentinelSet{script: filepath.Join(root, "scripts", "sentinel.sh"), dir: dir, data: ports[:2], sentinels: ports[2:]}
	s.env = []string{
		fmt.Sprintf("SENTINEL_DATA_PORTS=%d %d", ports[0], ports[1]),
		fmt.Sprintf("SENTINEL_PORTS=%d %d %d", ports[2], ports[3], ports[4]),
	}
	out, err := s.run(ctx, "start", dir)
	if err != nil {
		return nil, err
	}
	s.url = strings.TrimSpace(out)
	return s, nil
}

func (s *sentinelSet) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", append([]string{s.script}, args...)...)
	cmd.Env = append(os.Environ(), s.env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("sentinel.sh %s: %v: %s", args[0], err, stderr.String())
	}
	return string(out), nil
}

// primary is the port of the data node every sentinel names as primary, and
// that node answers as one. Asking one sentinel is not enough: right after a
// failover the others may still name the old node, and a node restarted
// then can be taken back as primary by them, losing what the promoted one
// accepted meanwhile.
func (s *sentinelSet) primary(ctx context.Context) (int, error) {
	port := 0
	for _, sp := range s.sentinels {
		out, err := redisCLI(ctx, sp, "sentinel", "get-master-addr-by-name", "mymaster")
		if err != nil {
			return 0, err
		}
		f := strings.Fields(out)
		if len(f) != 2 {
			return 0, fmt.Errorf("sentinel %d names no primary", sp)
		}
		p, err := strconv.Atoi(f[1])
		if err != nil {
			return 0, err
		}
		if port != 0 && p != port {
			return 0, fmt.Errorf("sentinels disagree: %d and %d", port, p)
		}
		port = p
	}
	info, err := redisCLI(ctx, port, "info", "replication")
	if err != nil {
		return 0, err
	}
	if !strings.Contains(info, "role:master") {
		return 0, fmt.Errorf("node %d is named primary but is not one yet", port)
	}
	return port, nil
}

func redisCLI(ctx context.Context, port int, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "redis-cli", append([]string{"-p", strconv.Itoa(port)}, args...)...).Output()
	return string(out), err
}

// kill9 kills a data node the hard way.
func (s *sentinelSet) kill9(port int) error {
	b, err := os.ReadFile(filepath.Join(s.dir, fmt.Sprintf("redis-%d.pid", port)))
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return err
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

// restart brings a data node back; Sentinel makes it a replica of the
// current primary.
func (s *sentinelSet) restart(ctx context.Context, port int) error {
	_, err := s.run(ctx, "node", s.dir, strconv.Itoa(port))
	return err
}

// replicaLinked reports whether the node on port replicates from primary
// with its link up.
func replicaLinked(ctx context.Context, port, primary int) error {
	out, err := redisCLI(ctx, port, "info", "replication")
	if err != nil {
		return err
	}
	if !strings.Contains(out, "role:slave") || !strings.Contains(out, "master_link_status:up") ||
		!strings.Contains(out, fmt.Sprintf("master_port:%d\r", primary)) {
		return fmt.Errorf("node %d is not a linked replica of %d yet", port, primary)
	}
	return nil
}

func (s *sentinelSet) stop() {
	s.run(context.Background(), "stop", s.dir)
}

// s3Server is a private versitygw (the one scripts/stack.sh installed).
type s3Server struct {
	dir  string
	cfg  objstore.Config
	proc *proc
}

func startS3(ctx context.Context, dir string, port int) (*s3Server, error) {
	s := &s3Server{dir: dir, cfg: objstore.Config{
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), Region: "us-east-1",
		AccessKey: testkit.S3AccessKey, SecretKey: testkit.S3SecretKey, Bucket: "chaos",
	}}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	return s, objstore.New(s.cfg).CreateBucket(ctx)
}

func (s *s3Server) start(ctx context.Context) error {
	for _, d := range []string{"meta", "data"} {
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o755); err != nil {
			return err
		}
	}
	p, err := startProc("versitygw", filepath.Join(s.dir, "versitygw.log"),
		[]string{"ROOT_ACCESS_KEY_ID=" + s.cfg.AccessKey, "ROOT_SECRET_ACCESS_KEY=" + s.cfg.SecretKey},
		testkit.VersitygwPath(), "--port", strings.TrimPrefix(s.cfg.Endpoint, "http://"), "--quiet",
		"posix", "--sidecar", filepath.Join(s.dir, "meta"), filepath.Join(s.dir, "data"))
	if err != nil {
		return fmt.Errorf("%w (run `make stack` to install versitygw)", err)
	}
	s.proc = p
	hc := &http.Client{Timeout: time.Second}
	return waitFor(ctx, "versitygw", 30*time.Second, func() error {
		if !p.alive() {
			return errDied
		}
		resp, err := hc.Get(s.cfg.Endpoint)
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
}

func (s *s3Server) stop() { s.proc.stop(syscall.SIGTERM, 10*time.Second) }
