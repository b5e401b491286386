package sql

// ReplicasInRotation counts the replicas reads may go to now.
func (db *DB) ReplicasInRotation() int { return db.reads.inRotation() }
