package guidepost

import (
	"unicode"
	"unicode/utf8"
)

// TextProblem says what is wrong with s as text a person typed for others
// to read (a name, a title, a tag, an email), or "" when nothing is. NUL
// and other control characters are refused (PostgreSQL rejects NUL in text
// outright), and so are the bidirectional controls that make text display
// in another order than it is stored. With lines, newlines and tabs are
// allowed. Joiners and other invisible format characters stay allowed:
// emoji sequences need them.
func TextProblem(s string, lines bool) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	for _, r := range s {
		switch {
		case lines && (r == '\n' || r == '\r' || r == '\t'):
		case unicode.IsControl(r):
			return "must not contain control characters"
		case isBidiControl(r):
			return "must not contain bidirectional control characters"
		}
	}
	return ""
}

// isBidiControl reports the explicit directional formatting characters of
// Unicode's bidirectional algorithm (UAX #9): marks, embeddings,
// overrides and isolates.
func isBidiControl(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
