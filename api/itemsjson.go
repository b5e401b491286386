package api

import (
	"encoding/json"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/media"
)

// Map answers (nearby, viewport) are the hottest routes, and encoding/json
// spent more CPU on them than the cache that answered: reflection over a
// gin.H and twenty structs, and their garbage. appendItems writes the very
// bytes json.Marshal writes for the same values (guideItemJSON, field by
// field; TestItemsEncodingMatchesEncodingJSON holds it to that) into a
// pooled buffer.

var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// answerField is one member after "items" in a list answer.
type answerField struct {
	key   string
	value func([]byte) []byte
}

// itemsAnswer encodes {"items":[…],<key>:<value>,…} (fields in gin.H's
// sorted key order) and hands the bytes to send, then put back with
// releaseAnswer.
func itemsAnswer(items []guides.Item, withDistance bool, fields ...answerField) *[]byte {
	bp := answerBufs.Get().(*[]byte)
	b := append((*bp)[:0], `{"items":`...)
	b = appendItems(b, items, withDistance)
	for _, f := range fields {
		b = append(b, ',')
		b = appendString(b, f.key)
		b = append(b, ':')
		b = f.value(b)
	}
	*bp = append(b, '}')
	return bp
}

func releaseAnswer(bp *[]byte) {
	if cap(*bp) <= 1<<20 { // a rare huge answer is not kept
		answerBufs.Put(bp)
	}
}

func appendItems(b []byte, items []guides.Item, withDistance bool) []byte {
	b = append(b, '[')
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItem(b, &items[i], withDistance)
	}
	return append(b, ']')
}

func appendItem(b []byte, it *guides.Item, withDistance bool) []byte {
	if it.Encoded != nil {
		return appendFromParts(b, it, withDistance)
	}
	b = appendHead(b, it)
	if withDistance {
		b = append(b, `,"distance_m":`...)
		b = appendFloat(b, guides.RoundDistance(it.DistanceM))
	}
	b = appendLikes(b, it)
	b = appendMiddle(b, it)
	b = appendCoverURLs(b, it)
	return appendTail(b, it)
}

// appendFromParts writes the same bytes as appendItem's other branch,
// encoding the item's fixed fields only the first time it is answered.
func appendFromParts(b []byte, it *guides.Item, withDistance bool) []byte {
	p := it.Encoded.Load()
	if p == nil {
		buf := appendHead(nil, it)
		h := len(buf)
		buf = appendMiddle(buf, it)
		m := len(buf)
		buf = appendTail(buf, it)
		p = &guides.EncodedItem{Head: buf[:h:h], Middle: buf[h:m:m], Tail: buf[m:]}
		it.Encoded.Store(p)
	}
	b = append(b, p.Head...)
	if withDistance {
		b = append(b, `,"distance_m":`...)
		b = appendFloat(b, guides.RoundDistance(it.DistanceM))
	}
	b = appendLikes(b, it)
	b = append(b, p.Middle...)
	b = appendCoverURLs(b, it)
	return append(b, p.Tail...)
}

// appendCoverURLs ends the cover with this answer's URLs: made per answer,
// never cached, since presigned ones expire.
func appendCoverURLs(b []byte, it *guides.Item) []byte {
	if it.Cover.MediaID == "" {
		return b
	}
	u := &it.CoverURLs
	b = appendNullable(b, u.Thumbnail)
	b = append(b, `,"marker":`...)
	b = appendNullable(b, u.Marker)
	b = append(b, `,"formats":`...)
	if u.Formats == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range u.Formats {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, string(f))
		}
		b = append(b, ']')
	}
	return append(b, "}}"...)
}

// appendHead writes the item up to its coordinates.
func appendHead(b []byte, it *guides.Item) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, it.ID)
	b = append(b, `,"author":{"id":`...)
	b = appendString(b, it.Author.ID)
	b = append(b, `,"display_name":`...)
	b = appendString(b, it.Author.DisplayName)
	b = append(b, `},"title":`...)
	b = appendString(b, it.Title)
	b = append(b, `,"lat":`...)
	b = appendFloat(b, guides.RoundCoordinate(it.Lat))
	b = append(b, `,"lng":`...)
	return appendFloat(b, guides.RoundCoordinate(it.Lng))
}

func appendLikes(b []byte, it *guides.Item) []byte {
	b = append(b, `,"like_count":`...)
	b = strconv.AppendInt(b, it.LikeCount, 10)
	b = append(b, `,"liked_by_me":`...)
	return strconv.AppendBool(b, it.LikedByMe)
}

// appendMiddle writes photo count, tags and the cover up to its URLs (the
// cover's end is appendCoverURLs').
func appendMiddle(b []byte, it *guides.Item) []byte {
	b = append(b, `,"photo_count":`...)
	b = strconv.AppendInt(b, int64(it.PhotoCount), 10)
	b = append(b, `,"tags":[`...)
	for j, tag := range it.Tags {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendString(b, tag)
	}
	b = append(b, `],"cover":`...)
	if it.Cover.MediaID == "" {
		return append(b, "null"...)
	}
	b = append(b, `{"id":`...)
	b = appendString(b, it.Cover.MediaID)
	b = append(b, `,"status":`...)
	b = appendString(b, string(it.Cover.Status))
	b = append(b, `,"thumbhash":`...)
	b = appendNullable(b, it.Cover.ThumbHash)
	b = append(b, `,"width":`...)
	b = appendSize(b, it.Cover, it.Cover.Width)
	b = append(b, `,"height":`...)
	b = appendSize(b, it.Cover, it.Cover.Height)
	return append(b, `,"urls":{"thumbnail":`...)
}

// appendSize writes a cover's width or height: null until it is ready, as
// a Media's.
func appendSize(b []byte, c guides.Cover, n int) []byte {
	if c.Status != media.StatusReady || n <= 0 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(n), 10)
}

func appendTail(b []byte, it *guides.Item) []byte {
	b = append(b, `,"created_at":`...)
	b = appendTime(b, it.CreatedAt)
	if it.Hidden != nil { // the author's own list only
		b = append(b, `,"hidden":{"reason":`...)
		b = appendString(b, it.Hidden.Reason)
		b = append(b, `,"hidden_at":`...)
		b = appendTime(b, it.Hidden.At)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendString(b, s)
}

// appendString quotes s as encoding/json does. Plain ASCII without
// characters it escapes (quotes, backslashes, controls, <, >, &) is copied;
// anything else goes through json.Marshal itself.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			if err != nil { // not for a string
				panic(err)
			}
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat formats as encoding/json's float64 encoder: the shortest
// decimal, exponent form outside [1e-6, 1e21) with a one-digit negative
// exponent. NaN and infinities never reach here (coordinates and
// distances are finite).
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
