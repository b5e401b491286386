package guidepost

import (
	"encoding/base64"
	"fmt"

	"github.com/google/uuid"
)

// A "mine" list (an account's own guides or photos) pages newest first by
// id, and ids are UUIDv7, so a page ends at an id and the next starts
// below it. Its cursor is that id, opaque to clients. It needs no
// signature or expiry, unlike a search's: the list is the caller's own,
// and any position costs one index probe.

// PageCursor is the cursor of the page after the one that ended at id.
func PageCursor(id string) string {
	u, err := uuid.Parse(id)
	if err != nil {
		return "" // ids come from the store; never happens
	}
	return base64.RawURLEncoding.EncodeToString(u[:])
}

// PageAfter reads a cursor from PageCursor: "" for none, or EINVALID
// naming field.
func PageAfter(field, cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) != 16 {
		return "", Invalid(Field(field, FINVALIDFORMAT, "is not a cursor this server issued"))
	}
	return uuid.UUID(b).String(), nil
}

// PageSize reads a page size from v: def when absent, else 1 to max, or
// a field error on f naming field.
func PageSize(f *Fields, field string, v *int, def, max int) int {
	switch {
	case v == nil:
		return def
	case *v < 1 || *v > max:
		f.Add(field, FOUTOFRANGE, fmt.Sprintf("must be between 1 and %d", max))
	}
	return *v
}

// CheckPage reads a "mine" list's limit and cursor: the page size (def
// when absent, else 1 to max) and the id the page starts below, or
// EINVALID naming each bad one.
func CheckPage(limit *int, cursor string, def, max int) (n int, before string, err error) {
	var f Fields
	n = PageSize(&f, "limit", limit, def, max)
	before, err = PageAfter("cursor", cursor)
	if err != nil {
		f = append(f, ErrorFields(err)...)
	}
	return n, before, f.Err()
}
