package sql_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/seedgen"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// textGuide writes a guide with a title, a body and tags at a point.
func textGuide(t *testing.T, store *gsql.Guides, author, title, body string, tags []string, lat, lng float64) string {
	t.Helper()
	return writeGuide(t, store, guides.NewGuide{AuthorID: author, Title: title, Body: body, Lat: lat, Lng: lng, Tags: tags})
}

// Text search finds a Korean word inside compounds and before particles,
// a syllable at either end of a word, English words and their plurals,
// across title, body and tags, every word required; ordered by distance.
func TestTextSearchMatchesKoreanAndEnglish(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	author := guideUser(t, db)
	// Each a little further north of the query point.
	cafe := textGuide(t, store, author, "서울카페", "아침 일찍 가면 조용해요.", nil, 37.5001, 127)
	particle := textGuide(t, store, author, "Hidden spot", "경복궁 근처 카페에서 커피를 마셨다", nil, 37.5002, 127)
	home := textGuide(t, store, author, "우리집 앞", "Palaces and coffee nearby.", []string{"street-food"}, 37.5003, 127)
	tower := textGuide(t, store, author, "N서울타워 야경", "", []string{"night"}, 37.5004, 127)
	far := textGuide(t, store, author, "카페 far away", "", nil, 37.6, 127)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"카페", []string{cafe, particle, far}},
		{"서울카페", []string{cafe}},
		{"커피", []string{particle}},
		{"집", []string{home}},          // the end of 우리집
		{"경복궁 카페", []string{particle}}, // every word
		{"coffee", []string{home}},
		{"palace", []string{home}}, // a prefix: palaces
		{"PALACES", []string{home}},
		{"food", []string{home}}, // a tag's part
		{"서울타워", []string{tower}},
		{"n서울타워 night", []string{tower}},
		{"카페 coffee", nil},
		{"울카페", []string{cafe}},
	} {
		got, err := store.Nearby(ctx, guides.NearbyQuery{Lat: 37.5, Lng: 127, RadiusM: 20_000, Limit: 10, Text: tc.q})
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		var ids []string
		for _, it := range got {
			ids = append(ids, it.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("q=%q: %v, want %v", tc.q, ids, tc.want)
		}
		items, _, err := store.InBBox(ctx, guides.BBoxQuery{BBox: guides.BBox{MinLng: 126.9, MinLat: 37.4, MaxLng: 127.1, MaxLat: 37.7},
			Limit: 10, Text: tc.q})
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != len(tc.want) {
			t.Errorf("viewport q=%q: %d guides, want %d", tc.q, len(items), len(tc.want))
		}
	}
	// An edit is searched at once: the document is a generated column.
	svc := guides.New(guides.Deps{Store: store, Clock: guidepost.SystemClock{}}, guides.Config{CursorKey: []byte("k")})
	body := "이제는 빵집"
	if _, err := svc.Update(ctx, far, author, guides.Patch{Body: &body}); err != nil {
		t.Fatal(err)
	}
	got, err := store.Nearby(ctx, guides.NearbyQuery{Lat: 37.5, Lng: 127, RadiusM: 20_000, Limit: 10, Text: "빵집"})
	if err != nil || len(got) != 1 || got[0].ID != far {
		t.Fatalf("after an edit: %+v %v", got, err)
	}
}

