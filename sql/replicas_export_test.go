package sql

// ReplicasInRotation counts the replicas reads may go to now.
func (db *DB) ReplicasInRotation() int {
	n := 0
	for _, rep := range db.reads.list {
		if rep.healthy.Load() {
			n++
		}
	}
	return n
}
