package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/auth"
)

func (f fixture) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := f.db.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (f fixture) sweeper() *auth.Sweeper { return f.sweeperWith(0, 0) }

// sweeperWith is the sweeper deleting batch rows at a time, at most most
// batches per kind (0: the defaults).
func (f fixture) sweeperWith(batch, most int) *auth.Sweeper {
	return auth.NewSweeper(auth.SweeperDeps{Store: f.users, Clock: f.clock},
		auth.SweeperConfig{UsedRetention: 10 * time.Second, GuestIdle: 30 * 24 * time.Hour, Batch: batch, MaxBatches: most})
}

// Every refresh writes a row: the sweeper deletes used tokens once their
// retention is over, and dead sessions (revoked or ended) with theirs. A
// live session's current token stays and still refreshes.
func TestSweepDeletesUsedTokensAndDeadSessions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	live := guest(t, f.svc)
	var err error
	for range 3 {
		if live, err = f.svc.Refresh(ctx, live.RefreshToken); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := f.svc.Guest(ctx)
	c, _ := f.svc.Authenticate(ctx, out.AccessToken)
	if err := f.svc.Logout(ctx, c); err != nil {
		t.Fatal(err)
	}
	if r, err := f.sweeper().Sweep(ctx); err != nil || r.Tokens != 0 || r.Sessions != 1 {
		t.Fatalf("sweep within the retention: %+v %v, want only the revoked session", r, err)
	}
	f.clock.Add(11 * time.Second)
	if r, err := f.sweeper().Sweep(ctx); err != nil || r.Tokens != 3 || r.Sessions != 0 {
		t.Fatalf("sweep after the retention: %+v %v, want the 3 used tokens", r, err)
	}
	if n := f.count(t, `SELECT count(*) FROM refresh_tokens`); n != 1 {
		t.Fatalf("%d refresh tokens left, want the live session's current one", n)
	}
	if live, err = f.svc.Refresh(ctx, live.RefreshToken); err != nil {
		t.Fatalf("the live session after the sweep: %v", err)
	}
	f.clock.Add(auth.DefaultConfig().Sessions.TTL + time.Second)
	if r, err := f.sweeper().Sweep(ctx); err != nil || r.Sessions != 1 || r.Tokens != 1 {
		t.Fatalf("sweep after the session ended: %+v %v, want it and its used token", r, err)
	}
	if n := f.count(t, `SELECT count(*) FROM sessions`) + f.count(t, `SELECT count(*) FROM refresh_tokens`); n != 0 {
		t.Fatalf("%d rows left", n)
	}
}

// One sweep deletes at most MaxBatches batches of each kind; the rest is
// left for the next.
func TestSweepIsBatchLimited(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for range 5 {
		s, _ := f.svc.Guest(ctx)
		c, _ := f.svc.Authenticate(ctx, s.AccessToken)
		f.svc.Logout(ctx, c)
	}
	sw := f.sweeperWith(2, 2)
	for i, want := range []int{4, 1, 0} {
		if r, err := sw.Sweep(ctx); err != nil || r.Sessions != want {
			t.Fatalf("sweep %d: %+v %v, want %d sessions", i, r, err, want)
		}
	}
}

// Guests unused for GUEST_IDLE_TTL who own nothing are removed; one that
// owns a guide, one used lately, and full accounts stay.
func TestSweepRemovesIdleGuestsThatOwnNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const day = 24 * time.Hour
	idle, _ := f.svc.Guest(ctx)
	author, _ := f.svc.Guest(ctx)
	used, _ := f.svc.Guest(ctx)
	photographer, _ := f.svc.Guest(ctx)
	liker, _ := f.svc.Guest(ctx)
	uploader, _ := f.svc.Guest(ctx)
	signup(t, f.svc, "full@example.com")
	guide, photo, upload := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
	// Each owns one kind of thing a guest can own: a guide, a photo, a
	// like, an upload still open.
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO guides (id, author_id, title, location, created_at, updated_at)
			VALUES ($1, $2, 'kept', ST_SetSRID(ST_MakePoint(127, 37.5), 4326)::geography, now(), now())`, []any{guide, author.User.ID}},
		{`INSERT INTO media (id, owner_id, status, content_type, bytes, width, height, sha256, created_at, updated_at)
			VALUES ($1, $2, 'pending', 'image/jpeg', 10, 0, 0, 'x', now(), now())`, []any{photo, photographer.User.ID}},
		{`INSERT INTO guide_likes (guide_id, user_id, created_at) VALUES ($1, $2, now())`, []any{guide, liker.User.ID}},
		{`INSERT INTO uploads (id, owner_id, media_id, object_key, s3_upload_id, bytes, sha256, content_type, part_size,
			state, created_at, updated_at, expires_at)
			VALUES ($1, $2, $3, 'k', 's', 10, 'x', 'image/jpeg', 5242880, 'open', now(), now(), now() + interval '1 day')`,
			[]any{upload, uploader.User.ID, uuid.Must(uuid.NewV7()).String()}},
	} {
		if _, err := f.db.Pool.Exec(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Add(20 * day)
	if _, err := f.svc.Refresh(ctx, used.RefreshToken); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(11 * day)
	r, err := f.sweeper().Sweep(ctx)
	if err != nil || r.Guests != 1 {
		t.Fatalf("sweep: %+v %v, want one guest removed", r, err)
	}
	if n := f.count(t, `SELECT count(*) FROM users WHERE id = $1`, idle.User.ID); n != 0 {
		t.Fatal("the idle guest is still there")
	}
	if n := f.count(t, `SELECT count(*) FROM users`); n != 6 {
		t.Fatalf("%d accounts left, want the author, the photographer, the liker, the uploader, the recent guest and the full account", n)
	}
}
