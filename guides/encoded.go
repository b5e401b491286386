package guides

import "sync/atomic"

// Encoded is a slot for an item's encoded form, kept by whoever writes list
// answers. The cache gives each item it holds one, shared by every copy it
// hands out, so the fields a cached item never changes (all but distance,
// like count, liked_by_me and the thumbnail URL) are encoded once per tile
// load instead of once per answer. Items read from the database have none.
type Encoded struct{ v atomic.Value }

// Load returns what Store kept, or nil.
func (e *Encoded) Load() any { return e.v.Load() }

// Store keeps v (always of one type); racing stores of equal values are
// harmless.
func (e *Encoded) Store(v any) { e.v.Store(v) }
