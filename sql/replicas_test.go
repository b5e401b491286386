package sql_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// openWithReplica opens url with the pair's replica for reads, and waits
// until the replica is in rotation.
func openWithReplica(t *testing.T, url string, pair *testkit.PGPair, opt gsql.ReplicaConfig) (*gsql.DB, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	opt.URLs, opt.Registerer = []string{pair.Replica.URL}, reg
	guidepost.Default(&opt.Every, 50*time.Millisecond)
	db, err := gsql.OpenWith(context.Background(), url, gsql.Config{StatementTimeout: 10 * time.Second, Replicas: opt})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	within(t, time.Minute, "the replica in rotation", func() bool { return db.ReplicasInRotation() == 1 })
	return db, reg
}

// within polls ok until it holds, failing the test after limit; it
// returns how long that took.
func within(t *testing.T, limit time.Duration, what string, ok func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !ok() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not after %s", what, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

// metricSum sums the series of name whose labels include every pair of labels.
func metricSum(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				if !hasLabel(m, labels[i], labels[i+1]) {
					continue series
				}
			}
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// Reads go to the replica, and a client's reads see its own writes: the
// replica replays two seconds late, so a read that must see a write it
// has not replayed goes to the primary (after a short wait), while a
// process that knows nothing of the write reads the replica's past.
func TestReplicaServesReadsAndWritersSeeTheirWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private primary and replica")
	}
	pair := testkit.StartPGPair(t, testkit.PairOptions{ApplyDelay: 2 * time.Second})
	db, reg := openWithReplica(t, pair.Primary.URL, pair, gsql.ReplicaConfig{MaxLag: time.Minute})
	other, otherReg := openWithReplica(t, pair.Primary.URL, pair, gsql.ReplicaConfig{MaxLag: time.Minute})
	store, elsewhere := gsql.NewGuides(db), gsql.NewGuides(other)
	author := guideUser(t, db)
	pair.CaughtUp(time.Minute) // the author has reached the replica

	ctx := guidepost.WithReadMark(context.Background(), 0, nil)
	g := guides.NewGuide{ID: uuid.Must(uuid.NewV7()).String(), AuthorID: author, Title: "fresh", Lat: 37.5, Lng: 127,
		Tags: []string{}, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	wrote := time.Now()
	if err := store.CreateGuide(ctx, g); err != nil {
		t.Fatal(err)
	}
	mark := guidepost.ReadMark(ctx)
	if mark == 0 {
		t.Fatal("the write raised no read mark")
	}
	if _, err := store.Guide(ctx, g.ID, author); err != nil {
		t.Fatalf("the writer does not see its guide: %v", err)
	}
	// Another process, with the writer's mark (from Redis, in the API):
	// it sees the guide too.
	if _, err := elsewhere.Guide(guidepost.WithReadMark(context.Background(), mark, nil), g.ID, author); err != nil {
		t.Fatalf("the writer's next request elsewhere does not see its guide: %v", err)
	}
	if n := metricSum(t, reg, "guidepost_db_replica_lsn_waits_total", "outcome", "timeout"); n == 0 {
		t.Error("no read waited for the replica before going to the primary")
	}
	// Without the mark, the other process reads the replica, which has not
	// replayed the guide yet (if this ran within its delay).
	_, err := elsewhere.Guide(context.Background(), g.ID, "")
	if time.Since(wrote) < 1500*time.Millisecond && guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Errorf("a read without the mark did not go to the replica, 2 s behind: %v", err)
	}
	within(t, 30*time.Second, "the guide on the replica", func() bool {
		_, err := elsewhere.Guide(context.Background(), g.ID, "")
		return err == nil
	})
	if n := metricSum(t, otherReg, "guidepost_db_reads_total", "pool", "127.0.0.1:"+strconv.Itoa(pair.Replica.Port)); n == 0 {
		t.Error("the replica served no read")
	}
	// liked_by_me follows the liker's own like.
	if _, err := store.Like(ctx, g.ID, guides.Liker{UserID: author}, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, err := elsewhere.ViewerStates(guidepost.WithReadMark(context.Background(), guidepost.ReadMark(ctx), nil), author, []string{g.ID})
	if err != nil || !st[g.ID].Liked || st[g.ID].LikeCount != 1 {
		t.Errorf("the liker's next read: %+v %v", st, err)
	}
	// The same through the group commit, which reads the position once
	// per round for every request in it.
	if err := store.StartLikeBatching(gsql.LikeBatchOptions{}); err != nil {
		t.Fatal(err)
	}
	defer store.StopLikeBatching()
	bctx := guidepost.WithReadMark(context.Background(), 0, nil)
	if _, err := store.Unlike(bctx, g.ID, guides.Liker{UserID: author}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if guidepost.ReadMark(bctx) <= mark {
		t.Errorf("a batched unlike left the read mark at %d (the guide's: %d)", guidepost.ReadMark(bctx), mark)
	}
	st, err = elsewhere.ViewerStates(guidepost.WithReadMark(context.Background(), guidepost.ReadMark(bctx), nil), author, []string{g.ID})
	if err != nil || st[g.ID].Liked || st[g.ID].LikeCount != 0 {
		t.Errorf("the unliker's next read: %+v %v", st, err)
	}
}

// A replica that stops, or falls behind past MaxLag, leaves the rotation
// within about a second and comes back when it is healthy; meanwhile the
// primary answers every read.
func TestReplicaLeavesAndReturns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private primary and replica")
	}
	pair := testkit.StartPGPair(t, testkit.PairOptions{})
	db, reg := openWithReplica(t, pair.Primary.URL, pair, gsql.ReplicaConfig{MaxLag: 500 * time.Millisecond})
	store := gsql.NewGuides(db)
	author := guideUser(t, db)
	id := guideRow(t, store, author, 37.5, 127)
	read := func() {
		t.Helper()
		if _, err := store.Guide(context.Background(), id, ""); err != nil {
			t.Fatalf("a read: %v", err)
		}
	}
	read()

	pair.Replica.Stop()
	took := within(t, 30*time.Second, "a stopped replica out of rotation", func() bool { return db.ReplicasInRotation() == 0 })
	t.Logf("stopped replica out of rotation after %s", took.Round(time.Millisecond))
	read()
	if n := metricSum(t, reg, "guidepost_db_reads_moved_to_primary_total", "reason", "no_replica"); n == 0 {
		t.Error("no read counted as moved to the primary")
	}
	pair.Replica.Start()
	within(t, time.Minute, "the restarted replica back", func() bool { return db.ReplicasInRotation() == 1 })

	// Replay paused while the primary writes: the replica falls behind.
	pair.Replica.Exec(`SELECT pg_wal_replay_pause()`)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				db.Pool.Exec(context.Background(), `UPDATE users SET display_name = display_name WHERE id = $1`, author)
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	took = within(t, 30*time.Second, "a lagging replica out of rotation", func() bool { return db.ReplicasInRotation() == 0 })
	t.Logf("lagging replica out of rotation after %s", took.Round(time.Millisecond))
	if lag := metricSum(t, reg, "guidepost_db_replica_lag_seconds"); lag < 0.5 {
		t.Errorf("lag metric %.3f s for a replica out for lagging", lag)
	}
	read()
	pair.Replica.Exec(`SELECT pg_wal_replay_resume()`)
	within(t, time.Minute, "the caught-up replica back", func() bool { return db.ReplicasInRotation() == 1 })
	read()
}

