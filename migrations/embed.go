// Package migrations holds the schema as goose SQL files, embedded into the
// binary so `guidepost migrate` needs nothing beside it.
package migrations

import "embed"

//go:embed *.sql
var FS embed.FS
