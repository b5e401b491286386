package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// fleet is the deployment the drills break: API processes and workers of
// one build against a private PostgreSQL, Redis under Sentinel and a
// private S3 server, all on spare ports of 127.0.0.1.
type fleet struct {
	root, dir string
	bin       string // guidepost
	loadBin   string // tools/loadtest
	log       *slog.Logger

	pg       *postgres
	replica  *postgres // nil unless fleetConfig.Replica
	redis    *sentinelSet
	s3       *s3Server
	env      []string
	apiAddrs []string
	apis     []*proc
	workers  []*proc
	started  int // processes started so far, for log names
}

type fleetConfig struct {
	APIs, Workers     int
	WorkerConcurrency int
	// Replica adds a streaming replica of PostgreSQL that the API
	// processes read from, and lists both servers in DATABASE_URL.
	Replica bool
}

// buildBinaries builds guidepost and the load generator into dir. The
// load generator belongs to the tools module, so it is built from tools/.
func buildBinaries(ctx context.Context, root, dir string) (bin, loadBin string, err error) {
	bin, loadBin = filepath.Join(dir, "guidepost"), filepath.Join(dir, "loadtest")
	builds := []struct{ out, moduleDir, pkg string }{
		{bin, root, "./cmd/guidepost"},
		{loadBin, filepath.Join(root, "tools"), "./loadtest"},
	}
	for _, b := range builds {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b.out, b.pkg)
		cmd.Dir = b.moduleDir
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return bin, loadBin, nil
}

