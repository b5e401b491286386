package api

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
)

// guideItemJSON and toItemsJSON are the list items' wire form as
// encoding/json writes it: the reference appendItems must match.
type guideItemJSON struct {
	ID         string          `json:"id"`
	Author     guideAuthorJSON `json:"author"`
	Title      string          `json:"title"`
	Lat        float64         `json:"lat"`
	Lng        float64         `json:"lng"`
	DistanceM  *float64        `json:"distance_m,omitempty"`
	LikeCount  int64           `json:"like_count"`
	LikedByMe  bool            `json:"liked_by_me"`
	PhotoCount int             `json:"photo_count"`
	Tags       []string        `json:"tags"`
	Cover      *coverJSON      `json:"cover"`
	CreatedAt  timestamp       `json:"created_at"`
}

type coverJSON struct {
	ID        string  `json:"id"`
	Status    string  `json:"status"`
	ThumbHash *string `json:"thumbhash"`
	Width     *int    `json:"width"`
	Height    *int    `json:"height"`
	URLs      struct {
		Thumbnail *string          `json:"thumbnail"`
		Marker    *string          `json:"marker"`
		Formats   []photo.Encoding `json:"formats"`
	} `json:"urls"`
}

func toItemsJSON(items []guides.Item, withDistance bool) []guideItemJSON {
	out := make([]guideItemJSON, len(items))
	for i, it := range items {
		out[i] = guideItemJSON{ID: it.ID, Author: guideAuthorJSON{ID: it.Author.ID, DisplayName: it.Author.DisplayName},
			Title: it.Title, Lat: guides.RoundCoordinate(it.Lat), Lng: guides.RoundCoordinate(it.Lng),
			LikeCount: it.LikeCount, LikedByMe: it.LikedByMe, PhotoCount: it.PhotoCount, Tags: it.Tags, CreatedAt: timestamp(it.CreatedAt)}
		if out[i].Tags == nil {
			out[i].Tags = []string{}
		}
		if withDistance {
			d := guides.RoundDistance(it.DistanceM)
			out[i].DistanceM = &d
		}
		if it.Cover.MediaID != "" {
			c := &coverJSON{ID: it.Cover.MediaID, Status: string(it.Cover.Status), ThumbHash: nullable(it.Cover.ThumbHash)}
			if it.Cover.Status == media.StatusReady && it.Cover.Width > 0 {
				c.Width, c.Height = &it.Cover.Width, &it.Cover.Height
			}
			c.URLs.Thumbnail, c.URLs.Marker, c.URLs.Formats = nullable(it.CoverURLs.Thumbnail), nullable(it.CoverURLs.Marker), it.CoverURLs.Formats
			out[i].Cover = c
		}
	}
	return out
}

// appendItems writes what json.Marshal wrote for the same answer, byte for
// byte: strings that need escaping (HTML, controls, quotes, non-ASCII,
// invalid UTF-8), floats in both notations, empty and missing values.
func TestItemsEncodingMatchesEncodingJSON(t *testing.T) {
	testEncodingMatches(t, encodingCases())
}

// An item the cache holds is encoded once and answered from its parts
// with this answer's distance, likes and thumbnail URL: the same bytes.
func TestCachedItemsEncodeFromTheirParts(t *testing.T) {
	items := encodingCases()
	for i := range items {
		items[i].Encoded = &guides.Encoded{}
	}
	testEncodingMatches(t, items) // fills the parts
	for i := range items {
		if items[i].Encoded.Load() == nil {
			t.Fatalf("item %d: no parts kept", i)
		}
		items[i].DistanceM += 1.25
		items[i].LikeCount += 7
		items[i].LikedByMe = !items[i].LikedByMe
		items[i].CoverURLs = media.CoverURLs{Thumbnail: "https://s3.example/other.jpg?i=" + strconv.Itoa(i), Marker: "https://s3.example/m.jpg",
			Formats: []photo.Encoding{photo.EncodingJPEG}}
	}
	testEncodingMatches(t, items)
}

