package guides

import (
	"context"
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

// TileSource is what a tile cache reads besides the Store it decorates:
// whole tiles, their versions, and recent like counts. It lives here, with
// the grid, so that the store implementing it and the cache consuming it
// both depend only on this package.
type TileSource interface {
	// LoadTiles reads tiles and their versions in one snapshot, so that a
	// tile's items are exactly those of its version. A tile holding more
	// than maxGuides comes back TooLarge, without items.
	LoadTiles(ctx context.Context, tiles []int64, maxGuides int) ([]Tile, error)
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
	LikeCountsSince(ctx context.Context, since time.Time) (map[string]int64, time.Time, error)
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
