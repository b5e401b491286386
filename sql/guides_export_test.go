package sql

import (
	"context"

	"github.com/guidepost/guidepost/guides"
)

// NearbySQL lets the external tests EXPLAIN the exact nearby query.
var NearbySQL = nearbySQL

// TextWalkSQL and NearbyTextSQL are the text search's two forms of it.
var (
	TextWalkSQL   = textWalkSQL
	NearbyTextSQL = nearbyTextSQL
)

// TextSearchBothWays answers a text search by the walk (done false when
// the walk would give up) and by the text index, for comparison.
func (s *Guides) TextSearchBothWays(ctx context.Context, q guides.NearbyQuery) (walked []guides.Item, done bool, indexed []guides.Item, err error) {
	if walked, done, err = s.walkText(ctx, q); err != nil {
		return nil, false, nil, err
	}
	indexed, err = s.nearby(ctx, q)
	return walked, done, indexed, err
}

// LikeRounds shows how a batch of (like?, guide, user) is split.
func LikeRounds(reqs [][3]string) [][]int {
	ops := make([]*likeOp, len(reqs))
	index := map[*likeOp]int{}
	for i, r := range reqs {
		ops[i] = &likeOp{like: r[0] == "like", guide: r[1], user: r[2]}
		index[ops[i]] = i
	}
	var out [][]int
	for _, round := range rounds(ops) {
		var ids []int
		for _, op := range round {
			ids = append(ids, index[op])
		}
		out = append(out, ids)
	}
	return out
}

// BBoxQuerySQL is the statement and arguments a viewport page runs first,
// LIMIT fetch, for EXPLAIN.
func BBoxQuerySQL(q guides.BBoxQuery, fetch int) (string, []any) {
	st := bboxQuery(q, lastID)
	return st.sql, st.at(fetch, 1)
}

// SetFineScanBound makes the bound on the guides a clustering above zoom
// 13 groups one by one n instead of guides.MaxClusterScan, so a test
// crosses it with a few hundred guides.
func (s *Guides) SetFineScanBound(n int64) { s.fineScanBound = n }

// TileClustersSQL is the statement and arguments of a clustering summed
// from tile or block rows, for EXPLAIN.
func TileClustersSQL(q guides.ClusterQuery, authors []string) (string, []any) {
	cells, args := tileCells(q, authors)
	return clustersSQL(q, cells), args
}

// FineClustersSQL is the statement and arguments of a clustering that
// groups the guides themselves (above zoom 13), for EXPLAIN.
func FineClustersSQL(q guides.ClusterQuery, authors []string) (string, []any) {
	cells, args := guideCells(q, authors)
	return clustersSQL(q, cells), args
}
