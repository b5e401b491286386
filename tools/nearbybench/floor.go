package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gin-gonic/gin"
)

// The like storm's floor: the routes the storm uses, answered by a
// minimal gin server — no authentication, no batching — in a child process
// of this program, a process of its own as the API is. In memory (the
// default) the same storm against it measures what the generator, 2,000
// fresh connections and HTTP cost on this machine at this moment. With a
// database (floordb.go) it also does the least durable work the routes
// need, so the API can be set beside what a commit per write costs.
const (
	floorEnv      = "NEARBYBENCH_FLOOR_ADDR"
	floorDBEnv    = "NEARBYBENCH_FLOOR_DB"
	floorConnsEnv = "NEARBYBENCH_FLOOR_CONNS"
	floorGroupEnv = "NEARBYBENCH_FLOOR_GROUP"
)

// floorStore is what a floor keeps: guests, guides and who liked which.
// found is false for a guide it never made.
type floorStore interface {
	guest(ctx context.Context) (token string, err error)
	newGuide(ctx context.Context) (id string, err error)
	like(ctx context.Context, guide, token string) (count int, found bool, err error)
	count(ctx context.Context, guide string) (count int, found bool, err error)
}

// memFloor is the memory floor: every answer from maps under one lock.
type memFloor struct {
	mu     sync.Mutex
	tokens int
	guides int
	likers map[string]map[string]bool // guide → tokens that liked it
}

func newMemFloor() *memFloor { return &memFloor{likers: map[string]map[string]bool{}} }

func (m *memFloor) guest(context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tokens++
	return "floor-" + strconv.Itoa(m.tokens), nil
}

func (m *memFloor) newGuide(context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.guides++
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", m.guides)
	m.likers[id] = map[string]bool{}
	return id, nil
}

func (m *memFloor) like(_ context.Context, guide, token string) (int, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	set := m.likers[guide]
	if set == nil {
		return 0, false, nil
	}
	set[token] = true
	return len(set), true, nil
}

func (m *memFloor) count(_ context.Context, guide string) (int, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	set, ok := m.likers[guide]
	return len(set), ok, nil
}

// floorHandler answers the storm's routes from st.
func floorHandler(st floorStore) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	fail := func(c *gin.Context, err error) {
		c.String(http.StatusInternalServerError, err.Error())
	}
	r.POST("/v1/auth/guest", func(c *gin.Context) {
		tok, err := st.guest(c)
		if err != nil {
			fail(c, err)
			return
		}
		c.JSON(http.StatusCreated, gin.H{"access_token": tok})
	})
	r.POST("/v1/guides", func(c *gin.Context) {
		id, err := st.newGuide(c)
		if err != nil {
			fail(c, err)
			return
		}
		c.JSON(http.StatusCreated, gin.H{"id": id})
	})
	r.PUT("/v1/guides/:id/like", func(c *gin.Context) {
		tok := strings.TrimPrefix(c.GetHeader("Authorization"), "Bearer ")
		n, found, err := st.like(c, c.Param("id"), tok)
		switch {
		case err != nil:
			fail(c, err)
		case !found:
			c.Status(http.StatusNotFound)
		default:
			c.JSON(http.StatusOK, gin.H{"liked_by_me": true, "like_count": n})
		}
	})
	r.GET("/v1/guides/:id", func(c *gin.Context) {
		n, _, err := st.count(c, c.Param("id"))
		if err != nil {
			fail(c, err)
			return
		}
		c.JSON(http.StatusOK, gin.H{"id": c.Param("id"), "like_count": n})
	})
	return r
}

// serveFloor serves the floor on addr until the process is killed: from
// memory, or from the database db.url.
func serveFloor(addr string, db dbFloorOpts) error {
	var st floorStore = newMemFloor()
	if db.url != "" {
		db, err := openDBFloor(context.Background(), db)
		if err != nil {
			return err
		}
		defer db.close()
		st = db
	}
	return http.ListenAndServe(addr, floorHandler(st))
}

// floorProc is the floor server this program started.
type floorProc struct {
	cmd  *exec.Cmd
	base string
}

