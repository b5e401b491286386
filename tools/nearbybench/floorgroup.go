package main

import (
	"context"
	"errors"
	"hash/fnv"
	"time"

	"github.com/guidepost/guidepost/internal/batchqueue"
)

// groupCommit makes the database floor's likes share commits as the API's
// do (sql/likes_groupcommit.go, with its default options and the same
// queue): committers that each take what is queued, waiting up to a
// window for more, and write it in one statement and one commit; a
// guest's taps all go to one committer, so a double tap never waits on
// another transaction's insert. The writes are the per-write floor's —
// the like row, its guide looked up, its guide's count read — and no
// more: no session check, no account lock, no counter shard, no foreign
// key. Beside it the API is set against the least durable work its
// storm needs when commits are shared, which is what this machine's
// PostgreSQL charges for a like.
type groupCommit struct {
	d  *dbFloor
	qs []batchqueue.Queue[*likeReq]
}

// The API's like batching defaults (sql.LikeBatchOptions).
const (
	groupCommitters = 4
	groupWindow     = 2 * time.Millisecond
	groupMax        = 512
)

var errFloorStopping = errors.New("the floor is stopping")

type likeReq struct {
	guide, token string
	done         chan likeAns // buffered: a committer never waits on a caller
}

type likeAns struct {
	n     int
	found bool
	err   error
}

func startGroupCommit(d *dbFloor) *groupCommit {
	g := &groupCommit{d: d, qs: make([]batchqueue.Queue[*likeReq], groupCommitters)}
	for i := range g.qs {
		g.qs[i].Start(groupMax, 1, g.qs[i].Worker(groupMax, groupWindow, g.write))
	}
	return g
}

// stop answers every request already queued, then returns.
func (g *groupCommit) stop() {
	for i := range g.qs {
		g.qs[i].Close()
	}
}

func (g *groupCommit) like(ctx context.Context, guide, token string) (int, bool, error) {
	if !isUUID(guide) || !isUUID(token) {
		return 0, false, nil
	}
	h := fnv.New32a()
	h.Write([]byte(token))
	r := &likeReq{guide: guide, token: token, done: make(chan likeAns, 1)}
	a, sent, err := batchqueue.Await(ctx, &g.qs[h.Sum32()%uint32(len(g.qs))], r, r.done)
	switch {
	case !sent:
		return 0, false, errFloorStopping
	case err != nil:
		return 0, false, err
	}
	return a.n, a.found, a.err
}

// write inserts a batch's likes in one statement and one commit, and
// answers each with its guide's count after it: the likes the
// statement's snapshot saw plus the ones it inserted (a CTE's insert is
// invisible to its siblings), as the API's round answers. The count
// reads the guide's like rows, where the API reads a counter and 16
// shards: cheaper for a storm of 1,000, dearer for a guide liked far
// more often, where the floor would stop being a floor.
func (g *groupCommit) write(batch []*likeReq) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	guides, tokens := make([]string, len(batch)), make([]string, len(batch))
	for i, r := range batch {
		guides[i], tokens[i] = r.guide, r.token
	}
	counts := map[string]int{}
	rows, err := g.d.pool.Query(ctx, `
WITH r AS (SELECT * FROM unnest($1::uuid[], $2::uuid[]) AS r(guide_id, session_id)),
ins AS (INSERT INTO `+floorSchema+`.likes (guide_id, session_id)
	SELECT DISTINCT r.guide_id, r.session_id FROM r JOIN `+floorSchema+`.guides g ON g.id = r.guide_id
	ORDER BY 1, 2 -- one lock order for every batch
	ON CONFLICT DO NOTHING RETURNING guide_id)
SELECT g.id::text, (SELECT count(*) FROM `+floorSchema+`.likes l WHERE l.guide_id = g.id)
	+ (SELECT count(*) FROM ins WHERE ins.guide_id = g.id)
FROM `+floorSchema+`.guides g WHERE g.id IN (SELECT guide_id FROM r)`, guides, tokens)
	if err == nil {
		var id string
		var n int
		for rows.Next() {
			if err = rows.Scan(&id, &n); err != nil {
				break
			}
			counts[id] = n
		}
		rows.Close()
		if err == nil {
			err = rows.Err() // the commit's failure, before anyone is answered
		}
	}
	for _, r := range batch {
		n, found := counts[r.guide]
		r.done <- likeAns{n: n, found: found, err: err}
	}
}
