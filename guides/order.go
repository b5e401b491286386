package guides

import "slices"

// The nearby order is (distance, then id): the store sorts by it, the
// cache keeps its best Limit by it, and a cursor resumes after a Position
// in it. "The cache answers exactly what the database would" rests on
// both using this one definition.

// Before reports whether p comes before q in the nearby order.
func (p Position) Before(q Position) bool {
	return p.DistanceM < q.DistanceM || p.DistanceM == q.DistanceM && p.ID < q.ID
}

// PositionOf is where an item found at distance d stands in the order.
func PositionOf(id string, d float64) Position { return Position{DistanceM: d, ID: id} }

// Follows reports whether an item at p comes after the cursor position
// after; every item follows a nil cursor.
func Follows(p Position, after *Position) bool { return after == nil || after.Before(p) }

// SortNearby puts items (their DistanceM set) in the nearby order.
func SortNearby(items []Item) {
	slices.SortFunc(items, func(a, b Item) int {
		switch pa, pb := PositionOf(a.ID, a.DistanceM), PositionOf(b.ID, b.DistanceM); {
		case pa.Before(pb):
			return -1
		case pb.Before(pa):
			return 1
		}
		return 0
	})
}
