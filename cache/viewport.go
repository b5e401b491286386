package cache

import (
	"slices"

	"github.com/guidepost/guidepost/guides"
)

// viewportTiles lists the entries a viewport covers (whole tiles, or the
// parts of dense ones that it meets), deciding from the known counts,
// before loading anything, whether it would read too much; dense says
// whether it reads parts.
func (c *Guides) viewportTiles(b guides.BBox) (ids []int64, dense bool, reason string) {
	r0, r1 := guides.TileRow(b.MinLat), guides.TileRow(b.MaxLat)
	c0, c1 := guides.TileCol(b.MinLng), guides.TileCol(b.MaxLng)
	if (r1-r0+1)*(c1-c0+1) > int64(c.opt.MaxBBoxTiles) {
		return nil, false, "too_many_tiles"
	}
	ids = make([]int64, 0, (r1-r0+1)*(c1-c0+1))
	total := 0
	for r := r0; r <= r1; r++ {
		for cl := c0; cl <= c1; cl++ {
			t := guides.TileID(r, cl)
			g := c.vers.state(t).Guides
			switch div := c.division(g); div {
			case 0:
				return nil, false, "too_large"
			case 1:
				total += g
				ids = append(ids, t)
			default:
				before := len(ids)
				ids = appendParts(ids, t, div, b)
				total += c.guidesIn(ids[before]) * (len(ids) - before)
				dense = true
			}
		}
	}
	if total > c.opt.MaxBBoxGuides {
		return nil, false, "too_many_guides"
	}
	return ids, dense, ""
}

// appendParts appends the parts of tile (cut div×div) that b meets. Parts
// are numbered by the same floor as guides are placed in them, so every
// guide inside b is in a part listed.
func appendParts(ids []int64, tile int64, div int, b guides.BBox) []int64 {
	row, col := guides.TileRowCol(tile)
	d := int64(div)
	r0, r1 := max(guides.SubRow(b.MinLat, div), row*d), min(guides.SubRow(b.MaxLat, div), row*d+d-1)
	c0, c1 := max(guides.SubCol(b.MinLng, div), col*d), min(guides.SubCol(b.MaxLng, div), col*d+d-1)
	for r := r0; r <= r1; r++ {
		for cl := c0; cl <= c1; cl++ {
			ids = append(ids, subKey(guides.SubTileAt(r, cl, div)))
		}
	}
	return ids
}

// newestInside merges the tiles' lists (each newest first) and keeps the
// first Limit guides inside the rectangle with the tag, older than the
// cursor. Ids compare as the database compares uuids: their lower-case
// text has the bytes' order.
func (c *Guides) newestInside(entries []*entry, q guides.BBoxQuery) ([]guides.Item, bool) {
	m := merge{match: func(it *cachedItem) bool {
		return (q.Before == "" || it.ID < q.Before) && q.BBox.Contains(it.Lat, it.Lng) &&
			(q.Tag == "" || slices.Contains(it.Tags, q.Tag))
	}}
	m.init(entries)
	out := make([]guides.Item, 0, min(q.Limit, 64))
	for it := m.next(); it != nil; it = m.next() {
		if len(out) == q.Limit {
			return out, true
		}
		out = append(out, c.item(it))
	}
	return out, false
}

// merge walks several newest-first lists as one, skipping what does not
// match: a max-heap of cursors into the lists, by the id they point at.
type merge struct {
	match func(*cachedItem) bool
	h     []cursor
}

type cursor struct {
	e   *entry
	pos int
}

func (cu cursor) id() string { return cu.e.items[cu.pos].ID }

// advance moves cu to its next matching item; false when there is none.
func (m *merge) advance(cu cursor) (cursor, bool) {
	for cu.pos < len(cu.e.items) && !m.match(&cu.e.items[cu.pos]) {
		cu.pos++
	}
	return cu, cu.pos < len(cu.e.items)
}

func (m *merge) init(entries []*entry) {
	for _, e := range entries {
		if cu, ok := m.advance(cursor{e: e}); ok {
			m.h = append(m.h, cu)
		}
	}
	for i := len(m.h)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
}

// next returns the newest matching item not yet returned, or nil.
func (m *merge) next() *cachedItem {
	if len(m.h) == 0 {
		return nil
	}
	top := m.h[0]
	it := &top.e.items[top.pos]
	top.pos++
	if cu, ok := m.advance(top); ok {
		m.h[0] = cu
	} else {
		m.h[0] = m.h[len(m.h)-1]
		m.h = m.h[:len(m.h)-1]
	}
	m.down(0)
	return it
}

func (m *merge) down(i int) {
	h := m.h
	for {
		l, r, top := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].id() > h[top].id() {
			top = l
		}
		if r < len(h) && h[r].id() > h[top].id() {
			top = r
		}
		if top == i {
			return
		}
		h[i], h[top] = h[top], h[i]
		i = top
	}
}