// Warm readies the replicas' pools too, where the map's reads go; a
// replica that is down is logged and does not stop the start.
func TestWarmReadiesReplicaPools(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private primary and replica")
	}
	pair := testkit.StartPGPair(t, testkit.PairOptions{})
	var logged bytes.Buffer
	// Every: an hour, so that no health check holds a replica connection
	// while Warm runs (the first check, at open, puts the replica in).
	db, _ := openWithReplica(t, pair.Primary.URL, pair, gsql.ReplicaConfig{Every: time.Hour,
		Log: slog.New(slog.NewTextHandler(&logged, nil))})
	guideRow(t, gsql.NewGuides(db), guideUser(t, db), 37.5665, 126.978)
	pair.CaughtUp(time.Minute)
	ctx := context.Background()
	if err := db.Warm(ctx, 3); err != nil {
		t.Fatal(err)
	}
	assertWarmed(t, db.ReplicaPool(0), 3)
	assertWarmed(t, db.Pool, 3)

	pair.Replica.Stop()
	if err := db.Warm(ctx, 3); err != nil {
		t.Fatalf("Warm with the replica down: %v; want the primary alone to be needed", err)
	}
	if !strings.Contains(logged.String(), "warming its pool failed") {
		t.Errorf("the replica that could not be warmed was not logged: %q", logged.String())
	}
}

// A failover: DATABASE_URL lists both servers with
// target_session_attrs=read-write. The primary dies, the replica is
// promoted (as an operator, Patroni or a managed service does), and the
// store follows it without a restart: the promoted replica leaves the
// read rotation, writes resume, and every write acknowledged before or
// after is on the new primary (the pair replicates synchronously).
func TestPrimaryFailoverIsFollowed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private primary and replica")
	}
	pair := testkit.StartPGPair(t, testkit.PairOptions{Sync: true})
	both := "postgres://postgres@127.0.0.1:" + strconv.Itoa(pair.Primary.Port) + ",127.0.0.1:" + strconv.Itoa(pair.Replica.Port) +
		"/guidepost?sslmode=disable&target_session_attrs=read-write"
	db, _ := openWithReplica(t, both, pair, gsql.ReplicaConfig{})
	store := gsql.NewGuides(db)
	author := guideUser(t, db)

	var mu sync.Mutex
	var acked []string
	var failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				g := guides.NewGuide{ID: uuid.Must(uuid.NewV7()).String(), AuthorID: author, Title: "w",
					Lat: 37.4 + float64(w)*0.01 + float64(i%100)*0.001, Lng: 127, Tags: []string{}, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				err := store.CreateGuide(ctx, g)
				cancel()
				if err != nil {
					failed.Add(1)
					time.Sleep(50 * time.Millisecond)
					continue
				}
				mu.Lock()
				acked = append(acked, g.ID)
				mu.Unlock()
			}
		})
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	within(t, time.Minute, "writes before the failover", func() bool { return count() >= 20 })
	pair.Primary.Stop()
	pair.Promote()
	before := count()
	within(t, 2*time.Minute, "writes on the promoted primary", func() bool { return count() >= before+20 })
	close(stop)
	wg.Wait()
	within(t, 30*time.Second, "the promoted replica out of the read rotation", func() bool { return db.ReplicasInRotation() == 0 })

	mu.Lock()
	defer mu.Unlock()
	var n int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM guides WHERE id = ANY($1::uuid[])`, acked).Scan(&n); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writes acknowledged, %d failed during the failover", len(acked), failed.Load())
	if n != len(acked) {
		t.Errorf("%d of %d acknowledged writes are on the new primary", n, len(acked))
	}
	if _, err := store.Guide(context.Background(), acked[len(acked)-1], ""); err != nil {
		t.Errorf("a read after the failover: %v", err)
	}
}
