package guides

import "sync/atomic"

// Encoded is a slot for an item's encoded form, kept by whoever writes list
// answers. The cache gives each item it holds one, shared by every copy it
// hands out, so the fields a cached item never changes (all but distance,
// like count, liked_by_me and the cover's URLs) are encoded once per tile
// load instead of once per answer. Items read from the database have none.
type Encoded struct{ p atomic.Pointer[EncodedItem] }

// EncodedItem is an item's fixed fields encoded, in the three runs an
// answer writes its own values between: distance, like count and
// liked_by_me after Head, the cover's URLs after Middle.
type EncodedItem struct{ Head, Middle, Tail []byte }

// Load returns what Store kept, or nil.
func (e *Encoded) Load() *EncodedItem { return e.p.Load() }

// Store keeps enc; racing stores of equal encodings are harmless.
func (e *Encoded) Store(enc *EncodedItem) { e.p.Store(enc) }
