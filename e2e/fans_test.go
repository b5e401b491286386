package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
)

// fans writes n guest accounts, each with a live session, straight into
// the database, and signs an access token for each with the servers'
// secret: many users at once without n sign-ups.
func fans(t *testing.T, pool *pgxpool.Pool, n int) (ids, tokens []string) {
	t.Helper()
	ids, sids, tokens := make([]string, n), make([]string, n), make([]string, n)
	signer := auth.NewTokens(e2eJWTSecret, time.Hour, guidepost.SystemClock{})
	for i := range n {
		ids[i], sids[i] = uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
		tokens[i], _ = signer.Issue(ids[i], sids[i])
	}
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO users (id, display_name, guest, created_at)
		SELECT unnest($1::uuid[]), 'fan', true, now()`, ids); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO sessions (id, user_id, created_at, expires_at)
		SELECT s, u, now(), now() + interval '1 day' FROM unnest($1::uuid[], $2::uuid[]) AS x(s, u)`, sids, ids); err != nil {
		t.Fatal(err)
	}
	return ids, tokens
}
