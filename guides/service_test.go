package guides_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
)

// fakeStore records writes and answers reads from a single guide.
type fakeStore struct {
	writes int
	draft  guides.Draft
	items  []guides.Item
	last   guides.NearbyQuery
}

func (f *fakeStore) CreateGuide(context.Context, guides.NewGuide) error { f.writes++; return nil }
func (f *fakeStore) PhotoRefs(context.Context, []string) (map[string]guides.PhotoRef, error) {
	return nil, nil // no photo exists
}
func (f *fakeStore) Guide(_ context.Context, id, _ string) (guides.Guide, error) {
	return guides.Guide{ID: id, Title: f.draft.Title}, nil
}
func (f *fakeStore) UpdateGuide(_ context.Context, _ string, apply func(*guides.Draft) error) error {
	d := f.draft
	if err := apply(&d); err != nil {
		return err
	}
	f.draft = d
	f.writes++
	return nil
}
func (f *fakeStore) DeleteGuide(_ context.Context, _ string, allow func(guides.Draft) error) error {
	if err := allow(f.draft); err != nil {
		return err
	}
	f.writes++
	return nil
}
func (f *fakeStore) Like(context.Context, string, guides.Liker, time.Time) (guides.LikeState, error) {
	f.writes++
	return guides.LikeState{Liked: true, LikeCount: 1}, nil
}
func (f *fakeStore) Unlike(context.Context, string, guides.Liker, time.Time) (guides.LikeState, error) {
	f.writes++
	return guides.LikeState{}, nil
}
func (f *fakeStore) Nearby(_ context.Context, q guides.NearbyQuery) ([]guides.Item, error) {
	f.last = q
	return f.items[:min(len(f.items), q.Limit)], nil
}
func (f *fakeStore) InBBox(context.Context, guides.BBoxQuery) ([]guides.Item, bool, error) {
	return nil, false, nil
}
func (f *fakeStore) Clusters(context.Context, guides.ClusterQuery) ([]guides.Cluster, error) {
	return nil, nil
}
func (f *fakeStore) AuthorsIn(context.Context, []string, guides.ClusterQuery) (bool, error) {
	return false, nil
}
func (f *fakeStore) ClustersWithout(context.Context, guides.ClusterQuery, []string) ([]guides.Cluster, error) {
	return nil, nil
}
func (f *fakeStore) VectorTile(context.Context, guides.VectorTileQuery) ([]byte, error) {
	return nil, nil
}
func (f *fakeStore) ByAuthor(context.Context, guides.MineQuery) ([]guides.Item, error) {
	return nil, nil
}
func (f *fakeStore) ViewerStates(context.Context, string, []string) (map[string]guides.LikeState, error) {
	return nil, nil
}

func newService(f *fakeStore) *guides.Service {
	return guides.New(guides.Deps{Store: f, Clock: guidepost.SystemClock{}}, guides.Config{CursorKey: guides.CursorKey("test secret")})
}

func fields(err error) map[string]bool {
	out := map[string]bool{}
	for _, f := range guidepost.ErrorFields(err) {
		out[f.Field] = true
	}
	return out
}

func num(v float64) *float64 { return &v }
func integer(v int) *int     { return &v }

