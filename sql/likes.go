package sql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
)

// LikeShards is how many counter rows a guide's likes are spread over. A
// like increments one at random, so concurrent likes of a hot guide wait on
// a sixteenth of each other instead of queueing on one row lock (measured:
// see the report in guides_likes_test.go).
// A guide that moves writes all 16 (migrations/00020): change both together.
const LikeShards = 16

// Like records the (guide, user) row and, only when it was inserted,
// counts it in a shard. While like batching runs, the request joins the
// next group commit (likes_groupcommit.go); otherwise it is one statement.
// by's session, when set, is checked live at at by the statement that
// writes the like (see guides.Liker).
func (s *Guides) Like(ctx context.Context, guideID string, by guides.Liker, at time.Time) (guides.LikeState, error) {
	return s.likeOrUnlike(ctx, &likeOp{like: true, guide: guideID, user: by.UserID, session: by.SessionID, at: at})
}

// Unlike deletes the row and, only when it existed, decrements a shard.
func (s *Guides) Unlike(ctx context.Context, guideID string, by guides.Liker, at time.Time) (guides.LikeState, error) {
	return s.likeOrUnlike(ctx, &likeOp{guide: guideID, user: by.UserID, session: by.SessionID, at: at})
}

func (s *Guides) likeOrUnlike(ctx context.Context, op *likeOp) (guides.LikeState, error) {
	if op.session != "" && (!validUUID(op.session) || !validUUID(op.user)) {
		return guides.LikeState{}, auth.ErrSessionEnded
	}
	if !validUUID(op.guide) {
		return guides.LikeState{}, translate(pgx.ErrNoRows, "guide")
	}
	if b := s.batcher.Load(); b != nil {
		return b.submit(ctx, op) // it notes the write's position (positionFor)
	}
	st, err := s.likeOne(ctx, op)
	if err == nil {
		s.db.noteWrite(ctx) // the liker's liked_by_me, read next from a replica
	}
	return st, err
}

// liveUsers selects (as u) the users likes may be added for: not deleted.
// Each statement holds them FOR SHARE until the like commits. Deleting an account updates
// its row, so it waits for a like holding it, and the purge that follows
// removes that like with the others (counts corrected); a like after the
// mark finds the account deleted and adds nothing, so no like is left for
// the account row's cascade to delete uncounted.
const liveUsers = `SELECT u.id FROM users u WHERE u.deleted_at IS NULL`

// likeableBy keeps likes and unlikes to the guides g that the user in
// col may read, as Guide decides: a guide hidden by moderation (a hold, or
// its author's suspension) is its author's alone, so anyone else's like or
// unlike is refused as for a guide that does not exist, and its count
// never moves unseen. Its author may still like and unlike it, as they
// still read it.
func likeableBy(col string) string { return `(g.` + shown + ` OR g.author_id = ` + col + `)` }

// likeable is likeableBy for a single request's user, $2.
var likeable = likeableBy("$2")

// blockedBy is true when the author of the guide g blocks the user in
// col and g is shown (a hidden guide is not there for that user at all:
// the like is refused as for a missing guide). It is part of the
// statement that writes the like, not a read before it: a storm of likes
// from users no process has seen is then no read apiece (their block
// sets) ahead of the commit, and a block committed before the like is
// seen as the like's own insert sees rows.
func blockedBy(col string) string {
	return `(g.` + shown + ` AND EXISTS (SELECT 1 FROM user_blocks b WHERE b.blocker_id = g.author_id AND b.blocked_id = ` + col + `))`
}

// shardTile is the tile of the guide whose id is in col, written into a
// shard the statement inserts (migrations/00020), so maps find liked
// guides by tile. It reads by primary key the guide row the statement has
// just read: the like costs no more round trips. A shard that already
// exists keeps its tile (ON CONFLICT updates n only): a guide that moves
// rewrites its shards' tile itself.
func shardTile(col string) string {
	return `(SELECT guide_tile(g.location) FROM guides g WHERE g.id = ` + col + `)`
}

