package cache

import (
	"math/bits"

	"github.com/guidepost/guidepost/guides"
)

// Dense tiles. A tile with more than MaxTileGuides guides (central Seoul at
// 10 M guides holds 10–20 k per tile) is cached as Div×Div parts
// (guides.SubTile), each an entry of its own, loaded on demand by the
// searches that reach it and carrying its tile's version: a write to the
// tile makes every part older than the version, exactly as it does the
// whole tile. Div is the smallest power of two that brings the tile's known
// count down to subTileShare of MaxTileGuides per part on average, so the
// division is decided before loading anything and a part stays well under
// MaxTileGuides unless the tile's guides crowd into one spot; a part over
// it is "too_large" like a whole tile was.

// subTileShare is the average part's share of MaxTileGuides: 1/8, so a part
// of an evenly filled tile holds 125–500 guides at the default cap.
const subTileShare = 8

// subFlag marks an entry key as a part: key = subFlag | tile<<20 |
// log2(div)<<12 | row<<6 | col. Tile numbers stay under 2^30.
const subFlag = int64(1) << 62

func subKey(s guides.SubTile) int64 {
	return subFlag | s.Tile<<20 | int64(bits.TrailingZeros(uint(s.Div)))<<12 | int64(s.Row)<<6 | int64(s.Col)
}

func isSubKey(key int64) bool { return key&subFlag != 0 }

func subOf(key int64) guides.SubTile {
	k := key &^ subFlag
	return guides.SubTile{Tile: k >> 20, Div: 1 << (k >> 12 & 7), Row: int(k >> 6 & 63), Col: int(k & 63)}
}

// tileOfKey is the tile an entry key belongs to.
func tileOfKey(key int64) int64 {
	if isSubKey(key) {
		return subOf(key).Tile
	}
	return key
}

// version is the known version of the tile an entry key belongs to.
func (c *Guides) version(key int64) int64 { return c.vers.get(tileOfKey(key)) }

// division is how a tile holding g guides is cached: 1 whole, a power of
// two cut into div×div parts, 0 not at all (too many even for the finest
// parts).
func (c *Guides) division(g int) int {
	if g <= c.opt.MaxTileGuides {
		return 1
	}
	target := max(c.opt.MaxTileGuides/subTileShare, 1)
	for div := 2; div <= guides.MaxSubDiv; div *= 2 {
		if g <= div*div*target {
			return div
		}
	}
	if g <= guides.MaxSubDiv*guides.MaxSubDiv*c.opt.MaxTileGuides {
		return guides.MaxSubDiv
	}
	return 0
}

// guidesIn estimates what an entry key holds from its tile's known count:
// exact for a whole tile, the average for a part (rounded up).
func (c *Guides) guidesIn(key int64) int {
	if !isSubKey(key) {
		return c.vers.state(key).Guides
	}
	s := subOf(key)
	n := s.Div * s.Div
	return (c.vers.state(s.Tile).Guides + n - 1) / n
}

// dropParts removes from L1 the parts of a tile cut into div×div: a write
// made them older than the tile's version (a search would skip them
// anyway; this frees their memory at once).
func (c *Guides) dropParts(tile int64, div int) {
	if div < 2 {
		return
	}
	for r := range div {
		for cl := range div {
			c.l1.Invalidate(subKey(guides.SubTile{Tile: tile, Div: div, Row: r, Col: cl}))
		}
	}
}
