package sql_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/auth"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/moderation"
	gsql "github.com/guidepost/guidepost/sql"
)

// memberSince creates an account with an email (guest false), or a guest,
// created at the time given.
func memberSince(t testing.TB, db *gsql.DB, guest bool, created time.Time) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	u := auth.User{ID: id, DisplayName: "m", Guest: guest, CreatedAt: created}
	if !guest {
		u.Email = id + "@example.com"
	}
	if err := gsql.NewUsers(db).CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return id
}

func entry(mod string, a moderation.Action, t moderation.Target, author string) moderation.Entry {
	return moderation.Entry{ID: uuid.Must(uuid.NewV7()).String(), ModeratorID: mod, Action: a, Target: t,
		TargetAuthor: author, Reason: "test " + string(a), CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
}

func report(reporter string, t moderation.Target) moderation.Report {
	return moderation.Report{ID: uuid.Must(uuid.NewV7()).String(), ReporterID: reporter, Target: t, Reason: "spam",
		Status: moderation.StatusOpen, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
}

// publicIDs is what every public read of the store shows around a point.
func publicIDs(t *testing.T, store *gsql.Guides, lat, lng float64) map[string][]string {
	t.Helper()
	ctx := context.Background()
	ids := func(items []guides.Item) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.ID)
		}
		slices.Sort(out)
		return out
	}
	out := map[string][]string{}
	near, err := store.Nearby(ctx, guides.NearbyQuery{Lat: lat, Lng: lng, RadiusM: 5000, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	out["nearby"] = ids(near)
	text, err := store.Nearby(ctx, guides.NearbyQuery{Lat: lat, Lng: lng, RadiusM: 5000, Limit: 50, Text: "palace"})
	if err != nil {
		t.Fatal(err)
	}
	out["search"] = ids(text)
	box := guides.BBox{MinLat: lat - 0.05, MinLng: lng - 0.05, MaxLat: lat + 0.05, MaxLng: lng + 0.05}
	inBox, _, err := store.InBBox(ctx, guides.BBoxQuery{BBox: box, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	out["viewport"] = ids(inBox)
	tiles, err := store.LoadTiles(ctx, []int64{guides.TileOf(lat, lng)}, 4000)
	if err != nil {
		t.Fatal(err)
	}
	out["tiles"] = ids(tiles[0].Items)
	for _, zoom := range []int{10, 16} {
		cl, err := store.Clusters(ctx, guides.ClusterQuery{BBox: box, Zoom: zoom})
		if err != nil {
			t.Fatal(err)
		}
		n := int64(0)
		for _, c := range cl {
			n += c.Count
		}
		out["clusters"] = append(out["clusters"], strconv.FormatInt(n, 10))
	}
	return out
}

func TestAHiddenGuideLeavesEveryPublicReadAndItsAuthorStillSeesIt(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store, mod := gsql.NewGuides(db), gsql.NewModeration(db)
	author, viewer, moderator := guideUser(t, db), guideUser(t, db), guideUser(t, db)
	kept := textGuide(t, store, author, "palace gate", "", []string{"x"}, 37.5, 127.0)
	gone := textGuide(t, store, author, "palace hall", "", []string{"x"}, 37.5001, 127.0001)
	before := publicIDs(t, store, 37.5, 127.0)
	versions := func() int64 {
		return int64(countRows(t, db, `SELECT version FROM guide_tiles WHERE tile = $1`, guides.TileOf(37.5, 127.0)))
	}
	v0 := versions()

	target := moderation.Target{Type: moderation.TargetGuide, ID: gone}
	if _, err := mod.Apply(ctx, entry(moderator, moderation.Hide, target, author)); err != nil {
		t.Fatal(err)
	}
	if versions() <= v0 {
		t.Error("hiding did not bump the guide's tile")
	}
	after := publicIDs(t, store, 37.5, 127.0)
	for what, ids := range after {
		if what == "clusters" {
			if slices.Equal(ids, before[what]) {
				t.Errorf("clusters still count the hidden guide: %v", ids)
			}
			continue
		}
		if !slices.Equal(ids, []string{kept}) {
			t.Errorf("%s after hide: %v, want only %s", what, ids, kept)
		}
	}
	checkTileRows(t, db)
	if _, err := store.Guide(ctx, gone, viewer); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Errorf("another viewer reads the hidden guide: %v", err)
	}
	if _, err := store.Guide(ctx, gone, ""); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Errorf("an anonymous viewer reads the hidden guide: %v", err)
	}
	g, err := store.Guide(ctx, gone, author)
	if err != nil || g.Hidden == nil || g.Hidden.Reason != "test hide" {
		t.Fatalf("the author reads %+v, %v; want it labelled hidden", g.Hidden, err)
	}
	mine, err := store.ByAuthor(ctx, guides.MineQuery{AuthorID: author, Limit: 10})
	if err != nil || len(mine) != 2 || mine[0].ID != gone || mine[0].Hidden == nil || mine[1].Hidden != nil {
		t.Fatalf("the author's list: %+v, %v", mine, err)
	}

	if _, err := mod.Apply(ctx, entry(moderator, moderation.Restore, target, author)); err != nil {
		t.Fatal(err)
	}
	if again := publicIDs(t, store, 37.5, 127.0); !mapsEqual(again, before) {
		t.Errorf("after restore %v, want %v", again, before)
	}
	checkTileRows(t, db)
}

func mapsEqual(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func TestAHiddenPhotoLeavesTheGuidesThatShowIt(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store, mod := gsql.NewGuides(db), gsql.NewModeration(db)
	author, viewer := guideUser(t, db), guideUser(t, db)
	cover, second := guideMedia(t, db, author, "ready"), guideMedia(t, db, author, "ready")
	id := guideRow(t, store, author, 37.6, 127.1, cover, second)
	v0 := countRows(t, db, `SELECT version FROM guide_tiles WHERE tile = $1`, guides.TileOf(37.6, 127.1))
	if _, err := mod.Apply(ctx, entry(viewer, moderation.Hide, moderation.Target{Type: moderation.TargetPhoto, ID: cover}, author)); err != nil {
		t.Fatal(err)
	}
	if v := countRows(t, db, `SELECT version FROM guide_tiles WHERE tile = $1`, guides.TileOf(37.6, 127.1)); v <= v0 {
		t.Error("hiding a cover did not bump its guide's tile")
	}
	items, err := store.Nearby(ctx, guides.NearbyQuery{Lat: 37.6, Lng: 127.1, RadiusM: 100, Limit: 5})
	if err != nil || len(items) != 1 {
		t.Fatal(items, err)
	}
	if items[0].Cover.MediaID != second || items[0].PhotoCount != 1 {
		t.Errorf("cover %s, %d photos; want %s and 1", items[0].Cover.MediaID, items[0].PhotoCount, second)
	}
	g, err := store.Guide(ctx, id, viewer)
	if err != nil || len(g.Media) != 1 || g.Media[0].ID != second {
		t.Errorf("another viewer's guide shows %+v, %v", g.Media, err)
	}
	g, err = store.Guide(ctx, id, author)
	if err != nil || len(g.Media) != 2 || !g.Media[0].Hidden() {
		t.Errorf("the author's guide shows %d photos (first hidden: %v), %v", len(g.Media), len(g.Media) > 0 && g.Media[0].Hidden(), err)
	}
}

func TestReportsHoldATargetOnlyFromEstablishedAccounts(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store, mod := gsql.NewGuides(db), gsql.NewModeration(db)
	author := guideUser(t, db)
	id := guideRow(t, store, author, 37.7, 127.2)
	target := moderation.Target{Type: moderation.TargetGuide, ID: id}
	now := time.Now()
	rule := moderation.HoldRule{Reporters: 3, GuestsBefore: now.Add(-moderation.GuestAge)}
	file := func(reporter string) (moderation.Report, bool, *moderation.Entry) {
		t.Helper()
		r, created, held, err := mod.File(ctx, report(reporter, target), rule, entry("", moderation.Hide, target, author))
		if err != nil {
			t.Fatal(err)
		}
		return r, created, held
	}
	// A flood of fresh guests, each reporting twice, holds nothing.
	for range 10 {
		g := memberSince(t, db, true, now)
		first, created, held := file(g)
		again, createdAgain, _ := file(g)
		if !created || createdAgain || again.ID != first.ID || held != nil {
			t.Fatalf("a guest's repeat: created %v then %v, ids %s %s, held %v", created, createdAgain, first.ID, again.ID, held)
		}
	}
	if st, _ := mod.Target(ctx, target); st.Hidden() {
		t.Fatal("fresh guests hid the guide")
	}
	// An old guest and two members do.
	_, _, held := file(memberSince(t, db, true, now.Add(-48*time.Hour)))
	_, _, held2 := file(memberSince(t, db, false, now))
	if held != nil || held2 != nil {
		t.Fatal("held before the threshold")
	}
	_, _, held = file(memberSince(t, db, false, now))
	if held == nil || held.Reports != 3 || held.ModeratorID != "" {
		t.Fatalf("the third established reporter: held %+v", held)
	}
	if items, _ := store.Nearby(ctx, guides.NearbyQuery{Lat: 37.7, Lng: 127.2, RadiusM: 100, Limit: 5}); len(items) != 0 {
		t.Error("a held guide is still listed")
	}
	q, err := mod.Queue(ctx, nil, 10)
	if err != nil || len(q) != 1 || q[0].Reporters != 13 || !q[0].State.Hidden() {
		t.Fatalf("queue %+v, %v", q, err)
	}
	// A moderator dismisses: the reports close and the hold lifts.
	done, err := mod.Apply(ctx, entry(author, moderation.Dismiss, target, author))
	if err != nil || done.Entry.Reports != 13 {
		t.Fatalf("dismiss closed %d, %v", done.Entry.Reports, err)
	}
	if st, _ := mod.Target(ctx, target); st.Hidden() {
		t.Error("dismiss left the automatic hold")
	}
	if q, _ := mod.Queue(ctx, nil, 10); len(q) != 0 {
		t.Errorf("queue after dismiss: %+v", q)
	}
}

func TestReportingADeletedTargetIsNotFound(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store, mod := gsql.NewGuides(db), gsql.NewModeration(db)
	author, reporter := guideUser(t, db), guideUser(t, db)
	id := guideRow(t, store, author, 37.8, 127.3)
	if err := store.DeleteGuide(ctx, id, func(guides.Draft) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, target := range []moderation.Target{{Type: moderation.TargetGuide, ID: id},
		{Type: moderation.TargetPhoto, ID: uuid.NewString()}, {Type: moderation.TargetUser, ID: uuid.NewString()}} {
		_, _, _, err := mod.File(ctx, report(reporter, target), moderation.HoldRule{}, moderation.Entry{})
		if guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
			t.Errorf("%s: %v, want not found", target.Type, err)
		}
		if _, err := mod.Apply(ctx, entry(reporter, moderation.Hide, target, author)); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
			t.Errorf("acting on a deleted %s: %v", target.Type, err)
		}
	}
}

func TestSuspendingEndsSessionsAndHidesOnlyWhatItHid(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store, mod, users := gsql.NewGuides(db), gsql.NewModeration(db), gsql.NewUsers(db)
	user := guideUser(t, db)
	sid := uuid.NewString()
	now := time.Now()
	if err := users.CreateSession(ctx, auth.SessionRow{ID: sid, UserID: user, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, []byte(sid)); err != nil {
		t.Fatal(err)
	}
	a, b := guideRow(t, store, user, 37.9, 127.4), guideRow(t, store, user, 37.91, 127.4)
	photo := guideMedia(t, db, user, "ready")
	// b is hidden by a moderator before the suspension: unsuspend leaves it so.
	if _, err := mod.Apply(ctx, entry("", moderation.Hide, moderation.Target{Type: moderation.TargetGuide, ID: b}, user)); err != nil {
		t.Fatal(err)
	}
	target := moderation.Target{Type: moderation.TargetUser, ID: user}
	done, err := mod.Apply(ctx, entry("", moderation.Suspend, target, user))
	if err != nil || !slices.Equal(done.Hidden, []string{photo}) {
		t.Fatalf("suspend hid photos %v, %v", done.Hidden, err)
	}
	if live, err := users.SessionLive(ctx, auth.Caller{UserID: user, SessionID: sid}, time.Now()); live || err != nil {
		t.Errorf("the suspended user's session is live (%v)", err)
	}
	err = users.CreateSession(ctx, auth.SessionRow{ID: uuid.NewString(), UserID: user, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, []byte("x"))
	if guidepost.ErrorCode(err) != guidepost.EFORBIDDEN {
		t.Errorf("a suspended user got a new session: %v", err)
	}
	if st, _ := mod.Target(ctx, moderation.Target{Type: moderation.TargetGuide, ID: a}); !st.Hidden() {
		t.Error("the suspension left a guide shown")
	}
	done, err = mod.Apply(ctx, entry("", moderation.Unsuspend, target, user))
	if err != nil || !slices.Equal(done.Shown, []string{photo}) {
		t.Fatalf("unsuspend showed %v, %v", done.Shown, err)
	}
	if st, _ := mod.Target(ctx, moderation.Target{Type: moderation.TargetGuide, ID: a}); st.Hidden() {
		t.Error("unsuspend left the suspension's guide hidden")
	}
	if st, _ := mod.Target(ctx, moderation.Target{Type: moderation.TargetGuide, ID: b}); !st.Hidden() {
		t.Error("unsuspend showed a guide a moderator had hidden")
	}
	checkTileRows(t, db)
	log, err := mod.Audit(ctx, "", 10)
	if err != nil || len(log) != 3 || log[0].Action != moderation.Unsuspend || log[2].Action != moderation.Hide {
		t.Errorf("audit %+v, %v", log, err)
	}
}

// Reports racing on one target are counted one transaction at a time:
// when the last of them reaches the threshold the target is held, once,
// however they interleave.
func TestRacingReportsHoldOnce(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	store, mod := gsql.NewGuides(db), gsql.NewModeration(db)
	author := guideUser(t, db)
	id := guideRow(t, store, author, 37.4, 127.5)
	target := moderation.Target{Type: moderation.TargetGuide, ID: id}
	const n = 6
	reporters := make([]string, n)
	for i := range reporters {
		reporters[i] = memberSince(t, db, false, time.Now())
	}
	rule := moderation.HoldRule{Reporters: n, GuestsBefore: time.Now().Add(-moderation.GuestAge)}
	held := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, r := range reporters {
		wg.Go(func() {
			var e *moderation.Entry
			_, _, e, errs[i] = mod.File(ctx, report(r, target), rule, entry("", moderation.Hide, target, author))
			held[i] = e != nil
		})
	}
	wg.Wait()
	holds := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if held[i] {
			holds++
		}
	}
	if st, _ := mod.Target(ctx, target); holds != 1 || !st.Hidden() {
		t.Fatalf("%d holds recorded, hidden %v; want exactly one", holds, st.Hidden())
	}
	if got := countRows(t, db, `SELECT count(*) FROM moderation_actions WHERE target_id = $1`, id); got != 1 {
		t.Errorf("%d audit entries", got)
	}
}
