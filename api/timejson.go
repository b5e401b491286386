package api

import "time"

// timeLayout is the API's one way to write an instant: RFC 3339 in UTC with
// exactly three fractional digits. A fixed width lets a client parse every
// time with one formatter (Swift's ISO8601DateFormatter and JavaScript's
// Date stop at milliseconds anyway), and truncating to milliseconds makes
// an answer built from the clock (a 202 upload) and a later one read back
// from PostgreSQL (microseconds) the same bytes. Go's formatter truncates.
const timeLayout = "2006-01-02T15:04:05.000Z"

// timestamp is how every time in a JSON answer is written; hand-assembled
// answers use appendTime, which writes the same bytes.
type timestamp time.Time

func (t timestamp) MarshalJSON() ([]byte, error) {
	return appendTime(make([]byte, 0, len(timeLayout)+2), time.Time(t)), nil
}

// stampOrNil is a nullable time: the zero time is JSON null.
func stampOrNil(t time.Time) *timestamp {
	if t.IsZero() {
		return nil
	}
	s := timestamp(t)
	return &s
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, timeLayout)
	return append(b, '"')
}