// floorCPUs, when set (-floor-cpus), pins the floors to these CPUs with
// taskset, as the API and its database can be pinned outside: with the
// generator pinned apart, it takes no time from either server.
var floorCPUs string

// startFloor runs this program as the floor on a free loopback port and
// waits until it answers; with db.url, the database floor.
func startFloor(db dbFloorOpts) (*floorProc, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(os.Args[0])
	if floorCPUs != "" {
		cmd = exec.Command("taskset", "-c", floorCPUs, os.Args[0])
	}
	cmd.Env = append(os.Environ(), floorEnv+"="+addr, floorDBEnv+"="+db.url, floorConnsEnv+"="+strconv.Itoa(db.conns),
		floorGroupEnv+"="+strconv.FormatBool(db.group))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f := &floorProc{cmd: cmd, base: "http://" + addr}
	for range 100 {
		if resp, err := http.Get(f.base + "/v1/guides/probe"); err == nil {
			resp.Body.Close()
			return f, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.stop()
	return nil, fmt.Errorf("the floor server did not answer on %s", addr)
}

func (f *floorProc) stop() {
	_ = f.cmd.Process.Signal(syscall.SIGTERM)
	_ = f.cmd.Wait()
}

// cpu is the floor process's CPU seconds so far.
func (f *floorProc) cpu() float64 { return procCPU(f.cmd.Process.Pid) }

// hostCPU is the CPU seconds the whole machine has been busy (every
// process: the servers, their database and Redis, and this generator),
// and how many CPUs it has, from /proc/stat; -1 when unknown. Over a
// storm, against its length times the CPUs, it tells whether the storm
// ran out of machine. The CPUs are counted here, not with
// runtime.NumCPU, which counts only those this process may run on
// (under taskset, one).
func hostCPU() (busy float64, cpus int) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return -1, 0
	}
	lines := strings.Split(string(b), "\n")
	for _, l := range lines[1:] {
		if len(l) > 3 && strings.HasPrefix(l, "cpu") && l[3] >= '0' && l[3] <= '9' {
			cpus++
		}
	}
	return hostBusy(lines[0]), cpus
}

// hostBusy reads /proc/stat's aggregate "cpu" line: user, nice, system,
// idle, iowait, irq, softirq, steal in clock ticks (USER_HZ, 100 on
// Linux); busy is all but idle and iowait.
func hostBusy(line string) float64 {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return -1
	}
	var busy float64
	for i, v := range f[1:9] {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return -1
		}
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return busy / 100
}

// procCPU is a process's user+system CPU seconds from /proc (fields 14 and
// 15, counted after the command name's last ')'), or -1.
func procCPU(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return (u + k) / 100 // USER_HZ
}

// dbCPU is the nanoseconds on a CPU of every PostgreSQL process on this
// machine (its backends, WAL writer, checkpointer…) by PID, from each
// one's /proc/PID/schedstat: over a storm, what the database spent on
// it, which the machine's busy time holds but cannot tell apart. nil when
// /proc cannot be read or shows no PostgreSQL (it runs elsewhere).
func dbCPU() map[string]int64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var ns map[string]int64
	for _, e := range ents {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		if comm, err := os.ReadFile("/proc/" + pid + "/comm"); err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		if b, err := os.ReadFile("/proc/" + pid + "/schedstat"); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				if ns == nil {
					ns = map[string]int64{}
				}
				ns[pid] = n
			}
		}
	}
	return ns
}

// dbCPUSince is the CPU seconds PostgreSQL spent from before to after
// (dbCPU), process by process: the difference of two totals fell when a
// backend of a closing pool exited meanwhile, taking its whole life's
// time with it. One that exits takes only its time since before; one
// that began meanwhile (or reuses a PID) counts all of its own. -1 when
// either is unknown.
func dbCPUSince(before, after map[string]int64) float64 {
	if before == nil || after == nil {
		return -1
	}
	var ns int64
	for pid, n := range after {
		if b, ok := before[pid]; ok && b <= n {
			n -= b
		}
		ns += n
	}
	return float64(ns) / 1e9
}

// selfCPU is this process's user+system CPU seconds: the generator's cost.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
