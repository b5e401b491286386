package deletion_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/auth/deletion"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

type clock struct{ now atomic.Int64 }

func (c *clock) Now() time.Time      { return time.Unix(0, c.now.Load()) }
func (c *clock) Add(d time.Duration) { c.now.Add(int64(d)) }

type photos struct {
	mu     sync.Mutex
	owners []string
}

func (p *photos) DeleteOwned(_ context.Context, owner string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.owners = append(p.owners, owner)
	return nil
}

func (p *photos) AbortUploads(context.Context, string) error { return nil }

type downQueue struct{}

func (downQueue) EnqueueAccountPurge(context.Context, string) error {
	return guidepost.Wrap(guidepost.EUNAVAILABLE, errors.New("connection refused"), "the task queue is unavailable")
}

// A deletion whose job was never queued (Redis down) is finished by the
// sweeper once it has waited long enough, photos included; the account is
// closed from the start.
func TestSweeperRemovesAnAccountWhoseJobWasLost(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	c := &clock{}
	c.now.Store(time.Now().UnixNano())
	users := gsql.NewUsers(db)
	id := uuid.Must(uuid.NewV7()).String()
	if err := users.CreateUser(ctx, auth.User{ID: id, DisplayName: "g", Guest: true, CreatedAt: c.Now()}); err != nil {
		t.Fatal(err)
	}
	p := &photos{}
	svc := deletion.New(deletion.Deps{Store: gsql.NewAccounts(db), Photos: p, Queue: downQueue{}, Clock: c})
	if err := svc.Delete(ctx, id); err != nil {
		t.Fatalf("a queue outage must not fail the deletion: %v", err)
	}
	if _, err := users.UserByID(ctx, id); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("a deleted account is still found: %v", err)
	}
	if err := svc.Delete(ctx, id); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("second delete: %v", err)
	}
	if n, err := svc.Sweep(ctx); n != 0 || err != nil {
		t.Fatalf("swept at once: %d, %v", n, err)
	}
	c.Add(6 * time.Minute)
	if n, err := svc.Sweep(ctx); n != 1 || err != nil {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	if len(p.owners) != 1 || p.owners[0] != id {
		t.Fatalf("photos deleted for %v", p.owners)
	}
	var left int
	db.Pool.QueryRow(ctx, `SELECT count(*) FROM users WHERE id = $1`, id).Scan(&left)
	if left != 0 {
		t.Fatal("the account row is left")
	}
	if n, err := svc.Sweep(ctx); n != 0 || err != nil {
		t.Fatalf("a second sweep: %d, %v", n, err)
	}
}
