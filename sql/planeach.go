package sql

import "github.com/jackc/pgx/v5"

// planEach, passed as a statement's first argument, makes PostgreSQL plan
// it for its own values on every run (an unnamed statement; pgx still
// caches the description, so it stays one round trip). The map's range
// statements need it: pgx prepares and caches statements, and after five
// runs PostgreSQL may switch a prepared statement to a generic plan, which
// cannot see how selective a tile range or a viewport is. Measured on 1 M
// guides: a tagged zoom-5 vector tile took 1.7 s with its generic plan
// (it scanned 37,000 guides for their likes) against 0.14 s planned for
// its values, past the 5 s statement timeout under load; a 0.2° viewport
// over Seoul read 160,543 buffers against 732. Planning costs well under
// a millisecond of these statements' tens to hundreds.
const planEach = pgx.QueryExecModeCacheDescribe

// withPlanEach is args behind planEach.
func withPlanEach(args []any) []any { return append([]any{planEach}, args...) }