func encodingCases() []guides.Item {
	created := time.Date(2026, 3, 4, 5, 6, 7, 891000000, time.UTC)
	items := []guides.Item{
		{ID: "019be961-e7b5-71fc-b723-d1d3a0f0c268", Author: guides.Author{ID: "019be961-e7b5-71fc-b723-d1d3a0f0c269", DisplayName: "Guest KG5X45"},
			Title: "Hidden gallery #39406", Lat: 37.566840921884435, Lng: 126.97850970044489, DistanceM: 58.7812, LikeCount: 3,
			LikedByMe: true, PhotoCount: 4, Tags: []string{"history", "park"}, CreatedAt: created},
		{ID: "b", Author: guides.Author{DisplayName: "<안나> & \"Ana\""}, Title: `Tom & Jerry's <café> "quoted" \ back`,
			Lat: -0.0000001, Lng: 126.98428200000001, DistanceM: 0, LikeCount: -1, Tags: []string{},
			CoverURLs: media.CoverURLs{Thumbnail: "https://s3.example/t.jpg?X-Amz-Signature=ab&x=<y>", Marker: "https://s3.example/m.jpg?s=<&>"},
			Cover:     guides.Cover{MediaID: "m", Status: "ready", ThumbHash: "1QcSHQRnh493V4dIh4eXh1h4kJUI", Width: 4032, Height: 3024},
			CreatedAt: created.In(time.FixedZone("KST", 9*3600))},
		{ID: "p", Title: "pending cover", Lat: -33.86785, Lng: 151.20732, Cover: guides.Cover{MediaID: "m2", Status: "pending", Width: 10, Height: 10},
			CreatedAt: created},
		{ID: "q", Title: "public cover", Lat: 1, Lng: 2, CreatedAt: created,
			CoverURLs: media.CoverURLs{Thumbnail: "https://cdn.example/media/q/v/thumbnail.jpg", Marker: "https://cdn.example/media/q/v/marker.jpg",
				Formats: []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF}},
			Cover: guides.Cover{MediaID: "q", Status: "ready", Width: 1, Height: 2}},
		{ID: "c", Title: "ctl\x00\x1f\n\t\u2028\u2029 서울 \xff\xfe bad", Lat: 90, Lng: -180, DistanceM: 1234567.891,
			LikeCount: math.MaxInt64, Tags: []string{"", "태그", "a\"b"}, CreatedAt: time.Time{}},
		{ID: "d", Title: "", Lat: 1e-7, Lng: 123456789012345678901234.0, DistanceM: 0.004999, CreatedAt: created.Add(time.Nanosecond)},
	}
	return items
}

func testEncodingMatches(t *testing.T, items []guides.Item) {
	t.Helper()
	for _, withDistance := range []bool{true, false} {
		for _, cursor := range []string{"", "eyJkIjoxMjN9"} {
			want, err := json.Marshal(gin.H{"items": toItemsJSON(items, withDistance), "next_cursor": nullable(cursor)})
			if err != nil {
				t.Fatal(err)
			}
			got := itemsAnswer(items, withDistance, cursorField(cursor))
			if string(*got) != string(want) {
				t.Errorf("distance %v, cursor %q:\n got %s\nwant %s", withDistance, cursor, *got, want)
			}
			releaseAnswer(got)
		}
		for _, truncated := range []bool{false, true} {
			want, _ := json.Marshal(gin.H{"items": toItemsJSON(items, withDistance), "next_cursor": nullable("x"), "truncated": truncated})
			got := itemsAnswer(items, withDistance, cursorField("x"),
				answerField{"truncated", func(b []byte) []byte { return strconv.AppendBool(b, truncated) }})
			if string(*got) != string(want) {
				t.Errorf("truncated %v:\n got %s\nwant %s", truncated, *got, want)
			}
			releaseAnswer(got)
		}
	}
	empty, _ := json.Marshal(gin.H{"items": toItemsJSON(nil, true), "next_cursor": nil})
	if got := itemsAnswer(nil, true, cursorField("")); string(*got) != string(empty) {
		t.Errorf("no items: %s; want %s", *got, empty)
	}
}
