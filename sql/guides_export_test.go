package sql

// NearbySQL lets the external tests EXPLAIN the exact nearby query.
var NearbySQL = nearbySQL

// NearbyTextSQL is the text search's form of it.
var NearbyTextSQL = nearbyTextSQL

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