// Every bad field is EINVALID naming it, and nothing reaches the store.
func TestCreateRefusesEveryBadField(t *testing.T) {
	good := func() guides.Input {
		return guides.Input{Title: "Seoul at night", Body: "text", Lat: num(37.5), Lng: num(127)}
	}
	cases := map[string]struct {
		edit  func(*guides.Input)
		field string
	}{
		"empty title":         {func(in *guides.Input) { in.Title = "  " }, "title"},
		"title of 121":        {func(in *guides.Input) { in.Title = strings.Repeat("가", 121) }, "title"},
		"title of 10 MB":      {func(in *guides.Input) { in.Title = strings.Repeat("x", 10<<20) }, "title"},
		"control in title":    {func(in *guides.Input) { in.Title = "a\x00b" }, "title"},
		"body of 10,001":      {func(in *guides.Input) { in.Body = strings.Repeat("b", 10_001) }, "body"},
		"missing lat":         {func(in *guides.Input) { in.Lat = nil }, "lat"},
		"missing lng":         {func(in *guides.Input) { in.Lng = nil }, "lng"},
		"lat 90.0001":         {func(in *guides.Input) { in.Lat = num(90.0001) }, "lat"},
		"lat -91":             {func(in *guides.Input) { in.Lat = num(-91) }, "lat"},
		"lng 180.5":           {func(in *guides.Input) { in.Lng = num(180.5) }, "lng"},
		"lat NaN":             {func(in *guides.Input) { in.Lat = num(math.NaN()) }, "lat"},
		"lng +Inf":            {func(in *guides.Input) { in.Lng = num(math.Inf(1)) }, "lng"},
		"21 photos":           {func(in *guides.Input) { in.MediaIDs = make([]string, 21) }, "media_ids"},
		"photo id not an id":  {func(in *guides.Input) { in.MediaIDs = []string{"../../etc"} }, "media_ids[0]"},
		"photo listed twice":  {func(in *guides.Input) { id := uuid.NewString(); in.MediaIDs = []string{id, id} }, "media_ids[1]"},
		"11 tags":             {func(in *guides.Input) { in.Tags = strings.Split("a,b,c,d,e,f,g,h,i,j,k", ",") }, "tags"},
		"empty tag":           {func(in *guides.Input) { in.Tags = []string{"ok", " "} }, "tags[1]"},
		"tag of 33":           {func(in *guides.Input) { in.Tags = []string{strings.Repeat("t", 33)} }, "tags[0]"},
		"control char in tag": {func(in *guides.Input) { in.Tags = []string{"a\nb"} }, "tags[0]"},
		"NUL in tag":          {func(in *guides.Input) { in.Tags = []string{"a\x00"} }, "tags[0]"},
		"bidi in title":       {func(in *guides.Input) { in.Title = "txt.\u202eexe" }, "title"},
		"isolate in title":    {func(in *guides.Input) { in.Title = "\u2067abc" }, "title"},
		"bidi in tag":         {func(in *guides.Input) { in.Tags = []string{"\u200ffood"} }, "tags[0]"},
		"override in body":    {func(in *guides.Input) { in.Body = "open 9\u202e5 daily" }, "body"},
		"isolate in body":     {func(in *guides.Input) { in.Body = "line one\n\u2066two" }, "body"},
		"NUL in body":         {func(in *guides.Input) { in.Body = "a\x00b" }, "body"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := &fakeStore{}
			in := good()
			tc.edit(&in)
			_, err := newService(f).Create(context.Background(), "author", in)
			if guidepost.ErrorCode(err) != guidepost.EINVALID || !fields(err)[tc.field] {
				t.Fatalf("want EINVALID naming %s, got %v %+v", tc.field, err, guidepost.ErrorFields(err))
			}
			if f.writes != 0 {
				t.Fatal("the store was written")
			}
		})
	}
	f := &fakeStore{}
	in := good()
	in.Tags = []string{" Food ", "food", "CAFE"}
	if _, err := newService(f).Create(context.Background(), "author", in); err != nil || f.writes != 1 {
		t.Fatalf("a good guide: %v", err)
	}
}

