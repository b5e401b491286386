package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
)

// RenderChildCommand is the hidden subcommand of the guidepost binary that
// renders one photo for a ChildRenderer: request on stdin, result on stdout.
const RenderChildCommand = "render-child"

// Limits of one render in a child process. image/jpeg and the HEIC
// WebAssembly decoder cannot be interrupted, and input checks bound their
// cost only as far as we know their inputs; a process can always be
// killed. A render of the costliest photo we accept (a 48 MP HEIC through
// WebAssembly) takes about 11 s of CPU, so 20 s of CPU is a file built to
// be slow, and fails as too complex; the encodings beside JPEG, each held
// to the JPEG's SSIM, add photo.EncoderCPU to both limits. The
// wall-clock limit is above it by
// what a busy machine may add; reaching it with CPU to spare says the
// machine was slow, not the photo bad, so that render is retried.
const (
	DefaultRenderCPU  = 20 * time.Second
	DefaultRenderWall = 30 * time.Second
)

// ChildRenderer implements media.Renderer by running each render in a
// child process (the same binary, RenderChildCommand) with a CPU-time limit
// (RLIMIT_CPU, enforced by the kernel with SIGKILL), a memory limit of the
// render's weight (RLIMIT_DATA, which counts the heap and every private
// writable mapping, and the Go runtime's soft limit below it), and a wall
// clock: the child is killed when the task's ctx ends. Render returns only
// once the child has exited, so the decode semaphore's weight is released
// with the memory it stood for.
type ChildRenderer struct {
	Command []string // the binary and its arguments, ending in RenderChildCommand
	Env     []string // the child's environment, besides the runtime's own variables
	CPU     time.Duration
	Wall    time.Duration
	Log     *slog.Logger // nil discards
}

var _ media.Renderer = (*ChildRenderer)(nil)

type childRequest struct {
	Info     []byte
	Size     int64
	MemLimit int64 // bytes
	CPU      int64 // seconds
	// Encodings beside JPEG (photo.Options.Encodings).
	Encodings []photo.Encoding
}

type childStage struct {
	Name string
	D    time.Duration
}

type childResponse struct {
	Result photo.Result
	Stages []childStage
	Kind   string // which photo error, "" when none
	Err    string
}

// errKinds names the photo errors that cross the process boundary.
var errKinds = map[string]error{
	"corrupt": photo.ErrCorrupt, "unsupported": photo.ErrUnsupported, "pixels": photo.ErrTooManyPixels,
	"too_large": photo.ErrTooLarge, "too_complex": photo.ErrTooComplex,
}

// childBase is what a render child holds resident before it renders: the
// binary's text and the Go runtime (about 15 MiB measured), with room.
const childBase = 32 << 20

// Weight is the memory one render in a child takes: the render's own
// (photo.Info.RenderMemory, which bounds the child's data segment) and the
// process around it. The media service weighs renders with it.
func (c *ChildRenderer) Weight(info photo.Info) int64 { return info.RenderMemory() + childBase }

// Render runs one render in a child process.
func (c *ChildRenderer) Render(ctx context.Context, data []byte, info photo.Info, opts photo.Options) (photo.Result, error) {
	cpu, wall := c.CPU, c.Wall
	if cpu <= 0 {
		cpu = DefaultRenderCPU
	}
	if wall <= 0 {
		wall = DefaultRenderWall
	}
	// The encodings beside JPEG, held to its SSIM, add their own time.
	cpu += photo.EncoderCPU(opts.Encodings)
	wall += photo.EncoderCPU(opts.Encodings)
	wire, err := info.MarshalBinary()
	if err != nil {
		return photo.Result{}, err
	}
	memLimit := info.RenderMemory() + photo.EncoderMemory(opts.Encodings)
	var req bytes.Buffer
	if err := gob.NewEncoder(&req).Encode(childRequest{Info: wire, Size: int64(len(data)), MemLimit: memLimit, CPU: int64(cpu / time.Second),
		Encodings: opts.Encodings}); err != nil {
		return photo.Result{}, err
	}
	wctx, cancel := context.WithTimeout(ctx, wall)
	defer cancel()
	cmd := exec.CommandContext(wctx, c.Command[0], c.Command[1:]...)
	cmd.Env = append(childEnv(), c.Env...)
	cmd.SysProcAttr = childAttr()
	cmd.Stdin = io.MultiReader(&req, bytes.NewReader(data))
	var stdout bytes.Buffer
	stderr := &headBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	used, peak := usage(cmd.ProcessState)
	c.log().DebugContext(ctx, "render child", "cpu", used, "max_rss_mib", peak>>20, "weight_mib", memLimit>>20,
		"wall", time.Since(start), "err", runErr)
	if runErr != nil {
		return photo.Result{}, c.childFailed(ctx, wctx, runErr, stderr.String(), used, cpu, memLimit, wall)
	}
	var resp childResponse
	if err := gob.NewDecoder(&stdout).Decode(&resp); err != nil {
		return photo.Result{}, fmt.Errorf("render child: bad answer: %w", err)
	}
	if opts.Stage != nil {
		for _, s := range resp.Stages {
			opts.Stage(s.Name, s.D)
		}
	}
	if resp.Err != "" {
		if kind, ok := errKinds[resp.Kind]; ok {
			return photo.Result{}, fmt.Errorf("%w: %s", kind, strings.TrimPrefix(resp.Err, kind.Error()+": "))
		}
		return photo.Result{}, fmt.Errorf("render child: %s", resp.Err)
	}
	return resp.Result, nil
}

