package sql

import (
	"encoding/json"
	"fmt"

	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
)

// variantsColumn is media.variants, a JSON array (NULL: rendered before
// variants). Short member names: a photo has up to a dozen of them.
type variantsColumn []media.Variant

type variantJSON struct {
	Kind   string `json:"k"`
	Format string `json:"f"`
	Width  int    `json:"w"`
	Height int    `json:"h"`
	Bytes  int64  `json:"b"`
	Key    string `json:"key"`
}

// text is the column's JSON, for a $n::jsonb parameter (pgx would
// marshal the slice itself, under Go's field names).
func (c variantsColumn) text() (string, error) {
	out := make([]variantJSON, len(c))
	for i, v := range c {
		out[i] = variantJSON{v.Kind, string(v.Format), v.Width, v.Height, v.Bytes, v.Key}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// Scan reads the column; SQL NULL is a nil slice.
func (c *variantsColumn) Scan(src any) error {
	if src == nil {
		*c = nil
		return nil
	}
	var raw []byte
	switch s := src.(type) {
	case []byte:
		raw = s
	case string:
		raw = []byte(s)
	default:
		return fmt.Errorf("media.variants: cannot scan %T", src)
	}
	var in []variantJSON
	if err := json.Unmarshal(raw, &in); err != nil {
		return fmt.Errorf("media.variants: %w", err)
	}
	out := make([]media.Variant, len(in))
	for i, v := range in {
		out[i] = media.Variant{Kind: v.Kind, Format: photo.Encoding(v.Format), Width: v.Width, Height: v.Height, Bytes: v.Bytes, Key: v.Key}
	}
	*c = out
	return nil
}
