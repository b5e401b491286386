package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
)

// Two side doors cost this host more than guidepost: the probe shares two
// cores with the attack's generator and with the worker. Their floor is a
// third half, after the attacked one, in which the probe runs beside a
// load that does the attack's irreducible work and nothing of guidepost's:
//
//   - refresh-flood: the same flood, from the same generator at the same
//     rate, against a minimal gin server (a process of its own) that
//     answers every request with the bytes guidepost's refusal carries.
//     It is what the host pays to take the flood, whoever refuses it.
//   - upload-flood: the uploads the attack got accepted, made once by a
//     well-behaved guest at the same concurrency, and rendered by the same
//     worker. It is what the host pays for the photos the limits let in.
//
// The claim for such a door is its attacked p95 against the floor's.
var doorFloors = map[string]func(ctx context.Context, atk *attacker, cfg attackConfig, fl *floorLoad) *doorAttack{
	"refresh-flood": refreshFloor,
	"upload-flood":  uploadFloor,
}

// floorGoal: beside its floor, a door may cost this much more.
const floorGoal = 1.25

// floorLoad is what a floor half needs from its door's attacked half.
type floorLoad struct {
	cfg      *Config
	accepted int            // uploads the attack completed (upload-flood)
	answer   recordedAnswer // guidepost's refusal (refresh-flood)
}

// runFloor measures the probe beside the door's floor load.
func runFloor(ctx context.Context, cfg *Config, p *probe, door string, r *DoorResult, fl *floorLoad, atk *attacker) {
	floor := doorFloors[door]
	if floor == nil || !cfg.Attack.Floors {
		return
	}
	r.FloorQuietS = waitQuiet(ctx, cfg, p, p.base)
	fctx, cancel := context.WithTimeout(ctx, cfg.Attack.DoorTime+doorLeadIn+10*time.Second)
	defer cancel()
	var d *doorAttack
	var wg sync.WaitGroup
	wg.Go(func() { d = floor(fctx, atk, cfg.Attack, fl) })
	if sleepCtx(fctx, doorLeadIn) {
		cfg.Log.Info("abuse: door floor half", "door", door)
		ph := p.phase(ctx, nil)
		r.Floor = &ph
	}
	cancel()
	wg.Wait()
	r.FloorLoad = d.tally.snapshot()
	if r.Floor != nil && r.Floor.Latency.P95 > 0 && r.Baseline.Latency.P95 > 0 {
		r.FloorRatio = round(r.Floor.Latency.P95/r.Baseline.Latency.P95, 2)
		r.VsFloor = round(r.Attacked.Latency.P95/r.Floor.Latency.P95, 2)
	}
}

// boundByHost: the floor alone is past the goal, and the attack costs
// little more than its floor; the door holds, and the rest is the host's.
func (r DoorResult) boundByHost() bool {
	return r.Floor != nil && r.FloorRatio > doorGoal && r.VsFloor > 0 && r.VsFloor <= floorGoal &&
		r.Attacked.FiveXX == 0 && r.Attacked.NoAnswer == 0
}

// recordedAnswer is one answer's status, headers and body, replayed by
// the floor server.
type recordedAnswer struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header"`
	Body   []byte            `json:"body"`
}