func errAccountDeleted() error {
	return guidepost.Errorf(guidepost.EUNAUTHORIZED, "the account was deleted")
}

// likeOne writes one request by itself: one statement, one round trip,
// atomic. A double tap's second insert waits for the first, then does
// nothing.
// Its session, when it has one, is checked by a query of its own first:
// likeOne answers a like alone (no batching, or a batch that failed),
// never the storm a batch answers.
func (s *Guides) likeOne(ctx context.Context, op *likeOp) (guides.LikeState, error) {
	if op.session != "" {
		live, err := sessionLive(ctx, s.db.Pool, auth.Caller{UserID: op.user, SessionID: op.session}, op.at)
		switch {
		case err != nil:
			return guides.LikeState{}, err
		case !live:
			return guides.LikeState{}, auth.ErrSessionEnded
		}
	}
	var st guides.LikeState
	var err error
	if op.like {
		var live, blocked bool
		err = s.db.Pool.QueryRow(ctx, `WITH live AS (
			`+liveUsers+` AND u.id = $2 FOR SHARE
		), ins AS (
			INSERT INTO guide_likes (guide_id, user_id, created_at) SELECT $1::uuid, id, $3::timestamptz FROM live
			WHERE EXISTS (SELECT 1 FROM guides g WHERE g.id = $1 AND `+likeable+` AND NOT `+blockedBy("$2")+`)
			ON CONFLICT DO NOTHING RETURNING guide_id
		), bump AS (
			INSERT INTO guide_like_shards AS s (guide_id, shard, n, updated_at, tile)
			SELECT guide_id, $4, 1, clock_timestamp(), `+shardTile("ins.guide_id")+` FROM ins
			-- clock_timestamp, not now(): a like that waited for the shard lock
			-- must carry a stamp the once-a-second poll has not passed yet.
			ON CONFLICT (guide_id, shard) DO UPDATE SET n = s.n + 1, updated_at = clock_timestamp()
			RETURNING 1
		)
		SELECT g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint
		       + (SELECT count(*) FROM bump), EXISTS (SELECT 1 FROM live), `+blockedBy("$2")+`
		FROM guides g WHERE g.id = $1 AND `+likeable, op.guide, op.user, op.at, rand.IntN(LikeShards)).Scan(&st.LikeCount, &live, &blocked)
		switch {
		case err == nil && blocked:
			return guides.LikeState{}, guides.ErrBlockedLike
		case err == nil && !live:
			return guides.LikeState{}, errAccountDeleted()
		}
	} else {
		err = s.db.Pool.QueryRow(ctx, `WITH del AS (
			DELETE FROM guide_likes WHERE guide_id = $1 AND user_id = $2
				AND EXISTS (SELECT 1 FROM guides g WHERE g.id = $1 AND `+likeable+`) RETURNING guide_id
		), bump AS (
			INSERT INTO guide_like_shards AS s (guide_id, shard, n, updated_at, tile)
			SELECT guide_id, $3, -1, clock_timestamp(), `+shardTile("del.guide_id")+` FROM del
			ON CONFLICT (guide_id, shard) DO UPDATE SET n = s.n - 1, updated_at = clock_timestamp()
			RETURNING 1
		)
		SELECT g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint
		       - (SELECT count(*) FROM bump)
		FROM guides g WHERE g.id = $1 AND `+likeable, op.guide, op.user, rand.IntN(LikeShards)).Scan(&st.LikeCount)
	}
	if err != nil {
		return guides.LikeState{}, writeError(err)
	}
	st.Liked = op.like
	return st, nil
}

// roundCount is a guide's count after a round, who may like it (""
// for anyone, its author's id while it is hidden: see likeable), and the
// round's likers its author blocks (see blockedBy), almost always none.
type roundCount struct {
	n       int64
	onlyFor string
	blocked []string
}

// likedBy is the count user's request is answered with; false when the
// guide is not there for them.
func (c roundCount) likedBy(user string, ok bool) (int64, bool) {
	return c.n, ok && (c.onlyFor == "" || c.onlyFor == user)
}