// childFailed says why a child ended without an answer: the photo's fault
// (CPU or memory limit: ErrTooComplex), the task's (ctx ended), the
// machine's (the wall clock with CPU to spare: retried), or ours.
func (c *ChildRenderer) childFailed(ctx, wctx context.Context, err error, stderr string, used, cpu time.Duration, memLimit int64, wall time.Duration) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case wctx.Err() == nil && killed(err):
		// Not by us: the kernel, at the CPU limit (its accounting may
		// show a little less than the limit).
		return fmt.Errorf("%w: decoding took more than %s of CPU", photo.ErrTooComplex, cpu)
	case outOfMemory(stderr):
		return fmt.Errorf("%w: decoding needed more than the %d MiB its header promised", photo.ErrTooComplex, memLimit>>20)
	case wctx.Err() != nil:
		return fmt.Errorf("render child: no answer after %s (%s of CPU): %w", wall, used, context.DeadlineExceeded)
	}
	return fmt.Errorf("render child: %w: %s", err, firstLine(stderr))
}

func (c *ChildRenderer) log() *slog.Logger { return guidepost.Logger(c.Log) }

// outOfMemory tells a child that ran into its data limit: the Go runtime
// says "out of memory", or faults on a mapping it could not make.
func outOfMemory(stderr string) bool {
	for _, sign := range []string{"out of memory", "cannot allocate memory", "SIGSEGV"} {
		if strings.Contains(stderr, sign) {
			return true
		}
	}
	return false
}

// childEnv passes a render child only what the Go runtime and a native
// libheif read: the child parses hostile bytes, and has no use for the
// database URL, the S3 keys or the JWT secret.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PATH", "TMPDIR", "LD_LIBRARY_PATH", "GODEBUG", "GOMAXPROCS", "GOTRACEBACK":
			env = append(env, kv)
		}
	}
	return env
}

func killed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// usage is the CPU time and peak resident memory of an exited child.
func usage(ps *os.ProcessState) (cpu time.Duration, maxRSS int64) {
	if ps == nil {
		return 0, 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return ps.UserTime() + ps.SystemTime(), 0
	}
	return ps.UserTime() + ps.SystemTime(), ru.Maxrss << 10 // KiB on Linux
}

// RenderChild is the child's side: it limits itself before reading the
// photo, renders, writes the answer and returns the exit code. It is meant
// to be the whole of a process (main calls it for RenderChildCommand).
func RenderChild(stdin io.Reader, stdout io.Writer) int {
	br := bufio.NewReader(stdin) // a ByteReader, so gob reads no further than its message
	var req childRequest
	if err := gob.NewDecoder(br).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "render-child: bad request:", err)
		return 2
	}
	if err := limitSelf(req.CPU, req.MemLimit); err != nil {
		fmt.Fprintln(os.Stderr, "render-child:", err)
		return 2
	}
	var info photo.Info
	if err := info.UnmarshalBinary(req.Info); err != nil {
		fmt.Fprintln(os.Stderr, "render-child: bad info:", err)
		return 2
	}
	data := make([]byte, req.Size)
	if _, err := io.ReadFull(br, data); err != nil {
		fmt.Fprintln(os.Stderr, "render-child: short input:", err)
		return 2
	}
	var resp childResponse
	res, err := photo.RenderProbed(context.Background(), data, info, photo.Options{
		Encodings: req.Encodings,
		Stage:     func(name string, d time.Duration) { resp.Stages = append(resp.Stages, childStage{name, d}) },
	})
	resp.Result = res
	if err != nil {
		resp.Err = err.Error()
		for kind, e := range errKinds {
			if errors.Is(err, e) {
				resp.Kind = kind
			}
		}
	}
	if err := gob.NewEncoder(stdout).Encode(resp); err != nil {
		fmt.Fprintln(os.Stderr, "render-child: writing the answer:", err)
		return 2
	}
	return 0
}

// limitSelf sets the kernel's limits on this process: CPU seconds (soft =
// hard: the kernel sends SIGKILL when they are used up; Go ignores the
// SIGXCPU a lower soft limit would send) and its data segment, which
// counts the Go heap and every other private writable mapping (resident
// or not, so it bounds the resident set from above). The Go
// runtime's soft limit sits below it, so the collector works harder
// before the kernel refuses memory.
func limitSelf(cpuSeconds, memLimit int64) error {
	if cpuSeconds > 0 {
		if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: uint64(cpuSeconds), Max: uint64(cpuSeconds)}); err != nil {
			return fmt.Errorf("RLIMIT_CPU: %w", err)
		}
	}
	if memLimit > 0 && !raceBuild {
		// On top of what the idle process has mapped: the Go runtime maps
		// ~40 MB at start, nearly none of it resident.
		limit := uint64(memLimit) + dataSegment()
		if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			return fmt.Errorf("RLIMIT_DATA: %w", err)
		}
		debug.SetMemoryLimit(memLimit * 3 / 4)
	}
	return nil
}

// dataSegment is this process's data segment now (VmData), in bytes: what
// RLIMIT_DATA counts. 0 where /proc does not tell.
func dataSegment() uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmData:"); ok {
			var kib uint64
			fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kib)
			return kib << 10
		}
	}
	return 0
}

// headBuffer keeps the first max bytes written: a child's panic or the
// runtime's "out of memory" opens its stderr, goroutine dumps follow.
type headBuffer struct {
	buf []byte
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) String() string { return string(h.buf) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
