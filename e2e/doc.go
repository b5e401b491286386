// Package e2e drives the real guidepost binary against the real stack
// (PostgreSQL+PostGIS, Redis, the S3 server) the way a client would.
package e2e
