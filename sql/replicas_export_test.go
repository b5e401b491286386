package sql

import "github.com/jackc/pgx/v5/pgxpool"

// ReplicasInRotation counts the replicas reads may go to now.
func (db *DB) ReplicasInRotation() int { return db.reads.inRotation() }

// ReplicaPool is the pool of the i-th replica in DATABASE_REPLICA_URLS.
func (db *DB) ReplicaPool(i int) *pgxpool.Pool { return db.reads.list[i].pool }
