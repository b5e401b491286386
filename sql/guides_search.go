package sql

import (
	"context"

	"github.com/guidepost/guidepost/guides"
)

// A text search near a point has two good plans, and which one depends on
// how common its words are there: walk the KNN scan and keep the guides
// that match (a common word: a page costs a few dozen rows), or read the
// text index's matches inside the radius and sort them (a rare one). The
// planner cannot tell them apart in a prepared statement (it plans once,
// without the words), so the store decides: it walks first, and when what
// it has seen says the walk would be long, it asks the index instead.
//
// The query is turned into a tsquery once per statement, as an InitPlan
// ((SELECT guide_search_query($n))): written as a plain call on a
// parameter, a generic plan calls it for every row it looks at (measured:
// 10.9 ms against 0.33 ms for a page of a common word).

// textWalkSQL walks the nearest guides after the cursor distance $3 (or
// NULL), LIMIT $4, as nearbySQL does (so its plan is the same pure KNN
// scan), saying for each whether it matches the text $5 and the tag $6 (or
// NULL). It reads no item columns: most rows walked are not shown.
var textWalkSQL = `SELECT id::text, ST_Y(location::geometry), ST_X(location::geometry), location <-> ` + point("$1", "$2") + `,
		search @@ (SELECT guide_search_query($5)) AND ($6::text IS NULL OR tags @> ARRAY[$6::text])
	FROM guides
	WHERE ($3::float8 IS NULL OR location <-> ` + point("$1", "$2") + ` >= $3) AND ` + shown + `
	ORDER BY location <-> ` + point("$1", "$2") + `
	LIMIT $4`

// nearbyTextSQL reads the matches of the text $7 and tag $5 (or NULL)
// within the radius $6, after the cursor distance $3, nearest first, LIMIT
// $4. Its ORDER BY cannot be served by the KNN scan ("+ 0"), so the
// planner reads matches through the text index, the location index or
// both, then sorts: the plan for a word the walk found rare.
var nearbyTextSQL = `SELECT ` + itemColumns + `, g.d
	FROM (SELECT ` + itemSource + `, location <-> ` + point("$1", "$2") + ` AS d
		FROM guides
		WHERE search @@ (SELECT guide_search_query($7)) AND ` + shown + `
		  AND location && _ST_Expand(` + point("$1", "$2") + `, $6)
		  AND location <-> ` + point("$1", "$2") + ` <= $6
		  AND ($5::text IS NULL OR tags @> ARRAY[$5::text])
		  AND ($3::float8 IS NULL OR location <-> ` + point("$1", "$2") + ` >= $3)
		ORDER BY (location <-> ` + point("$1", "$2") + `) + 0
		LIMIT $4) g
	` + itemJoins

// maxTextWalk bounds the rows one walk reads; a search the walk would not
// finish within it goes to the text index.
const maxTextWalk = 1024

// walkText answers q by walking the KNN scan, or says (done false) that the
// text index should: the words are too rare around the point.
func (s *Guides) walkText(ctx context.Context, q guides.NearbyQuery) ([]guides.Item, bool, error) {
	for walk := max(4*(q.Limit+1), 64); ; {
		hits, fetched, farthest, err := s.walk(ctx, q, walk)
		if err != nil {
			return nil, false, err
		}
		switch {
		case fetched < walk, // every guide was walked
			farthest > q.RadiusM+distanceMargin, // every guide within the radius was walked
			len(hits) >= q.Limit && hits[q.Limit-1].DistanceM+distanceMargin < farthest:
			items, err := s.itemsAt(ctx, truncate(hits, q.Limit))
			return items, true, err
		}
		// Walk as far again as the matches seen so far say a page needs,
		// with room: at least four times as far.
		need := float64(q.Limit+1) * float64(fetched) / float64(max(len(hits), 1)) * 1.5
		if need > maxTextWalk {
			return nil, false, nil
		}
		walk = max(walk*4, int(need))
	}
}

// walk reads the walk nearest guides and returns those that match, are
// within the radius and follow the cursor, in the nearby order (only their
// ids and distances); and how many rows it read and how far (SQL's
// distance) the last one was.
func (s *Guides) walk(ctx context.Context, q guides.NearbyQuery, walk int) (hits []guides.Item, fetched int, farthest float64, err error) {
	rows, err := s.db.on(ctx).Query(ctx, textWalkSQL, q.Lat, q.Lng, afterDistance(q), walk, q.Text, nullable(q.Tag))
	if err != nil {
		return nil, 0, 0, translate(err, "guide")
	}
	defer rows.Close()
	here := guides.PointAt(q.Lat, q.Lng)
	for rows.Next() {
		var it guides.Item
		var d float64
		var match bool
		if err := rows.Scan(&it.ID, &it.Lat, &it.Lng, &d, &match); err != nil {
			return nil, 0, 0, translate(err, "guide")
		}
		fetched++
		farthest = max(farthest, d)
		it.DistanceM = here.DistanceTo(guides.PointAt(it.Lat, it.Lng))
		if match && it.DistanceM <= q.RadiusM && guides.Follows(guides.PositionOf(it.ID, it.DistanceM), q.After) {
			hits = append(hits, it)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, translate(err, "guide")
	}
	guides.SortNearby(hits)
	return hits, fetched, farthest, nil
}

// itemsAt reads the list items of hits, in their order, with their
// distances. A guide deleted since the walk is left out.
func (s *Guides) itemsAt(ctx context.Context, hits []guides.Item) ([]guides.Item, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	rows, err := s.db.on(ctx).Query(ctx, `SELECT `+itemColumns+`
		FROM (SELECT `+itemSource+` FROM guides WHERE id = ANY($1::uuid[]) AND `+shown+`) g
		`+itemJoins, ids)
	if err != nil {
		return nil, translate(err, "guide")
	}
	byID := make(map[string]guides.Item, len(hits))
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			rows.Close()
			return nil, translate(err, "guide")
		}
		byID[it.ID] = it
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "guide")
	}
	items := make([]guides.Item, 0, len(hits))
	for _, h := range hits {
		if it, ok := byID[h.ID]; ok {
			it.DistanceM = h.DistanceM
			items = append(items, it)
		}
	}
	return items, nil
}