// A list item carries its author and photo count; renaming the author bumps
// the tiles of the author's guides, so cached lists show the new name.
func TestItemsCarryAuthorAndPhotosAndRenamesBumpTiles(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testkit.DB(t)
	store, listener := gsql.NewGuides(db), gsql.NewGuides(db)
	rec := &tileRecorder{changed: map[int64]int64{}}
	watched := make(chan struct{})
	go func() { listener.WatchTiles(ctx, rec); close(watched) }()
	defer func() { cancel(); <-watched }()
	author := guideUser(t, db)
	p1, p2 := guideMedia(t, db, author, "ready"), guideMedia(t, db, author, "pending")
	id := guideRow(t, store, author, 37.5, 127.0, p1, p2)
	guideRow(t, store, author, 35.1, 129.0)
	tiles, err := store.LoadTiles(ctx, []int64{guides.TileOf(37.5, 127.0)}, 100)
	if err != nil {
		t.Fatal(err)
	}
	it := tiles[0].Items[0]
	if it.ID != id || it.Author.ID != author || it.Author.DisplayName != "u" || it.PhotoCount != 2 || it.Cover.MediaID != p1 {
		t.Fatalf("tile item %+v", it)
	}
	before := countRows(t, db, `SELECT version FROM guide_tiles WHERE tile = $1`, guides.TileOf(35.1, 129.0))
	u, err := gsql.NewUsers(db).Rename(ctx, author, "Ana 안나")
	if err != nil || u.DisplayName != "Ana 안나" {
		t.Fatalf("rename: %+v %v", u, err)
	}
	for _, tile := range []int64{guides.TileOf(37.5, 127.0), guides.TileOf(35.1, 129.0)} {
		deadline := time.Now().Add(2 * time.Second)
		for rec.get(tile) <= int64(before) {
			if time.Now().After(deadline) {
				t.Fatalf("tile %d: no bump heard after the rename", tile)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if n := countRows(t, db, `SELECT sum(guides) FROM guide_tiles`); n != 2 {
		t.Errorf("a rename changed the tile counts: %d guides", n)
	}
	items, err := store.Nearby(ctx, guides.NearbyQuery{Lat: 37.5, Lng: 127.0, RadiusM: 10, Limit: 5})
	if err != nil || len(items) != 1 || items[0].Author.DisplayName != "Ana 안나" || items[0].PhotoCount != 2 {
		t.Fatalf("nearby after rename: %+v %v", items, err)
	}
}

// An author's list pages newest first without gaps; ViewerStates reads the
// viewer's likes and exact counts.
func TestByAuthorAndViewerStates(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store := gsql.NewGuides(db)
	author, other := guideUser(t, db), guideUser(t, db)
	var mine []string
	for i := range 7 {
		mine = append(mine, guideRow(t, store, author, 37.5+float64(i)*0.01, 127.0))
	}
	theirs := guideRow(t, store, other, 37.4, 127.0)
	slices.Reverse(mine)
	var got []string
	before := ""
	for {
		page, err := store.ByAuthor(ctx, guides.MineQuery{AuthorID: author, Limit: 3, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page {
			got = append(got, it.ID)
		}
		if len(page) < 3 {
			break
		}
		before = page[len(page)-1].ID
	}
	if !slices.Equal(got, mine) {
		t.Fatalf("pages %v, want %v", got, mine)
	}
	if _, err := store.Like(ctx, mine[0], guides.Liker{UserID: other}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Like(ctx, mine[0], guides.Liker{UserID: author}, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, err := store.ViewerStates(ctx, other, []string{mine[0], mine[1], theirs, uuid.NewString()})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]guides.LikeState{mine[0]: {Liked: true, LikeCount: 2}, mine[1]: {}, theirs: {}}
	if len(st) != len(want) {
		t.Fatalf("states %+v", st)
	}
	for id, w := range want {
		if st[id] != w {
			t.Errorf("%s: %+v, want %+v", id, st[id], w)
		}
	}
}

// A text search never reads the whole table: the walk is the pure KNN
// scan, and the indexed form finds a rare word through the text index.
func TestTextSearchPlansUseAnIndex(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	if err := seedgen.Guides(ctx, db, 30_000, 7, nil); err != nil {
		t.Fatal(err)
	}
	check := func(name string, plan planNode, jit bool, raw []byte, want string, sorts bool) {
		t.Helper()
		indexes := map[string]bool{}
		plan.walk(func(n planNode) {
			switch {
			case n.NodeType == "Seq Scan" && n.Relation == "guides":
				t.Errorf("%s: a sequential scan: %s", name, raw)
			case !sorts && (n.NodeType == "Sort" || n.NodeType == "Incremental Sort"):
				t.Errorf("%s: the plan sorts: %s", name, raw)
			}
			if n.IndexName != "" {
				indexes[n.IndexName] = true
			}
		})
		if want != "" && !indexes[want] {
			t.Errorf("%s: no scan of %s: %s", name, want, raw)
		}
		if jit {
			t.Errorf("%s: JIT compiled the query", name)
		}
	}
	for _, w := range []string{"카페", "coffee 맛집", "makgeolli"} {
		plan, jit, raw := explain(t, db, gsql.TextWalkSQL, 37.5665, 126.9780, nil, 100, w, nil)
		check("walk q="+w, plan, jit, raw, "guides_location_idx", false)
	}
	for _, w := range []string{"makgeolli", "등대"} {
		plan, jit, raw := explain(t, db, gsql.NearbyTextSQL, 37.5665, 126.9780, nil, 21, nil, 50_000.0, w)
		check("indexed q="+w, plan, jit, raw, "guides_search_idx", true)
	}
}

// Both ways of answering a text search give a brute force's answer, page
// after page: common words (the walk finishes), rare ones (it gives up),
// with tags, small and large radii.
func TestTextSearchBothWaysEqualABruteForce(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	if err := seedgen.Guides(ctx, db, 20_000, 9, nil); err != nil {
		t.Fatal(err)
	}
	store := gsql.NewGuides(db)
	rng := rand.New(rand.NewPCG(2, 3))
	words := []string{"카페", "coffee", "야경", "museum 맛집", "등대", "makgeolli", "폭포", "서울카페"}
	gaveUp, finished := 0, 0
	for i := range 120 {
		q := guides.NearbyQuery{Lat: 37.5665 + rng.NormFloat64()*0.1, Lng: 126.978 + rng.NormFloat64()*0.1,
			RadiusM: math.Exp(math.Log(200) + rng.Float64()*math.Log(50_000/200.0)), Limit: 1 + rng.IntN(30),
			Text: words[rng.IntN(len(words))]}
		if i%5 == 0 {
			q.Tag = "food"
		}
		want := bruteText(t, db, q)
		for page := 0; page < 3 && len(want) > 0; page++ {
			walked, done, indexed, err := store.TextSearchBothWays(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if done {
				finished++
				if diff := sameIDs(walked, want, q.Limit); diff != "" {
					t.Fatalf("walk %d page %d %+v: %s", i, page, q, diff)
				}
			} else {
				gaveUp++
			}
			if diff := sameIDs(indexed, want, q.Limit); diff != "" {
				t.Fatalf("index %d page %d %+v: %s", i, page, q, diff)
			}
			if len(want) <= q.Limit {
				break
			}
			last := want[q.Limit-1]
			q.After = &guides.Position{DistanceM: last.DistanceM, ID: last.ID}
			want = want[q.Limit:]
		}
	}
	t.Logf("the walk finished %d pages and gave up on %d", finished, gaveUp)
	if finished == 0 || gaveUp == 0 {
		t.Errorf("one way was never taken: %d finished, %d gave up", finished, gaveUp)
	}
}

// bruteText is every match of q within its radius after its cursor, in the
// nearby order, from all the guides the text matches.
func bruteText(t *testing.T, db *gsql.DB, q guides.NearbyQuery) []guides.Item {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT id::text, ST_Y(location::geometry), ST_X(location::geometry)
		FROM guides WHERE search @@ guide_search_query($1) AND ($2 = '' OR tags @> ARRAY[$2])`, q.Text, q.Tag)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	here := guides.PointAt(q.Lat, q.Lng)
	var out []guides.Item
	for rows.Next() {
		var it guides.Item
		if err := rows.Scan(&it.ID, &it.Lat, &it.Lng); err != nil {
			t.Fatal(err)
		}
		it.DistanceM = here.DistanceTo(guides.PointAt(it.Lat, it.Lng))
		if it.DistanceM <= q.RadiusM && guides.Follows(guides.PositionOf(it.ID, it.DistanceM), q.After) {
			out = append(out, it)
		}
	}
	guides.SortNearby(out)
	return out
}

func sameIDs(got, want []guides.Item, limit int) string {
	want = want[:min(limit, len(want))]
	if len(got) != len(want) {
		return fmt.Sprintf("%d guides, brute force %d", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].DistanceM != want[i].DistanceM {
			return fmt.Sprintf("#%d %s at %v, brute force %s at %v", i, got[i].ID, got[i].DistanceM, want[i].ID, want[i].DistanceM)
		}
	}
	return ""
}
