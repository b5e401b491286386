package sql

import (
	"math"

	"github.com/guidepost/guidepost/guides"
)

// A viewport is "the newest guides in a rectangle". The cell index
// (guides_cell_newest_idx, migrations/00018) keeps each 0.02° cell's shown
// guides in id order with their location, so the rectangle is the union of
// the cells it covers, each already newest first: a backward index-only
// scan per cell reads at most LIMIT entries inside the rectangle (and
// those of its cell outside it it passes), whatever the cells hold, and
// the table is visited only for the rows returned. The primary-key walk
// it replaces read guides newest first until enough fell inside, in
// proportion to the share of all guides outside the rectangle (~3,800
// heap rows for 100 in central Seoul at 1 M guides).

// maxMergeCells bounds the cells of one merge, each read up to LIMIT at most. It
// covers a phone screen 0.2° wide and 0.32° tall (11 × 17 cells), the
// widest viewport a map list asks for. The single-index form answering
// past it is at the planner's mercy: its estimates cannot see the
// rectangle in a generic plan (pgx prepares statements, and PostgreSQL
// plans them generically after five runs), which walks the planar index
// and sorts all of the rectangle: at 1 M guides a 0.2° viewport over
// Seoul read 160,000 buffers (3.3 s) for 100 guides, where this merge
// reads ~900 and the same viewport over a sparse province or the sea
// ~600 (three index pages per cell, whatever it holds).
const maxMergeCells = 192

// The cell grid: guide_cell numbers a location as guide_tile does, at half
// its resolution. floor(lat*50) is floor(floor(lat*100)/2) in IEEE
// arithmetic (doubling is exact), and tile rows and columns are never
// negative, so halving them with Go's division gives the same cell.
const cellStride = 20000

func cellRow(lat float64) int64 { return guides.TileRow(lat) / 2 }
func cellCol(lng float64) int64 { return guides.TileCol(lng) / 2 }

// cellCover is the cells a rectangle covers, and the share of the
// rectangle's area in each.
type cellCover struct {
	ids    []int64
	shares []float64
}

// viewportCells lists the cells b covers, or nil past maxMergeCells.
func viewportCells(b guides.BBox) *cellCover {
	r0, r1 := cellRow(b.MinLat), cellRow(b.MaxLat)
	c0, c1 := cellCol(b.MinLng), cellCol(b.MaxLng)
	if r1 < r0 || c1 < c0 || (r1-r0+1)*(c1-c0+1) > maxMergeCells {
		return nil
	}
	n := (r1 - r0 + 1) * (c1 - c0 + 1)
	cov := &cellCover{ids: make([]int64, 0, n), shares: make([]float64, 0, n)}
	total := 0.0
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			minLat, minLng, _, _ := guides.TileBounds(2*r, 2*c)
			_, _, maxLat, maxLng := guides.TileBounds(2*r+1, 2*c+1)
			a := max(0, min(maxLat, b.MaxLat)-max(minLat, b.MinLat)) * max(0, min(maxLng, b.MaxLng)-max(minLng, b.MinLng))
			cov.ids, cov.shares = append(cov.ids, r*cellStride+c), append(cov.shares, a)
			total += a
		}
	}
	for i := range cov.shares {
		if total > 0 {
			cov.shares[i] /= total
		} else {
			cov.shares[i] = 1 // a rectangle of no area: every cell may hold it
		}
	}
	return cov
}

// A merge that reads LIMIT from every cell reads what the area holds: a
// 0.2° viewport over Seoul, whose cells all hold more than a page, read
// ~20,000 index entries for 100 guides, and as many again past the
// rectangle's edge in the cells it clips. Each cell is read instead up to
// its expected part of the page (its share of the rectangle's area)
// mergeSpread times over, plus mergeSlack: the index entries read then
// follow the page, not the density. A cell read to its limit may hold
// more; bboxMergeSQL answers only the guides no such cell can precede and
// says so, and readBBox reads the cells four times deeper when that is too
// few (a cell much denser than the rest: at most three more reads, the
// last one each cell up to LIMIT, which needs no floor).
const (
	mergeSpread = 4
	mergeSlack  = 4
)

// limits are the cells' LIMITs for a page of fetch rows, widen times the
// expected ones; none is over fetch, where a cell is read deep enough for
// any page.
func (cov *cellCover) limits(fetch, widen int) []int32 {
	out := make([]int32, len(cov.ids))
	for i, s := range cov.shares {
		l := int(math.Ceil(float64(widen*mergeSpread*fetch)*s)) + widen*mergeSlack
		out[i] = int32(min(fetch, l))
	}
	return out
}

// bboxMergeSQL reads, from the cells $7, each up to its limit $8, the
// newest guides in the rectangle ($1–$4) older than $5, LIMIT $6, as
// bboxSQL does without a tag: each cell's newest inside, by a backward
// index-only scan, then the newest LIMIT of those, then their rows by
// primary key. A cell that returned its limit, under LIMIT, may hold older
// guides inside that were not read; none is newer than its last one read,
// so the newest such last id (the floor) bounds what was missed: only the
// guides from the floor up are answered, and the last column tells that a
// floor cut them (an answer shorter than LIMIT is then not the whole
// rectangle). The edge test names the coordinates, not the planar index's
// operator: given "&&" the planner, reckoning the rectangle and the cell
// independent, estimates a handful of rows per cell and answers each with
// a bitmap of both indexes and a sort, which reads every guide of the cell
// inside the rectangle (26,710 index entries for 100 guides in central
// Seoul at 1 M). ST_X and ST_Y are the stored float64 coordinates, so the
// test is exactly guides.BBox.Contains.
var bboxMergeSQL = `WITH per AS MATERIALIZED (
		SELECT x.id, x.n = c.lim AND c.lim < $6 AS cut FROM unnest($7::int8[], $8::int4[]) AS c(cell, lim)
		CROSS JOIN LATERAL (SELECT id, row_number() OVER (ORDER BY id DESC) AS n FROM guides
			WHERE guide_cell(location) = c.cell AND ` + shown + ` AND id < $5::uuid
			  AND ST_X(location::geometry) BETWEEN $1 AND $3 AND ST_Y(location::geometry) BETWEEN $2 AND $4
			ORDER BY id DESC LIMIT c.lim) x),
	floor AS (SELECT id FROM per WHERE cut ORDER BY id DESC LIMIT 1)
	SELECT ` + itemColumns + `, EXISTS (SELECT FROM floor)
	FROM (SELECT ` + itemSource + ` FROM guides WHERE id = ANY(ARRAY(
		SELECT id FROM per WHERE id >= coalesce((SELECT id FROM floor), '00000000-0000-0000-0000-000000000000'::uuid)
		ORDER BY id DESC LIMIT $6))) g
	` + itemJoins + `
	ORDER BY g.id DESC`
