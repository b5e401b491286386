package cache

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/guides"
)

func TestEntryRoundTripsThroughTheRedisCodec(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 30, 0, 123456000, time.UTC)
	e := newEntry(510620698, guides.Tile{ID: 510620698, Version: 7, Count: 2, Items: []guides.Item{
		{ID: uuid.NewString(), Author: guides.Author{ID: uuid.NewString(), DisplayName: "안나 Ana"}, PhotoCount: 3,
			Title: "서울 café ☕", Lat: 37.56650000000001, Lng: 126.978, LikeCount: 12,
			Tags: []string{"food", "night"}, CreatedAt: at,
			Cover: guides.Cover{MediaID: uuid.NewString(), Status: "ready", ThumbHash: "1QcSHQRnh493V4dIh4eXh1h4kJUI", Width: 4032, Height: 3024}},
		{ID: uuid.NewString(), Author: guides.Author{ID: uuid.NewString()}, Title: "", Lat: -0.0, Lng: 0, Tags: []string{}, CreatedAt: at},
	}}, time.Now().UnixNano())
	got, err := decodeEntry(e.tile, encodeEntry(e))
	if err != nil {
		t.Fatal(err)
	}
	got.weigh()
	if !reflect.DeepEqual(got, e) {
		t.Fatalf("round trip:\n%+v\n%+v", got, e)
	}
	for _, bad := range [][]byte{nil, {9}, encodeEntry(e)[:20], append(encodeEntry(e), 0)} {
		if _, err := decodeEntry(1, bad); err == nil {
			t.Errorf("decoded %v", bad)
		}
	}
}