// recordRefusal asks guidepost once more, as the attacker, for what the
// refresh flood was answered; nothing is recorded unless it refuses.
func recordRefusal(ctx context.Context, a *attacker) recordedAnswer {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/v1/auth/refresh",
		strings.NewReader(`{"refresh_token":"gpr_floor"}`))
	if err != nil {
		return recordedAnswer{}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", attackerAddr)
	resp, err := a.hc.Do(req)
	if err != nil {
		return recordedAnswer{}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := recordedAnswer{Status: resp.StatusCode, Header: map[string]string{}, Body: body}
	for _, h := range []string{"Content-Type", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Connection"} {
		if v := resp.Header.Get(h); v != "" {
			out.Header[h] = v
		}
	}
	return out
}

// refreshFloor floods the floor server as refreshFlood floods guidepost.
func refreshFloor(ctx context.Context, atk *attacker, cfg attackConfig, fl *floorLoad) *doorAttack {
	floorAtk := newAttacker("", cfg)
	floorAtk.refresh = atk.spareRefresh()
	d := newDoorAttack(floorAtk, cfg)
	srv, err := startFloorServer(ctx, fl.answer)
	if err != nil {
		d.note = "floor server: " + err.Error()
		return d
	}
	defer srv.stop()
	floorAtk.base = srv.base
	d.refreshFlood(ctx)
	return d
}

// uploadFloor makes fl.accepted direct uploads as a fresh guest, at the
// attack's concurrency, and leaves the worker to render them.
func uploadFloor(ctx context.Context, atk *attacker, cfg attackConfig, fl *floorLoad) *doorAttack {
	d := newDoorAttack(atk, cfg)
	var s sessionAnswer
	if code, _ := atk.post(ctx, "/v1/auth/guest", floorAddr, "", []byte("{}"), &s); code != http.StatusCreated {
		d.tally.add("guest", code)
		return d
	}
	img := &photo{jpeg: noisyJPEG(100_000), label: "floor"}
	up := newUploader()
	var seq, left atomic.Int64
	left.Store(int64(fl.accepted))
	var wg sync.WaitGroup
	for range cfg.UploadFloods {
		wg.Go(func() {
			for ctx.Err() == nil && left.Add(-1) >= 0 {
				d.sent.Add(1)
				if !d.directUpload(ctx, floorAddr, s.AccessToken, up.raw(img, 1<<40+uint64(seq.Add(1)))) {
					return // a well-behaved user refused is a floor gone wrong: the tally shows it
				}
			}
		})
	}
	wg.Wait()
	return d
}

// floorAddr is the floor's well-behaved uploader, an address of its own.
const floorAddr = "198.51.100.7"

// floorServer is a minimal gin server in a child process: the flood's
// answers cost it what an answer costs, no more.
type floorServer struct {
	base string
	cmd  *exec.Cmd
	done chan struct{}
}

// floorServeArg makes this binary the floor server (see main).
const floorServeArg = "floor-serve"

func startFloorServer(ctx context.Context, ans recordedAnswer) (*floorServer, error) {
	spec, _ := json.Marshal(ans)
	return startChildServer(ctx, floorServeArg, string(spec))
}

// startChildServer runs this binary as a server (as `self arg <addr>
// spec`, see serveChild) on a free loopback port and returns once it
// accepts connections.
func startChildServer(ctx context.Context, arg, spec string) (*floorServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, arg, addr, spec)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &floorServer{base: "http://" + addr, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(s.done) }()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return s, nil
		}
		if time.Now().After(deadline) || !sleepCtx(ctx, 50*time.Millisecond) {
			s.stop()
			return nil, fmt.Errorf("floor server on %s did not start", addr)
		}
	}
}

// serveChild runs the server os.Args name, if they name one (a floor run
// as a child process); false when they do not.
func serveChild(args []string) (bool, error) {
	if len(args) != 4 {
		return false, nil
	}
	switch args[1] {
	case floorServeArg:
		return true, serveFloor(args[2], args[3])
	case tileFloorServeArg:
		return true, serveTileFloorFile(args[2], args[3])
	}
	return false, nil
}

func (s *floorServer) stop() {
	s.cmd.Process.Kill()
	<-s.done
}

// serveFloor is the child: every request is answered with the recorded
// answer, by one gin route, as guidepost would with nothing to do.
func serveFloor(addr, spec string) error {
	var ans recordedAnswer
	if err := json.Unmarshal([]byte(spec), &ans); err != nil {
		return err
	}
	status := ans.Status
	if status == 0 {
		status = http.StatusTooManyRequests
	}
	ctype := ans.Header["Content-Type"]
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.NoRoute(func(c *gin.Context) {
		io.Copy(io.Discard, c.Request.Body)
		for k, v := range ans.Header {
			if k != "Content-Type" {
				c.Header(k, v)
			}
		}
		c.Data(status, ctype, ans.Body)
	})
	return http.ListenAndServe(addr, r)
}

// floorLine is the floor half in words, for the log.
func (r DoorResult) floorLine() string {
	if r.Floor == nil {
		return ""
	}
	return fmt.Sprintf("; floor p95 %.1f ms (×%.2f alone), attacked ×%.2f the floor; floor load: %s",
		r.Floor.Latency.P95, r.FloorRatio, r.VsFloor, tallies(r.FloorLoad))
}