// startFleet brings everything up; on error it stops what it started.
func startFleet(ctx context.Context, root, dir string, log *slog.Logger, cfg fleetConfig) (f *fleet, err error) {
	f = &fleet{root: root, dir: dir, log: log}
	os.Chmod(dir, 0o755) // PostgreSQL runs as its own user and must reach its folder
	defer func() {
		if err != nil {
			f.stop()
		}
	}()
	if f.bin, f.loadBin, err = buildBinaries(ctx, root, dir); err != nil {
		return nil, err
	}
	ports, err := freePorts(3 + cfg.APIs)
	if err != nil {
		return nil, err
	}
	replicaPort := ports[len(ports)-1]
	log.Info("starting PostgreSQL", "port", ports[0])
	if f.pg, err = startPostgres(ctx, filepath.Join(dir, "pg"), ports[0]); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	dbURL := f.pg.url
	if cfg.Replica {
		log.Info("starting a PostgreSQL replica", "port", replicaPort)
		if f.replica, err = startReplica(ctx, filepath.Join(dir, "pg-replica"), replicaPort, ports[0]); err != nil {
			return nil, fmt.Errorf("postgres replica: %w", err)
		}
		dbURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/guidepost?sslmode=disable&target_session_attrs=read-write", ports[0], replicaPort)
	}
	log.Info("starting Redis under Sentinel")
	if f.redis, err = startSentinel(ctx, root, filepath.Join(dir, "redis")); err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	log.Info("starting the S3 server", "port", ports[1])
	if f.s3, err = startS3(ctx, filepath.Join(dir, "s3"), ports[1]); err != nil {
		return nil, fmt.Errorf("s3: %w", err)
	}
	f.env = []string{
		"GUIDEPOST_ENV=development",
		"JWT_SECRET=chaos-drill-secret-0123456789abcdef0123456789", // one key: a token works on every API process
		"DATABASE_URL=" + dbURL,
		"REDIS_URL=" + f.redis.url,
		"S3_ENDPOINT=" + f.s3.cfg.Endpoint, "S3_BUCKET=" + f.s3.cfg.Bucket,
		"S3_ACCESS_KEY=" + f.s3.cfg.AccessKey, "S3_SECRET_KEY=" + f.s3.cfg.SecretKey,
		"WORKER_CONCURRENCY=" + strconv.Itoa(cfg.WorkerConcurrency),
		// A photo whose task a failover lost is queued again within ~25 s,
		// so a drill's drain sees it ready.
		"MEDIA_PENDING_AGE=20s", "MEDIA_SWEEP_INTERVAL=5s",
		"SHUTDOWN_TIMEOUT=15s",
		// Several API processes on one machine: the internal default
		// metrics port would be taken by the first.
		"METRICS_ADDR=public",
		// The generator is one address standing for many phones: lift the
		// per-address and per-account limits, as make bench does, so the
		// drills measure failovers rather than abuse limits.
		"RATE_GUEST_PER_IP=1000000/1h", "RATE_SIGNUP_PER_IP=1000000/1h", "RATE_UPLOADS_PER_USER=off",
		"RATE_GUIDE_WRITES_PER_USER=off", "RATE_LIKES_PER_USER=off", "UPLOAD_MAX_PER_IP=100000",
		"RATE_GUIDE_REFUSALS_PER_USER=off", "RATE_UPLOAD_REFUSALS_PER_USER=off",
		"TOKEN_TTL=24h",
	}
	if f.replica != nil {
		f.env = append(f.env, "DATABASE_REPLICA_URLS="+f.replica.url)
	}
	if out, err := f.run(ctx, "migrate"); err != nil {
		return nil, fmt.Errorf("migrate: %v\n%s", err, out)
	}
	for _, p := range ports[2 : 2+cfg.APIs] {
		f.apiAddrs = append(f.apiAddrs, "127.0.0.1:"+strconv.Itoa(p))
	}
	f.apis = make([]*proc, cfg.APIs)
	for i := range f.apis {
		if err := f.startAPI(ctx, i); err != nil {
			return nil, err
		}
	}
	for range cfg.Workers {
		if _, err := f.addWorker(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// run runs a guidepost subcommand to completion.
func (f *fleet) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, f.bin, args...)
	cmd.Env = append(os.Environ(), f.env...)
	return cmd.CombinedOutput()
}

func (f *fleet) logPath(name string) string {
	f.started++
	return filepath.Join(f.dir, fmt.Sprintf("%02d-%s.log", f.started, name))
}

// startAPI (re)starts API process i on its address and waits for /readyz.
func (f *fleet) startAPI(ctx context.Context, i int) error {
	name := fmt.Sprintf("api%d", i+1)
	p, err := startProc(name, f.logPath(name), append(f.env, "HTTP_ADDR="+f.apiAddrs[i]), f.bin, "serve")
	if err != nil {
		return err
	}
	f.apis[i] = p
	check := httpOK(f.apiURL(i) + "/readyz")
	return waitFor(ctx, name, 60*time.Second, func() error {
		if !p.alive() {
			return fmt.Errorf("%s %w (see %s)", name, errDied, p.log.Name())
		}
		return check()
	})
}

func (f *fleet) apiURL(i int) string { return "http://" + f.apiAddrs[i] }

func (f *fleet) addWorker() (*proc, error) {
	name := fmt.Sprintf("worker%d", len(f.workers)+1)
	p, err := startProc(name, f.logPath(name), f.env, f.bin, "worker")
	if err != nil {
		return nil, err
	}
	f.workers = append(f.workers, p)
	return p, nil
}

// replaceWorker starts a worker in place of worker i (after a kill).
func (f *fleet) replaceWorker(i int) error {
	name := fmt.Sprintf("worker%d", i+1)
	p, err := startProc(name, f.logPath(name), f.env, f.bin, "worker")
	if err != nil {
		return err
	}
	f.workers[i] = p
	return nil
}

// stop ends every process, then the dependencies.
func (f *fleet) stop() {
	for _, p := range append(append([]*proc{}, f.apis...), f.workers...) {
		p.stop(syscall.SIGTERM, 20*time.Second)
	}
	if f.s3 != nil && f.s3.proc != nil {
		f.s3.stop()
	}
	if f.redis != nil {
		f.redis.stop()
	}
	if f.replica != nil {
		f.replica.stop(context.Background())
	}
	if f.pg != nil {
		f.pg.stop(context.Background())
	}
}

// anyDied names a process of the fleet that exited on its own.
func (f *fleet) anyDied() error {
	var errs []error
	for _, p := range append(append([]*proc{}, f.apis...), f.workers...) {
		if p != nil && !p.alive() {
			errs = append(errs, fmt.Errorf("%s %w (see %s)", p.name, errDied, p.log.Name()))
		}
	}
	return errors.Join(errs...)
}
