package sql

// NearbySQL lets the external tests EXPLAIN the exact nearby query.
var NearbySQL = nearbySQL
