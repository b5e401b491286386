package sql

import "github.com/guidepost/guidepost/guides"

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

// maxMergeCells bounds the cells of one merge, each read up to LIMIT. It
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

// bboxMergeSQL reads, from the cells $7, the newest guides in the
// rectangle ($1–$4) older than $5, LIMIT $6, as bboxSQL does without a
// tag: each cell's newest LIMIT inside, by a backward index-only scan, then
// the newest LIMIT of those, then their rows by primary key. The edge test
// names the coordinates, not the planar index's operator: given "&&" the
// planner, reckoning the rectangle and the cell independent, estimates a
// handful of rows per cell and answers each with a bitmap of both indexes
// and a sort, which reads every guide of the cell inside the rectangle (26,710
// index entries for 100 guides in central Seoul at 1 M). ST_X and ST_Y
// are the stored float64 coordinates, so the test is exactly
// guides.BBox.Contains.
var bboxMergeSQL = `SELECT ` + itemColumns + `
	FROM (SELECT ` + itemSource + ` FROM guides WHERE id = ANY(ARRAY(
		SELECT x.id FROM unnest($7::int8[]) AS c(cell)
		CROSS JOIN LATERAL (SELECT id FROM guides
			WHERE guide_cell(location) = c.cell AND ` + shown + ` AND id < $5::uuid
			  AND ST_X(location::geometry) BETWEEN $1 AND $3 AND ST_Y(location::geometry) BETWEEN $2 AND $4
			ORDER BY id DESC LIMIT $6) x
		ORDER BY x.id DESC LIMIT $6))) g
	` + itemJoins + `
	ORDER BY g.id DESC`
