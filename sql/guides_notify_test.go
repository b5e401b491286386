package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// manyTiles is past what one NOTIFY holds (~470 tiles of 7000 bytes):
// before guide_tiles_notify, a write this wide notified "*".
const manyTiles = 900

// A write touching more tiles than one notification holds, and a rename of
// an author with guides in all of them, reach a listener as each tile's
// new version: it never reads every version again (which cost every API
// process all of guide_tiles on one client's rename).
func TestWideWritesNotifyEveryTileWithoutAResync(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testkit.DB(t)
	listener := gsql.NewGuides(db)
	rec := &tileRecorder{changed: map[int64]int64{}}
	watched := make(chan struct{})
	go func() { listener.WatchTiles(ctx, rec); close(watched) }()
	defer func() { cancel(); <-watched }()
	syncs := func() int { rec.mu.Lock(); defer rec.mu.Unlock(); return rec.synced }
	for deadline := time.Now().Add(5 * time.Second); syncs() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("listener never synced")
		}
	}

	author := guideUser(t, db)
	rows := make([]gsql.GuideRow, manyTiles)
	now := time.Now().UTC()
	for i := range rows {
		// one guide per tile: a grid of 30×30 tiles 0.01° apart
		rows[i] = gsql.GuideRow{ID: uuid.Must(uuid.NewV7()).String(), AuthorID: author, Title: "g",
			Lat: 37.005 + float64(i/30)*0.01, Lng: 127.005 + float64(i%30)*0.01, CreatedAt: now}
	}
	if n, err := gsql.InsertGuidesOnce(ctx, db, author, rows); err != nil || n != manyTiles {
		t.Fatalf("insert: %d %v", n, err)
	}
	heardAll := func(what string) {
		t.Helper()
		want := map[int64]int64{}
		for _, g := range rows {
			want[guides.TileOf(g.Lat, g.Lng)] = 0
		}
		if len(want) != manyTiles {
			t.Fatalf("%d tiles, want %d", len(want), manyTiles)
		}
		for tile := range want {
			want[tile] = int64(countRows(t, db, `SELECT version FROM guide_tiles WHERE tile = $1`, tile))
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			missing := 0
			for tile, v := range want {
				if rec.get(tile) < v {
					missing++
				}
			}
			if missing == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d of %d tiles not heard at their version", what, missing, len(want))
			}
		}
	}
	heardAll("insert")
	if _, err := gsql.NewUsers(db).Rename(ctx, author, "renamed"); err != nil {
		t.Fatal(err)
	}
	heardAll("rename")
	if n := syncs(); n != 1 {
		t.Fatalf("the listener read every version %d times, want once (at connect)", n)
	}
}

// guides.QueryTerms counts the index terms guide_search_query makes of a
// text search: exactly, for words and Hangul runs; a word joined by
// punctuation may add its whole form too ("a-b" is 'a-b', 'a', 'b'), at
// most doubling the count, or be one term (an address) where QueryTerms
// counts its parts: the cap never lets through more than twice its terms.
func TestQueryTermsCountsTheSearchTerms(t *testing.T) {
	db := testkit.DB(t)
	lexemes := func(q string) int {
		return countRows(t, db, `SELECT count(*) FROM regexp_matches(guide_search_query($1)::text, '''[^'']*''', 'g')`, q)
	}
	for _, q := range []string{"카페", "집", "서울카페", "남산서울타워전망대", "palace", "Seoul palace night", "카페 coffee 집",
		"서울카페에서 북촌", "abc def ghi jkl mno pqr stu vwx yz", "2024 여행", "ab 12 x"} {
		if got, want := guides.QueryTerms(q), lexemes(q); got != want {
			t.Errorf("QueryTerms(%q) = %d, the query has %d", q, got, want)
		}
	}
	for _, q := range []string{"a-b c.d", "N서울타워", "co-op café", "e-mail@x.org"} {
		if got, db := guides.QueryTerms(q), lexemes(q); db > 2*got {
			t.Errorf("QueryTerms(%q) = %d, the query has %d", q, got, db)
		}
	}
}
