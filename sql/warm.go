package sql

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/guidepost/guidepost/guides"
)

// warmAcquireWait bounds how long Warm waits for each connection. Another
// part of the process may hold some of the pool at start (in dev the
// worker's sweep holds one while it waits for a second); waiting for those
// would stall the start, or deadlock it when Warm holds the rest.
const warmAcquireWait = 2 * time.Second

// Warm readies up to n of each pool's connections for the map's reads
// before a new process takes requests: the primary's, then each replica's,
// which serve the map's reads when DATABASE_REPLICA_URLS is set. A new
// PostgreSQL backend pays on its first PostGIS query (the library, the
// catalog caches), on its first geography distance (PROJ for SRID 4326)
// and on the first run of each statement (its plan, the caches of every
// table it joins): on a fresh backend at 1 M and 10 M guides, 20 ms for
// the first, 21 ms for the second and 27–34 ms for a first nearby read that
// takes 2 ms after. On 2 cores, at 100 req/s of map reads, the new pool
// paying that with its first requests queued a restart's first second
// (p95 101–752 ms). A connection a pool does not give within
// warmAcquireWait is left cold. A replica that cannot be warmed is logged
// and left as it is: reads leave it while it is unhealthy, and the primary
// alone is needed to start.
func (db *DB) Warm(ctx context.Context, n int) error {
	var spot *[2]float64 // a shown guide's lat, lng; nil with none yet
	var lat, lng float64
	switch err := db.Pool.QueryRow(ctx, warmSpotSQL).Scan(&lat, &lng); {
	case err == nil:
		spot = &[2]float64{lat, lng}
	case !errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("postgres: warming the pool: %w", translate(err, "database"))
	}
	if err := warmPool(ctx, db.Pool, n, spot); err != nil {
		return fmt.Errorf("postgres: warming the pool: %w", translate(err, "database"))
	}
	if db.reads != nil {
		for _, rep := range db.reads.list {
			if err := warmPool(ctx, rep.pool, n, spot); err != nil && ctx.Err() == nil {
				db.reads.opt.Log.Warn("postgres replica: warming its pool failed; its first reads pay for it",
					"replica", rep.name, "err", err)
			}
		}
	}
	return ctx.Err()
}

// warmPool readies up to n of pool's connections at spot, all at once.
func warmPool(ctx context.Context, pool *pgxpool.Pool, n int, spot *[2]float64) error {
	n = min(n, int(pool.Config().MaxConns))
	errs := make([]error, n)
	var wg sync.WaitGroup
	conns := make(chan func(), n)
	for i := range n {
		wg.Go(func() {
			actx, cancel := context.WithTimeout(ctx, warmAcquireWait)
			c, err := pool.Acquire(actx)
			cancel()
			if err != nil {
				if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
					return // held elsewhere: it stays cold
				}
				errs[i] = err
				return
			}
			conns <- c.Release // held until all are open: else one is reused
			errs[i] = warmConn(ctx, c, spot)
		})
	}
	wg.Wait()
	close(conns)
	for release := range conns {
		release()
	}
	return errors.Join(errs...)
}

// warmConn runs the map's reads once on c, at spot: far from every guide
// the nearest-first scan would walk much of the index before it found
// twenty. The statements go through pgx's statement cache, as a request's
// do, so c keeps them prepared.
func warmConn(ctx context.Context, c *pgxpool.Conn, spot *[2]float64) error {
	if _, err := c.Exec(ctx, warmSQL); err != nil || spot == nil {
		return err
	}
	lat, lng := spot[0], spot[1]
	if _, err := c.Exec(ctx, nearbySQL, lat, lng, nil, 1); err != nil {
		return err
	}
	const d = 0.01
	st := bboxQuery(guides.BBoxQuery{BBox: guides.BBox{MinLat: lat - d, MinLng: lng - d, MaxLat: lat + d, MaxLng: lng + d}}, lastID)
	_, err := c.Exec(ctx, st.sql, withPlanEach(st.at(1, 1))...)
	return err
}

// warmSQL touches PostGIS and the guides table and its spatial index, and
// measures a geography distance, which sets PROJ up for the backend.
const warmSQL = `SELECT count(*), ST_Distance('SRID=4326;POINT(0 0)'::geography, 'SRID=4326;POINT(0 1)'::geography)
	FROM (SELECT 1 FROM guides WHERE location::geometry && ST_MakeEnvelope(0, 0, 0, 0, 4326) LIMIT 1) w`

// warmSpotSQL is any shown guide's place.
const warmSpotSQL = `SELECT ST_Y(location::geometry), ST_X(location::geometry) FROM guides WHERE ` + shown + ` LIMIT 1`
