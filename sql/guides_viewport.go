package sql

import (
	"strconv"
	"strings"

	"github.com/guidepost/guidepost/guides"
)

// A viewport is "the newest guides in a rectangle". The cell index
// (guides_cell_newest_idx, migrations/00018) keeps each 0.02° cell's shown
// guides in id order with their location, so the rectangle is the union of
// the cells it covers, each already newest first: a MergeAppend of one
// backward index-only scan per cell reads about LIMIT entries plus one per
// cell, whatever the cells hold, and visits the table only for the rows it
// returns. The primary-key walk it replaces read guides newest first until
// enough fell inside, in proportion to the share of all guides outside the
// rectangle (~3,800 heap rows for 100 in central Seoul at 1 M guides).

// maxMergeCells bounds the branches of one merge: each is planned and
// started, so past it (a viewport wider than about 0.1°, which in a city
// holds a large share of all guides) the primary-key walk is short and
// the single-index form answers.
const maxMergeCells = 64

// The cell grid: guide_cell numbers a location as guide_tile does, at half
// its resolution. floor(lat*50) is floor(floor(lat*100)/2) in IEEE
// arithmetic (doubling is exact), and tile rows and columns are never
// negative, so halving them with Go's division gives the same cell.
const cellStride = 20000

func cellRow(lat float64) int64 { return guides.TileRow(lat) / 2 }
func cellCol(lng float64) int64 { return guides.TileCol(lng) / 2 }

// viewportCells lists the cells b covers, or nil past maxMergeCells.
func viewportCells(b guides.BBox) []int64 {
	r0, r1 := cellRow(b.MinLat), cellRow(b.MaxLat)
	c0, c1 := cellCol(b.MinLng), cellCol(b.MaxLng)
	if r1 < r0 || c1 < c0 || (r1-r0+1)*(c1-c0+1) > maxMergeCells {
		return nil
	}
	cells := make([]int64, 0, (r1-r0+1)*(c1-c0+1))
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			cells = append(cells, r*cellStride+c)
		}
	}
	return cells
}

// bboxMergeSQL[k] reads, from k cells ($7 … $6+k), the newest guides in
// the rectangle ($1–$4) older than $5, LIMIT $6, as bboxSQL does without a
// tag. The merge yields ids only (index-only scans); the rows are then
// read by primary key.
var bboxMergeSQL = func() []string {
	out := make([]string, maxMergeCells+1)
	for k := 1; k <= maxMergeCells; k++ {
		out[k] = bboxMerge(k)
	}
	return out
}()

func bboxMerge(k int) string {
	var b strings.Builder
	for i := range k {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		b.WriteString(`SELECT id FROM guides WHERE guide_cell(location) = $` + strconv.Itoa(7+i) + `::int8
			AND location::geometry && ST_MakeEnvelope($1, $2, $3, $4, 4326) AND id < $5::uuid AND ` + shown)
	}
	return `SELECT ` + itemColumns + `
		FROM (SELECT ` + itemSource + ` FROM guides WHERE id = ANY(ARRAY(
			SELECT id FROM (` + b.String() + `) u ORDER BY id DESC LIMIT $6))) g
		` + itemJoins + `
		ORDER BY g.id DESC`
}