func TestNearbyRefusesEveryBadParameter(t *testing.T) {
	good := func() guides.NearbyParams { return guides.NearbyParams{Lat: num(37.5), Lng: num(127)} }
	cases := map[string]struct {
		edit  func(*guides.NearbyParams)
		field string
	}{
		"missing lat":   {func(p *guides.NearbyParams) { p.Lat = nil }, "lat"},
		"lat 91":        {func(p *guides.NearbyParams) { p.Lat = num(91) }, "lat"},
		"lng -180.1":    {func(p *guides.NearbyParams) { p.Lng = num(-180.1) }, "lng"},
		"lat NaN":       {func(p *guides.NearbyParams) { p.Lat = num(math.NaN()) }, "lat"},
		"radius 0":      {func(p *guides.NearbyParams) { p.RadiusM = num(0) }, "radius_m"},
		"radius 50,001": {func(p *guides.NearbyParams) { p.RadiusM = num(50_001) }, "radius_m"},
		"radius Inf":    {func(p *guides.NearbyParams) { p.RadiusM = num(math.Inf(1)) }, "radius_m"},
		"limit 0":       {func(p *guides.NearbyParams) { p.Limit = integer(0) }, "limit"},
		"limit 501":     {func(p *guides.NearbyParams) { p.Limit = integer(guides.MaxMapLimit + 1) }, "limit"},
		"tag of 33":     {func(p *guides.NearbyParams) { p.Tag = strings.Repeat("t", 33) }, "tag"},
		"forged cursor": {func(p *guides.NearbyParams) { p.Cursor = "AAAA" }, "cursor"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := good()
			tc.edit(&p)
			_, err := newService(&fakeStore{}).Nearby(context.Background(), p)
			if guidepost.ErrorCode(err) != guidepost.EINVALID || !fields(err)[tc.field] {
				t.Fatalf("want EINVALID naming %s, got %v", tc.field, err)
			}
		})
	}
}

// A cursor continues its own query only: any change of a byte, or of the
// point, radius or tag, is refused; the page size may change.
func TestCursorsAreSignedAndBoundToTheirQuery(t *testing.T) {
	ctx := context.Background()
	f := &fakeStore{}
	for i := range 5 {
		f.items = append(f.items, guides.Item{ID: uuid.NewString(), DistanceM: float64(i) * 10.5})
	}
	svc := newService(f)
	p := guides.NearbyParams{Lat: num(37.5), Lng: num(127), Limit: integer(2), Tag: "food"}
	page, err := svc.Nearby(ctx, p)
	if err != nil || page.NextCursor == "" || len(page.Items) != 2 {
		t.Fatalf("first page: %+v %v", page, err)
	}
	p.Cursor = page.NextCursor
	p.Limit = integer(3)
	if _, err := svc.Nearby(ctx, p); err != nil {
		t.Fatalf("own cursor refused: %v", err)
	}
	if at := f.last.After; at == nil || at.ID != f.items[1].ID || at.DistanceM != 10.5 {
		t.Fatalf("cursor decoded to %+v", at)
	}
	b := []byte(page.NextCursor)
	for i := range b {
		forged := append([]byte(nil), b...)
		forged[i] ^= 1
		q := p
		q.Cursor = string(forged)
		if _, err := svc.Nearby(ctx, q); !fields(err)["cursor"] {
			t.Fatalf("cursor with byte %d changed accepted: %v", i, err)
		}
	}
	for name, edit := range map[string]func(*guides.NearbyParams){
		"lat":    func(q *guides.NearbyParams) { q.Lat = num(37.50001) },
		"radius": func(q *guides.NearbyParams) { q.RadiusM = num(999) },
		"tag":    func(q *guides.NearbyParams) { q.Tag = "cafe" },
	} {
		q := p
		edit(&q)
		if _, err := svc.Nearby(ctx, q); !fields(err)["cursor"] {
			t.Errorf("cursor reused with another %s: %v", name, err)
		}
	}
	other := guides.New(guides.Deps{Store: f, Clock: guidepost.SystemClock{}}, guides.Config{CursorKey: guides.CursorKey("another secret")})
	if _, err := other.Nearby(ctx, p); !fields(err)["cursor"] {
		t.Error("a cursor signed with another key was accepted")
	}
	// The last page has no cursor.
	p.Cursor, p.Limit = "", integer(5)
	if page, _ := svc.Nearby(ctx, p); page.NextCursor != "" {
		t.Error("last page has a cursor")
	}
}