// refuses reports whether the guide's author blocks user, whose like
// was therefore not written.
func (c roundCount) refuses(user string) bool { return slices.Contains(c.blocked, user) }

// roundWrite is what a round's statement tells: each existing guide's
// count after it (a guide that does not exist is absent), and the
// sessions it found not live for their user (keyed by sessionOf), whose
// requests wrote nothing.
type roundWrite struct {
	counts map[string]roundCount
	ended  map[string]bool
}

// sessionOf keys op's session with its user (a session is live for its
// own user only), as sent: ended is read back with the same strings.
func sessionOf(op *likeOp) string { return op.session + " " + op.user }

// writeLikes writes a round of a batch (no pair twice, see rounds) in one
// statement, so one commit: likes inserted and unlikes deleted, and each
// guide's shard bumped once by exactly the rows inserted minus the rows
// deleted. The requests' sessions are checked in it (guides.Liker): the
// round's one round trip is also its session check, seen as of the
// statement's snapshot, so a logout committed before it is honoured. It
// returns each existing guide's count after the round; one hidden is
// there for its author only. A like for an account deleted fails the
// round (see ins). The rows are read to the end, so a failed commit is an
// error here, before anyone is answered. Each guide's delta goes to
// counter shard shard.
func (s *Guides) writeLikes(ctx context.Context, round []*likeOp, shard int) (roundWrite, error) {
	type ask struct{ guide, user, session string }
	seen := make(map[ask]bool, len(round))
	var gs, us, sids []string
	var ats []time.Time
	var likes []bool
	for _, op := range round {
		if a := (ask{op.guide, op.user, op.session}); !seen[a] {
			seen[a] = true
			gs, us, sids = append(gs, op.guide), append(us, op.user), append(sids, op.session)
			ats, likes = append(ats, op.at), append(likes, op.like)
		}
	}
	rows, err := s.db.Pool.Query(ctx, `WITH asked AS (
			SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::bool[], $6::text[])
				WITH ORDINALITY AS r(guide_id, user_id, at, liking, sid, i)
		), ended AS (
			SELECT r.i, r.sid, r.user_id FROM asked r
			WHERE r.sid <> '' AND NOT `+sessionIsLive("nullif(r.sid, '')::uuid", "r.user_id", "r.at")+`
		), req AS (
			-- A pair asked from several sessions of its user is written once.
			SELECT DISTINCT ON (guide_id, user_id) guide_id, user_id, at, liking FROM asked
			WHERE (sid, user_id) NOT IN (SELECT sid, user_id FROM ended) ORDER BY guide_id, user_id
		), live AS (
			`+liveUsers+` AND u.id IN (SELECT user_id FROM req WHERE liking) ORDER BY u.id FOR SHARE
		), ins AS (
			-- A like for an account deleted is written without its user,
			-- which NOT NULL refuses: the round fails as it does for a user
			-- removed (the foreign key), and the batcher writes it again
			-- request by request, each with its own answer.
			INSERT INTO guide_likes (guide_id, user_id, created_at)
			SELECT r.guide_id, CASE WHEN r.user_id IN (SELECT id FROM live) THEN r.user_id END, r.at FROM req r
			WHERE r.liking AND EXISTS (SELECT 1 FROM guides g WHERE g.id = r.guide_id AND `+likeableBy("r.user_id")+`
				AND NOT `+blockedBy("r.user_id")+`)
			ORDER BY r.guide_id, r.user_id -- one lock order for every batch
			ON CONFLICT DO NOTHING RETURNING guide_id
		), del AS (
			DELETE FROM guide_likes l USING req r
			WHERE NOT r.liking AND l.guide_id = r.guide_id AND l.user_id = r.user_id
				AND EXISTS (SELECT 1 FROM guides g WHERE g.id = r.guide_id AND `+likeableBy("r.user_id")+`)
			RETURNING l.guide_id
		), delta AS (
			SELECT guide_id, sum(n)::bigint AS n
			FROM (SELECT guide_id, 1 AS n FROM ins UNION ALL SELECT guide_id, -1 FROM del) d
			GROUP BY guide_id
		), bump AS (
			INSERT INTO guide_like_shards AS s (guide_id, shard, n, updated_at, tile)
			SELECT guide_id, $5::smallint, n, clock_timestamp(), `+shardTile("delta.guide_id")+`
			FROM delta WHERE n <> 0 ORDER BY guide_id
			-- clock_timestamp, on a new row too: see likeOne.
			ON CONFLICT (guide_id, shard) DO UPDATE SET n = s.n + excluded.n, updated_at = clock_timestamp()
		)
		-- Every statement in WITH sees the snapshot from before bump: add
		-- this round's own delta to the shards it read.
		-- A hidden guide's row tells its author, the only one who may like it.
		SELECT false, g.id::text, g.like_count
			+ coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint
			+ coalesce((SELECT d.n FROM delta d WHERE d.guide_id = g.id), 0),
			CASE WHEN NOT g.`+shown+` THEN g.author_id::text ELSE '' END,
			ARRAY(SELECT r.user_id::text FROM req r WHERE r.guide_id = g.id AND r.liking AND `+blockedBy("r.user_id")+`)
		FROM guides g WHERE g.id IN (SELECT guide_id FROM req)
		UNION ALL
		SELECT true, (i - 1)::text, 0, '', '{}' FROM ended`, gs, us, ats, likes, shard, sids)
	if err != nil {
		return roundWrite{}, err
	}
	w := roundWrite{counts: map[string]roundCount{}, ended: map[string]bool{}}
	var sessionEnded bool
	var id string
	var c roundCount
	_, err = pgx.ForEachRow(rows, []any{&sessionEnded, &id, &c.n, &c.onlyFor, &c.blocked}, func() error {
		if sessionEnded { // id is the ask's index: its strings as sent
			i, err := strconv.Atoi(id)
			if err != nil || i < 0 || i >= len(sids) {
				return fmt.Errorf("sql: a round answered an ask %q of %d", id, len(sids))
			}
			w.ended[sids[i]+" "+us[i]] = true
		} else {
			w.counts[id] = c
		}
		c.blocked = nil // scanned into afresh: no row shares another's
		return nil
	})
	if err != nil {
		return roundWrite{}, err
	}
	return w, nil
}

