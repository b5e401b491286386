package e2e

// People own their photos and their accounts: deleting a photo or an
// account, sessions, owner-only fields, and that no public answer or
// derivative gives away where a photo was taken.

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/media"
	"github.com/guidepost/guidepost/media/photo"
	"github.com/guidepost/guidepost/objstore"
)

// The GPS test photos and where they were taken (scripts/gen-testdata.sh).
var gpsPhotos = map[string][2]float64{
	"gps.jpg":  {48.858370, 2.294481},
	"gps.png":  {37.566535, 126.977969},
	"gps.webp": {35.658581, 139.745433},
	"gps.heic": {40.689247, -74.044502},
}

type session struct {
	User struct {
		ID    string  `json:"id"`
		Guest bool    `json:"guest"`
		Email *string `json:"email"`
	} `json:"user"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

type ownedMedia struct {
	ID      string  `json:"id"`
	Status  string  `json:"status"`
	SHA256  *string `json:"sha256"`
	Capture *struct {
		TakenAt *time.Time `json:"taken_at"`
		Lat     *float64   `json:"lat"`
		Lng     *float64   `json:"lng"`
	} `json:"capture"`
	URLs struct {
		Web       *string `json:"web"`
		Thumbnail *string `json:"thumbnail"`
		Original  *string `json:"original"`
	} `json:"urls"`
}

type guideDoc struct {
	ID        string  `json:"id"`
	Lat       float64 `json:"lat"`
	Lng       float64 `json:"lng"`
	LikeCount int64   `json:"like_count"`
	Media     []struct {
		ID string `json:"id"`
	} `json:"media"`
}

// coordinateStrings are the ways a coordinate could leak into text: the
// decimal degrees at 3 to 6 places, rounded or cut.
func coordinateStrings(v float64) []string {
	var out []string
	for places := 3; places <= 6; places++ {
		out = append(out, strconv.FormatFloat(v, 'f', places, 64))
		s := strconv.FormatFloat(v, 'f', 10, 64)
		out = append(out, s[:strings.IndexByte(s, '.')+1+places])
	}
	return out
}

// coordinatesIn lists the test photos' coordinates found in body. A match
// preceded by a digit, or by a colon after a digit (a time's seconds), is
// part of another number.
func coordinatesIn(body []byte) []string {
	var found []string
	for name, ll := range gpsPhotos {
		for _, v := range ll {
			for _, s := range coordinateStrings(v) {
				for i := 0; ; {
					j := strings.Index(string(body[i:]), s)
					if j < 0 {
						break
					}
					at := i + j
					i = at + 1
					digit := func(k int) bool { return k >= 0 && body[k] >= '0' && body[k] <= '9' }
					if digit(at-1) || at >= 1 && body[at-1] == ':' && digit(at-2) {
						continue
					}
					found = append(found, name+" "+s)
				}
			}
		}
	}
	return found
}

func findCoordinates(t *testing.T, what string, body []byte) {
	t.Helper()
	if found := coordinatesIn(body); len(found) > 0 {
		t.Errorf("%s leaks %v: %.300s", what, found, body)
	}
}

func download(t *testing.T, url string) []byte {
	t.Helper()
	code, body := get(t, url)
	if code != 200 {
		t.Fatalf("GET %s: %d", url, code)
	}
	return []byte(body)
}

func waitFor(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestOwnership(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev", "REFRESH_GRACE=1s")
	api := newGuideAPI(t, p.URL)

	var alice, bob session
	if code, raw := api.call("POST", "/v1/auth/signup", "", map[string]any{"email": "alice@example.com", "password": "password1", "display_name": "Alice"}, &alice); code != 201 || alice.RefreshToken == "" {
		t.Fatalf("signup: %d %s", code, raw)
	}
	if code, raw := api.call("POST", "/v1/auth/guest", "", nil, &bob); code != 201 {
		t.Fatalf("guest: %d %s", code, raw)
	}
	uploader := &mediaClient{t: t, base: p.URL, token: alice.AccessToken}
	names := []string{"gps.jpg", "gps.png", "gps.webp", "gps.heic", "orient-6.jpg"}
	ids := map[string]string{}
	for _, name := range names {
		r := uploader.upload(map[string][]byte{name: testPhoto(t, name)}, "")
		if r.status != 202 {
			t.Fatalf("%s: %d", name, r.status)
		}
		ids[name] = r.doc.ID
	}
	for _, name := range names {
		uploader.waitDone(ids[name], photoDone)
	}

	t.Run("the owner sees where and when; nobody else does", func(t *testing.T) {
		for name, ll := range gpsPhotos {
			var m ownedMedia
			if code, raw := api.call("GET", "/v1/media/"+ids[name], alice.AccessToken, nil, &m); code != 200 {
				t.Fatalf("%s: %d %s", name, code, raw)
			}
			if m.SHA256 == nil || m.URLs.Original == nil || m.Capture == nil || m.Capture.Lat == nil ||
				math.Abs(*m.Capture.Lat-ll[0]) > 1e-5 || math.Abs(*m.Capture.Lng-ll[1]) > 1e-5 {
				t.Fatalf("%s, owner's view: %+v", name, m)
			}
			// The scan below would see them: here, in the owner's answer.
			_, raw := api.call("GET", "/v1/media/"+ids[name], alice.AccessToken, nil, nil)
			if len(coordinatesIn(raw)) == 0 {
				t.Fatalf("%s: the coordinate scan finds nothing in the owner's answer %s", name, raw)
			}
			for _, tok := range []string{"", bob.AccessToken} {
				var other ownedMedia
				api.call("GET", "/v1/media/"+ids[name], tok, nil, &other)
				if other.SHA256 != nil || other.URLs.Original != nil || other.Capture != nil || other.URLs.Web == nil {
					t.Fatalf("%s, another's view: %+v", name, other)
				}
			}
		}
	})

	// Guides on Jeju, far from every test photo's place.
	var g1, g2 guideDoc
	if code, raw := api.call("POST", "/v1/guides", alice.AccessToken, map[string]any{"title": "Cover test", "lat": 33.45, "lng": 126.57,
		"media_ids": []string{ids["gps.jpg"], ids["orient-6.jpg"], ids["gps.png"]}}, &g1); code != 201 {
		t.Fatalf("guide: %d %s", code, raw)
	}
	if code, raw := api.call("POST", "/v1/guides", alice.AccessToken, map[string]any{"title": "More", "lat": 33.46, "lng": 126.58,
		"media_ids": []string{ids["gps.webp"], ids["gps.heic"]}}, &g2); code != 201 {
		t.Fatalf("guide: %d %s", code, raw)
	}

	t.Run("no public answer and no derivative carries a photo's place", func(t *testing.T) {
		paths := []string{
			"/v1/guides/" + g1.ID, "/v1/guides/" + g2.ID,
			"/v1/guides/nearby?lat=33.45&lng=126.57&radius_m=5000",
			"/v1/guides?bbox=126.5,33.4,126.6,33.5",
			"/v1/guides/clusters?bbox=126.5,33.4,126.6,33.5&zoom=12",
		}
		for name := range gpsPhotos {
			paths = append(paths, "/v1/media/"+ids[name])
		}
		for _, path := range paths {
			for _, tok := range []string{"", bob.AccessToken} {
				code, raw := api.call("GET", path, tok, nil, nil)
				if code != 200 {
					t.Fatalf("GET %s: %d %s", path, code, raw)
				}
				findCoordinates(t, "GET "+path, raw)
			}
		}
		// The author reading her own guides sees no photo's place either.
		for _, g := range []string{g1.ID, g2.ID} {
			_, raw := api.call("GET", "/v1/guides/"+g, alice.AccessToken, nil, nil)
			findCoordinates(t, "the author's GET /v1/guides/"+g, raw)
		}
		for name := range gpsPhotos {
			var m ownedMedia
			api.call("GET", "/v1/media/"+ids[name], "", nil, &m)
			for _, url := range []*string{m.URLs.Web, m.URLs.Thumbnail} {
				data := download(t, *url)
				findCoordinates(t, name+" derivative", data)
				if c := photo.ReadCapture(data, photo.JPEG); c != (photo.Capture{}) {
					t.Fatalf("%s derivative carries %+v", name, c)
				}
			}
		}
	})

	t.Run("a guide is pinned where a photo was taken", func(t *testing.T) {
		var pinned guideDoc
		code, raw := api.call("POST", "/v1/guides", alice.AccessToken, map[string]any{"title": "Pinned", "location_from_media_id": ids["gps.heic"]}, &pinned)
		if code != 201 || fmt.Sprintf("%.5f,%.5f", pinned.Lat, pinned.Lng) != "40.68925,-74.04450" {
			t.Fatalf("pinned: %d %s", code, raw)
		}
		for _, tc := range []struct {
			token, media string
		}{{alice.AccessToken, ids["orient-6.jpg"]}, {bob.AccessToken, ids["gps.heic"]}} {
			code, raw := api.call("POST", "/v1/guides", tc.token, map[string]any{"title": "No place", "location_from_media_id": tc.media}, nil)
			if code != 422 || !strings.Contains(string(raw), "location_from_media_id") {
				t.Fatalf("want 422 naming the field: %d %s", code, raw)
			}
		}
		if code, raw := api.call("PATCH", "/v1/guides/"+pinned.ID, alice.AccessToken, map[string]any{"location_from_media_id": ids["gps.png"]}, &pinned); code != 200 ||
			fmt.Sprintf("%.4f,%.4f", pinned.Lat, pinned.Lng) != "37.5665,126.9780" {
			t.Fatalf("patch: %d %s", code, raw)
		}
	})

	t.Run("a deleted photo is gone everywhere", func(t *testing.T) {
		gone := ids["gps.jpg"]
		if code, _ := api.call("DELETE", "/v1/media/"+gone, bob.AccessToken, nil, nil); code != 403 {
			t.Fatalf("another user's delete: %d", code)
		}
		listCover := func() string {
			var page struct {
				Items []struct {
					ID    string `json:"id"`
					Cover *struct {
						ThumbHash *string `json:"thumbhash"`
					} `json:"cover"`
				} `json:"items"`
			}
			api.call("GET", "/v1/guides/nearby?lat=33.45&lng=126.57&radius_m=10", "", nil, &page)
			if len(page.Items) != 1 || page.Items[0].Cover == nil || page.Items[0].Cover.ThumbHash == nil {
				t.Fatalf("list: %+v", page)
			}
			return *page.Items[0].Cover.ThumbHash
		}
		before := listCover() // warms the tile cache
		if code, raw := api.call("DELETE", "/v1/media/"+gone, alice.AccessToken, nil, nil); code != 204 {
			t.Fatalf("delete: %d %s", code, raw)
		}
		deletedAt := time.Now()
		if code, _ := api.call("GET", "/v1/media/"+gone, alice.AccessToken, nil, nil); code != 404 {
			t.Fatalf("GET after delete: %d", code)
		}
		var g guideDoc
		api.call("GET", "/v1/guides/"+g1.ID, "", nil, &g)
		if len(g.Media) != 2 || g.Media[0].ID != ids["orient-6.jpg"] {
			t.Fatalf("guide after delete: %+v", g.Media)
		}
		waitFor(t, "the list's cover", time.Second, func() bool { return listCover() != before })
		t.Logf("list cover changed %s after the delete", time.Since(deletedAt).Round(time.Millisecond))
		waitFor(t, "the photo's objects and row", 10*time.Second, func() bool {
			return !s.hasObjectsOf(gone) && s.count(`SELECT count(*) FROM media WHERE id = $1`, gone) == 0
		})
		if code, _ := api.call("DELETE", "/v1/media/"+gone, alice.AccessToken, nil, nil); code != 404 {
			t.Fatalf("second delete: %d", code)
		}
	})

	t.Run("refresh rotates, logout and a password change revoke, a guest upgrades in place", func(t *testing.T) {
		var next session
		if code, raw := api.call("POST", "/v1/auth/refresh", "", map[string]any{"refresh_token": alice.RefreshToken}, &next); code != 200 || next.User.ID != alice.User.ID {
			t.Fatalf("refresh: %d %s", code, raw)
		}
		// A retry within the grace (its answer lost) gets a working pair.
		var retried session
		if code, raw := api.call("POST", "/v1/auth/refresh", "", map[string]any{"refresh_token": alice.RefreshToken}, &retried); code != 200 {
			t.Fatalf("refresh retried within the grace: %d %s", code, raw)
		}
		for _, tok := range []string{next.AccessToken, retried.AccessToken} {
			if code, _ := api.call("GET", "/v1/me", tok, nil, nil); code != 200 {
				t.Fatalf("a pair after a retry within the grace: %d", code)
			}
		}
		time.Sleep(1100 * time.Millisecond) // past REFRESH_GRACE
		if code, _ := api.call("POST", "/v1/auth/refresh", "", map[string]any{"refresh_token": alice.RefreshToken}, nil); code != 401 {
			t.Fatalf("reused refresh token after the grace: %d", code)
		}
		for _, tok := range []string{next.AccessToken, retried.AccessToken} {
			if code, _ := api.call("GET", "/v1/me", tok, nil, nil); code != 401 {
				t.Fatalf("a reuse after the grace must end the session: %d", code)
			}
		}
		if code, raw := api.call("POST", "/v1/auth/login", "", map[string]any{"email": "alice@example.com", "password": "password1"}, &alice); code != 200 {
			t.Fatalf("login: %d %s", code, raw)
		}
		var other session
		api.call("POST", "/v1/auth/login", "", map[string]any{"email": "alice@example.com", "password": "password1"}, &other)
		if code, _ := api.call("POST", "/v1/auth/logout", other.AccessToken, nil, nil); code != 204 {
			t.Fatalf("logout: %d", code)
		}
		if code, _ := api.call("GET", "/v1/me", other.AccessToken, nil, nil); code != 401 {
			t.Fatalf("after logout: %d", code)
		}
		if code, _ := api.call("GET", "/v1/me", alice.AccessToken, nil, nil); code != 200 {
			t.Fatalf("the other session: %d", code)
		}
		var changed session
		if code, raw := api.call("POST", "/v1/auth/password", alice.AccessToken, map[string]any{"current_password": "password1", "new_password": "password2"}, &changed); code != 200 {
			t.Fatalf("password: %d %s", code, raw)
		}
		if code, _ := api.call("GET", "/v1/me", alice.AccessToken, nil, nil); code != 401 {
			t.Fatalf("a session from before the password change: %d", code)
		}
		alice = changed

		var guide guideDoc
		api.call("POST", "/v1/guides", bob.AccessToken, map[string]any{"title": "Bob's", "lat": 33.3, "lng": 126.3}, &guide)
		var full session
		if code, raw := api.call("POST", "/v1/auth/upgrade", bob.AccessToken, map[string]any{"email": "bob@example.com", "password": "password1", "display_name": "Bob"}, &full); code != 200 ||
			full.User.ID != bob.User.ID || full.User.Guest {
			t.Fatalf("upgrade: %d %s", code, raw)
		}
		if code, _ := api.call("PATCH", "/v1/guides/"+guide.ID, full.AccessToken, map[string]any{"title": "Still Bob's"}, nil); code != 200 {
			t.Fatalf("the upgraded account lost its guide: %d", code)
		}
		if code, _ := api.call("POST", "/v1/auth/upgrade", full.AccessToken, map[string]any{"email": "bob2@example.com", "password": "password1", "display_name": "Bob"}, nil); code != 409 {
			t.Fatalf("second upgrade: %d", code)
		}
		bob = full
	})

	t.Run("a deleted account leaves nothing behind", func(t *testing.T) {
		var bobs guideDoc
		api.call("POST", "/v1/guides", bob.AccessToken, map[string]any{"title": "Liked by Alice", "lat": 33.2, "lng": 126.2}, &bobs)
		for _, tok := range []string{alice.AccessToken, bob.AccessToken} {
			if code, _ := api.call("PUT", "/v1/guides/"+bobs.ID+"/like", tok, nil, nil); code != 200 {
				t.Fatalf("like: %d", code)
			}
		}
		api.call("PUT", "/v1/guides/"+g1.ID+"/like", bob.AccessToken, nil, nil)
		listLikes := func() int64 {
			var page struct {
				Items []struct {
					LikeCount int64 `json:"like_count"`
				} `json:"items"`
			}
			api.call("GET", "/v1/guides/nearby?lat=33.2&lng=126.2&radius_m=10", "", nil, &page)
			if len(page.Items) != 1 {
				t.Fatalf("list: %+v", page)
			}
			return page.Items[0].LikeCount
		}
		waitFor(t, "the list shows 2 likes", 3*time.Second, func() bool { return listLikes() == 2 })
		// A direct upload half sent: its part URLs must stop taking bytes.
		big := paddedJPEG(t, 6<<20)
		var open uploadDoc
		if code, raw := api.call("POST", "/v1/uploads", alice.AccessToken, declaration(big, "image/jpeg"), &open); code != 201 || len(open.Parts) != 2 {
			t.Fatalf("upload: %d %s", code, raw)
		}
		putPart(t, open.Parts[0], big, open.PartSize, 0)

		if code, raw := api.call("DELETE", "/v1/me", alice.AccessToken, nil, nil); code != 202 {
			t.Fatalf("delete account: %d %s", code, raw)
		}
		if code, _ := api.call("GET", "/v1/me", alice.AccessToken, nil, nil); code != 401 {
			t.Fatalf("the deleted account's token: %d", code)
		}
		if code, _ := api.call("POST", "/v1/auth/refresh", "", map[string]any{"refresh_token": alice.RefreshToken}, nil); code != 401 {
			t.Fatalf("the deleted account's refresh token: %d", code)
		}
		if code, _ := api.call("POST", "/v1/auth/login", "", map[string]any{"email": "alice@example.com", "password": "password2"}, nil); code != 401 {
			t.Fatalf("the deleted account's log-in: %d", code)
		}
		waitFor(t, "every row of the account", 15*time.Second, func() bool { return s.accountRows(alice.User.ID) == 0 })
		if code := putPart(t, open.Parts[1], big, open.PartSize, 0); code == 200 {
			t.Fatal("a part URL of the deleted account took bytes")
		}
		if n := openUploads(t, s.s3); n != 0 {
			t.Fatalf("%d uploads of the deleted account open", n)
		}
		for name, id := range ids {
			if s.hasObjectsOf(id) {
				t.Errorf("objects of %s are left", name)
			}
		}
		if keys := s.objects(); len(keys) != 0 {
			t.Errorf("objects left in the bucket: %v", keys)
		}
		var g guideDoc
		if code, _ := api.call("GET", "/v1/guides/"+bobs.ID, "", nil, &g); code != 200 || g.LikeCount != 1 {
			t.Fatalf("Bob's guide after Alice left: %d %+v", code, g)
		}
		waitFor(t, "the list's like count", 3*time.Second, func() bool { return listLikes() == 1 })
		if code, _ := api.call("GET", "/v1/guides/"+g1.ID, "", nil, nil); code != 404 {
			t.Fatalf("Alice's guide: %d", code)
		}
		if code, _ := api.call("GET", "/v1/me", bob.AccessToken, nil, nil); code != 200 {
			t.Fatalf("Bob is still here: %d", code)
		}
		// The email is free again.
		if code, raw := api.call("POST", "/v1/auth/signup", "", map[string]any{"email": "alice@example.com", "password": "password1", "display_name": "Alice"}, nil); code != 201 {
			t.Fatalf("signup with a deleted account's email: %d %s", code, raw)
		}
	})
}

func (s *mediaStack) count(query string, args ...any) int {
	s.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.dbURL)
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		s.t.Fatal(err)
	}
	return n
}

// accountRows counts every row that belongs to or refers to the user, in
// every table that can hold one.
func (s *mediaStack) accountRows(userID string) int {
	return s.count(`SELECT
		(SELECT count(*) FROM users WHERE id = $1) +
		(SELECT count(*) FROM sessions WHERE user_id = $1) +
		(SELECT count(*) FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE s.user_id = $1) +
		(SELECT count(*) FROM media WHERE owner_id = $1) +
		(SELECT count(*) FROM guides WHERE author_id = $1) +
		(SELECT count(*) FROM guide_likes WHERE user_id = $1) +
		(SELECT count(*) FROM guide_media gm JOIN media m ON m.id = gm.media_id WHERE m.owner_id = $1) +
		(SELECT count(*) FROM idempotency_keys WHERE owner_id = $1) +
		(SELECT count(*) FROM uploads WHERE owner_id = $1)`, userID)
}

func (s *mediaStack) hasObjectsOf(mediaID string) bool {
	for _, k := range s.objects() {
		if strings.Contains(k, mediaID) {
			return true
		}
	}
	return false
}

// Originals stored under the old layout are moved by `guidepost migrate`,
// which may run twice and while a server reads them.
func TestMigrateMovesOriginals(t *testing.T) {
	t.Parallel()
	s := newMediaStack(t, testkit.S3Config(t))
	p := s.start("dev")
	c := newMediaClient(t, p.URL)
	r := c.upload(map[string][]byte{"photo.jpg": testPhoto(t, "photo.jpg")}, "")
	c.waitDone(r.doc.ID, photoDone)
	blobs := objstore.New(s.s3)
	ctx := context.Background()
	old := "media/" + r.doc.ID + "/original"
	if err := blobs.Copy(ctx, media.OriginalKey(r.doc.ID), old); err != nil {
		t.Fatal(err)
	}
	if err := blobs.Delete(ctx, media.OriginalKey(r.doc.ID)); err != nil {
		t.Fatal(err)
	}
	env := []string{"DATABASE_URL=" + s.dbURL, "REDIS_URL=" + s.redis.URL,
		"S3_ENDPOINT=" + s.s3.Endpoint, "S3_BUCKET=" + s.s3.Bucket,
		"S3_ACCESS_KEY=" + s.s3.AccessKey, "S3_SECRET_KEY=" + s.s3.SecretKey}
	for range 2 {
		cmd := exec.Command(testkit.Binary(t), "migrate")
		cmd.Env = append(cmd.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("migrate: %v\n%s", err, out)
		}
	}
	keys := strings.Join(s.objects(), " ")
	if !strings.Contains(keys, media.OriginalKey(r.doc.ID)) || strings.Contains(keys, old) {
		t.Fatalf("objects after migrate: %s", keys)
	}
	if got := download(t, *c.get(r.doc.ID).doc.URLs.Original); string(got) != string(testPhoto(t, "photo.jpg")) {
		t.Fatal("the moved original differs")
	}
}
