package sql

import (
	"context"
	"fmt"
	"sync"
)

// Warm opens n connections at once (at most the pool's size) and readies
// each for the map queries, before a new process takes requests. A new
// PostgreSQL backend's first PostGIS query costs about 9 ms more than its
// second (the library load and the catalog caches): paid by the first
// requests after a restart, it set the p95 of a cold start's first second.
func (db *DB) Warm(ctx context.Context, n int) error {
	n = min(n, int(db.Pool.Config().MaxConns))
	errs := make([]error, n)
	var wg sync.WaitGroup
	conns := make(chan func(), n)
	for i := range n {
		wg.Go(func() {
			c, err := db.Pool.Acquire(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			conns <- c.Release // held until all are open: else one is reused
			_, errs[i] = c.Exec(ctx, warmSQL)
		})
	}
	wg.Wait()
	close(conns)
	for release := range conns {
		release()
	}
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("postgres: warming the pool: %w", translate(err, "database"))
		}
	}
	return nil
}

// warmSQL touches PostGIS and the guides table and its spatial index.
const warmSQL = `SELECT count(*) FROM (SELECT 1 FROM guides
	WHERE location::geometry && ST_MakeEnvelope(0, 0, 0, 0, 4326) LIMIT 1) w`