// LikeCountsSince returns the exact like count of every guide liked or
// unliked since since (by the database's clock), and the database's time
// of the reading, for the next call's since. A like stamps its shard with
// its transaction's start and may commit a little later: callers overlap
// their windows by a few seconds. A count's Changes is the sum of its
// shards' write times in microseconds: every like or unlike writes a
// shard under its row lock, so at a later time than the write before, and
// shards are never deleted but with their guide.
func (s *Guides) LikeCountsSince(ctx context.Context, since time.Time) (map[string]guides.LikeCount, time.Time, error) {
	var ids []string
	var counts, changes []int64
	var now time.Time
	err := s.db.Pool.QueryRow(ctx, `SELECT statement_timestamp(), coalesce(array_agg(g.id::text), '{}'),
			coalesce(array_agg(g.like_count + coalesce(sh.n, 0)), '{}'), coalesce(array_agg(coalesce(sh.changes, 0)), '{}')
		FROM guides g
		LEFT JOIN LATERAL (SELECT sum(s.n)::bigint AS n,
				sum((extract(epoch FROM s.updated_at) * 1000000)::bigint)::bigint AS changes
			FROM guide_like_shards s WHERE s.guide_id = g.id) sh ON true
		WHERE g.id IN (SELECT guide_id FROM guide_like_shards WHERE updated_at > $1)`, since).Scan(&now, &ids, &counts, &changes)
	if err != nil {
		return nil, time.Time{}, translate(err, "guide")
	}
	out := make(map[string]guides.LikeCount, len(ids))
	for i, id := range ids {
		out[id] = guides.LikeCount{N: counts[i], Changes: changes[i]}
	}
	return out, now, nil
}
