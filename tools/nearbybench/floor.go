package main

import (
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

// The like storm's floor: the routes the storm uses, answered from memory
// by a minimal gin server — no database, no authentication, no batching —
// in a child process of this program, a process of its own as the API is.
// The same storm against it measures what the generator, 2,000 fresh
// connections and HTTP cost on this machine at this moment.
const floorEnv = "NEARBYBENCH_FLOOR_ADDR"

// serveFloor serves the floor on addr until the process is killed.
func serveFloor(addr string) error {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	var (
		mu     sync.Mutex
		tokens int
		guides int
		likers = map[string]map[string]bool{} // guide → tokens that liked it
	)
	r.POST("/v1/auth/guest", func(c *gin.Context) {
		mu.Lock()
		tokens++
		tok := "floor-" + strconv.Itoa(tokens)
		mu.Unlock()
		c.JSON(http.StatusCreated, gin.H{"access_token": tok})
	})
	r.POST("/v1/guides", func(c *gin.Context) {
		mu.Lock()
		guides++
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", guides)
		likers[id] = map[string]bool{}
		mu.Unlock()
		c.JSON(http.StatusCreated, gin.H{"id": id})
	})
	r.PUT("/v1/guides/:id/like", func(c *gin.Context) {
		tok := strings.TrimPrefix(c.GetHeader("Authorization"), "Bearer ")
		mu.Lock()
		set := likers[c.Param("id")]
		if set != nil {
			set[tok] = true
		}
		n := len(set)
		mu.Unlock()
		if set == nil {
			c.Status(http.StatusNotFound)
			return
		}
		c.JSON(http.StatusOK, gin.H{"liked_by_me": true, "like_count": n})
	})
	r.GET("/v1/guides/:id", func(c *gin.Context) {
		mu.Lock()
		n := len(likers[c.Param("id")])
		mu.Unlock()
		c.JSON(http.StatusOK, gin.H{"id": c.Param("id"), "like_count": n})
	})
	return http.ListenAndServe(addr, r)
}

// floorProc is the floor server this program started.
type floorProc struct {
	cmd  *exec.Cmd
	base string
}

// startFloor runs this program as the floor on a free loopback port and
// waits until it answers.
func startFloor() (*floorProc, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), floorEnv+"="+addr)
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

// selfCPU is this process's user+system CPU seconds: the generator's cost.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
