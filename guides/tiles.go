package guides

import (
	"context"
	"math"
	"time"
)

// Tile is one grid tile (see TileOf) as the store had it at Version: every
// guide whose location is in the tile, newest first.
type Tile struct {
	ID       int64
	Version  int64 // 0: no guide was ever in this tile
	Count    int   // guides in the tile
	TooLarge bool  // Count is over the load's limit: Items is empty
	Items    []Item
}

// TileState is what the store says of a tile: its version and how many
// guides it holds, so that a reader knows what a load would cost before
// making it.
type TileState struct {
	Version int64
	Guides  int
}

// LikeCount is a guide's like count as read, with Changes, a number that
// grows with every like and unlike of the guide. A count alone comes back
// (2, 1, 2 again after a like and an unlike): an answer kept under the
// first 2 would be served again for the second, though built from a
// moment between them. (N, Changes) never comes back.
type LikeCount struct {
	N       int64
	Changes int64
}

// TileSource is what a tile cache reads besides the Store it decorates:
// whole tiles, their versions, and recent like counts. It lives here, with
// the grid, so that the store implementing it and the cache consuming it
// both depend only on this package.
type TileSource interface {
	// LoadTiles reads tiles and their versions in one snapshot, so that a
	// tile's items are exactly those of its version. A tile holding more
	// than maxGuides comes back TooLarge, without items.
	LoadTiles(ctx context.Context, tiles []int64, maxGuides int) ([]Tile, error)
	// LoadSubTiles reads parts of tiles with their tiles' versions in one
	// snapshot, one Tile per part in the order asked (ID: the part's
	// tile). A part holding more than maxGuides comes back TooLarge,
	// without items; its Count is then only known to exceed maxGuides.
	LoadSubTiles(ctx context.Context, parts []SubTile, maxGuides int) ([]Tile, error)
	// WatchTiles follows tile versions until ctx ends: Synced with every
	// version when it (re)connects and after a bulk load, Changed for each
	// committed write (sent by the writing transaction, delivered after its
	// commit), Lost when the feed drops; it then reconnects on its own. It
	// returns only once it has stopped calling w.
	WatchTiles(ctx context.Context, w TileWatcher) error
	// OnTileWrite registers fn to hear, right after this process commits a
	// write, the new versions of the tiles it touched, before the feed
	// brings them back: a client reads its own write at once.
	OnTileWrite(fn func(tile int64, s TileState))
	// LikeCountsSince returns the exact like counts of the guides liked or
	// unliked since since (database clock) and the database's time now.
	LikeCountsSince(ctx context.Context, since time.Time) (map[string]LikeCount, time.Time, error)
	// GuideTiles returns the tile each guide is in (guides that no longer
	// exist are left out).
	GuideTiles(ctx context.Context, ids []string) (map[string]int64, error)
	// Namespace names the database, for keys shared with other processes:
	// two databases (or a database dropped and made again) never share them.
	Namespace(ctx context.Context) (string, error)
}

// TileWatcher hears tile versions.
type TileWatcher interface {
	Synced(tiles map[int64]TileState)
	Changed(tile int64, s TileState)
	Lost(err error)
}

// SubTile is one of the Div×Div equal parts of a tile (Div a power of two,
// at most MaxSubDiv), Row and Col counted from its south-west corner. A
// guide is in the part whose row is floor(lat·100·Div) and column
// floor(lng·100·Div): multiplying by a power of two is exact in float64, so
// this refines TileRow/TileCol without moving any guide out of its tile,
// and PostgreSQL computes the same numbers.
type SubTile struct {
	Tile          int64
	Div, Row, Col int
}

// MaxSubDiv is the finest division of a tile: 64×64 parts of ~17 m.
const MaxSubDiv = 64

// SubRow and SubCol give the row of a latitude and column of a longitude in
// the grid of tiles each cut into div×div parts.
func SubRow(lat float64, div int) int64 {
	return int64(math.Floor(lat*TilesPerDegree*float64(div))) + tileRowOffset*int64(div)
}

func SubCol(lng float64, div int) int64 {
	return int64(math.Floor(lng*TilesPerDegree*float64(div))) + tileColOffset*int64(div)
}

// SubTileAt is the part at a row and column of the div-grid.
func SubTileAt(row, col int64, div int) SubTile {
	d := int64(div)
	return SubTile{Tile: TileID(row/d, col/d), Div: div, Row: int(row % d), Col: int(col % d)}
}

// Bounds is the part's rectangle in degrees (see TileBounds on rounding).
func (s SubTile) Bounds() (minLat, minLng, maxLat, maxLng float64) {
	row, col := TileRowCol(s.Tile)
	d := int64(s.Div)
	r, c := row*d+int64(s.Row)-tileRowOffset*d, col*d+int64(s.Col)-tileColOffset*d
	scale := float64(TilesPerDegree * s.Div)
	return float64(r) / scale, float64(c) / scale, float64(r+1) / scale, float64(c+1) / scale
}
