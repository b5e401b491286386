package sql

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// unvacuumed is a table of a bulk load whose last vacuum left most of its
// pages not all-visible.
type unvacuumed struct {
	table             string
	allVisible, pages int64
}

func (u unvacuumed) String() string {
	return fmt.Sprintf("%s %d of %d pages all-visible", u.table, u.allVisible, u.pages)
}

// unvacuumedTables lists the tables a map read scans by index-only scans
// (the guides and their per-tile sums) that have pages but fewer than 90%
// of them all-visible: every index-only scan of those fetches the heap.
// A vacuum that ends well leaves ~100%.
func unvacuumedTables(ctx context.Context, db *DB) ([]unvacuumed, error) {
	rows, err := db.Pool.Query(ctx, `SELECT relname, relallvisible, relpages FROM pg_class
		WHERE oid IN ('guides'::regclass, 'guide_tiles'::regclass, 'guide_tile_tags'::regclass)
		  AND relpages > 0 AND relallvisible * 10 < relpages * 9
		ORDER BY relname`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []unvacuumed
	for rows.Next() {
		var u unvacuumed
		if err := rows.Scan(&u.table, &u.allVisible, &u.pages); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// oldestSnapshot names the session of this database whose snapshot is
// the oldest, what keeps a vacuum from setting pages all-visible, or says
// where else to look when no session holds one.
func oldestSnapshot(ctx context.Context, db *DB) (string, error) {
	var holder string
	err := db.Pool.QueryRow(ctx, `SELECT coalesce((
		SELECT format('pid %s (%s, %s, transaction since %s)', pid, coalesce(nullif(application_name, ''), 'no application name'),
		              state, coalesce(xact_start::text, 'none'))
		FROM pg_stat_activity
		WHERE datname = current_database() AND backend_xmin IS NOT NULL AND pid <> pg_backend_pid()
		ORDER BY age(backend_xmin) DESC LIMIT 1), '')`).Scan(&holder)
	if err != nil || holder != "" {
		return holder, err
	}
	return "no session of this database (see pg_prepared_xacts and pg_replication_slots)", nil
}

// EnsureGuidesVacuumed checks that the vacuum closing a bulk load set the
// guides' and tile sums' pages all-visible. A vacuum that runs while
// another session of the database holds an older snapshot sets none (the
// loaded rows are not visible to that session), and then every index-only
// scan reads the heap: seconds for a viewport at 10 M guides instead of
// tens of milliseconds. So it names that session, waits for wait and
// vacuums again, up to tries vacuums in all, and fails if the pages are
// still not all-visible: the guides are loaded and committed either way,
// but a database measured in that state measures the heap fetches.
func EnsureGuidesVacuumed(ctx context.Context, db *DB, log *slog.Logger, tries int, wait time.Duration) error {
	for try := 1; ; try++ {
		left, err := unvacuumedTables(ctx, db)
		if err != nil || len(left) == 0 {
			return err
		}
		holder, err := oldestSnapshot(ctx, db)
		if err != nil {
			return err
		}
		var b strings.Builder
		for i, u := range left {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(u.String())
		}
		if try >= tries {
			return fmt.Errorf("vacuum after %d tries left %s: held back by the snapshot of %s; "+
				"the guides are loaded; end that session and run VACUUM (ANALYZE) guides, guide_tiles, guide_tile_tags", tries, b.String(), holder)
		}
		log.Warn("vacuum left pages not all-visible, so index-only scans read the heap: another session holds an older snapshot",
			"tables", b.String(), "oldest_snapshot", holder, "try", try, "of", tries, "again_in", wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		if _, err := db.Pool.Exec(ctx, `VACUUM guides, guide_tiles, guide_tile_tags`); err != nil {
			return fmt.Errorf("vacuum: %w", err)
		}
	}
}