func TestParseBBox(t *testing.T) {
	for _, bad := range []string{"", "1,2,3", "1,2,3,4,5", "a,2,3,4", "1,NaN,3,4", "1,2,3,Inf", "-181,0,0,1",
		"0,-91,1,0", "0,5,1,4", "179,0,-179,1"} {
		if _, err := guides.ParseBBox("bbox", bad); !fields(err)["bbox"] {
			t.Errorf("%q: %v", bad, err)
		}
	}
	b, err := guides.ParseBBox("bbox", " 126.9, 37.5 ,127,37.6")
	if err != nil || b != (guides.BBox{MinLng: 126.9, MinLat: 37.5, MaxLng: 127, MaxLat: 37.6}) {
		t.Fatalf("%+v %v", b, err)
	}
	_, err = guides.ParseBBox("bbox", "179,0,-179,1")
	if !strings.Contains(guidepost.ErrorMessage(err), "antimeridian") {
		t.Errorf("antimeridian message: %v", err)
	}
	_, err = newService(&fakeStore{}).Clusters(context.Background(), guides.ClusterParams{
		BBox: &guides.BBox{MinLng: -180, MinLat: -90, MaxLng: 180, MaxLat: 90}, Zoom: num(12)})
	if !fields(err)["bbox"] {
		t.Errorf("a world of zoom-12 cells: %v", err)
	}
	_, err = newService(&fakeStore{}).Clusters(context.Background(), guides.ClusterParams{
		BBox: &guides.BBox{MinLng: -180, MinLat: -90, MaxLng: 180, MaxLat: 90}, Zoom: num(23)})
	if !fields(err)["zoom"] {
		t.Errorf("zoom 23: %v", err)
	}
}

func TestOnlyTheAuthorWrites(t *testing.T) {
	ctx := context.Background()
	f := &fakeStore{draft: guides.Draft{AuthorID: "alice", Title: "t"}}
	svc := newService(f)
	title := "mine now"
	if _, err := svc.Update(ctx, "g", "bob", guides.Patch{Title: &title}); guidepost.ErrorCode(err) != guidepost.EFORBIDDEN {
		t.Fatalf("update by bob: %v", err)
	}
	if _, err := svc.Update(ctx, "g", "bob", guides.Patch{}); guidepost.ErrorCode(err) != guidepost.EFORBIDDEN {
		t.Fatalf("empty update by bob: %v", err)
	}
	if err := svc.Delete(ctx, "g", "bob"); guidepost.ErrorCode(err) != guidepost.EFORBIDDEN {
		t.Fatalf("delete by bob: %v", err)
	}
	if f.writes != 0 || f.draft.Title != "t" {
		t.Fatal("written")
	}
	if g, err := svc.Update(ctx, "g", "alice", guides.Patch{Title: &title}); err != nil || g.Title != title {
		t.Fatalf("update by alice: %+v %v", g, err)
	}
	if _, err := svc.Update(ctx, "g", "alice", guides.Patch{}); err != nil || f.writes != 1 {
		t.Fatalf("empty update: %v (writes %d)", err, f.writes)
	}
}

func TestDistanceIsTheSphereOfPostGIS(t *testing.T) {
	// Seoul City Hall to Busan Station: PostGIS 3.3 answers
	// ST_Distance(a, b, false) = a <-> b = 329312.7469465847 m.
	d := guides.Distance(37.5665, 126.9780, 35.1151, 129.0415)
	if math.Abs(d-329312.7469465847) > 1e-6 {
		t.Fatalf("distance %.10f", d)
	}
	if guides.TileOf(37.57, 126.98) != guides.TileID(guides.TileRow(37.57), guides.TileCol(126.98)) {
		t.Fatal("tile numbering")
	}
}
