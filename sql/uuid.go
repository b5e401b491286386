package sql

import "github.com/google/uuid"

// validUUID lets stores answer "not found" for an id that is not a UUID,
// instead of sending PostgreSQL a value it would reject with a cast error.
func validUUID(s string) bool {
	return len(s) == 36 && uuid.Validate(s) == nil
}
