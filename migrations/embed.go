// Package migrations holds the schema as goose SQL files, embedded into the
// binary so `guidepost migrate` needs nothing beside it.
//
// 00016_baseline.sql is the whole schema in one file. It replaced the
// sixteen migrations that built it and keeps the last one's version, so a
// database migrated before the squash (versions 1–16 recorded) finds
// nothing to do and one at an older version fails loudly instead of
// missing columns. From the baseline on, migrations are append-only: a
// change is a new file numbered after the last (00017_…), and a file once
// merged is never edited, because databases that ran it will not run it
// again.
//
// schema.sql is generated: pg_dump of a freshly migrated database, the one
// place to read the live tables, indexes, functions and triggers. A test
// (schema_test.go) fails when it differs from what the migrations make;
// scripts/schema.sh (make schema) writes it again. It is not embedded:
// only the numbered files are migrations.
package migrations

import "embed"

//go:embed [0-9]*.sql
var FS embed.FS
