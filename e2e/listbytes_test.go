package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/guidepost/guidepost/internal/testkit"
)

// What a list's covers cost. A 40-item nearby answer, through the binary,
// with presigned URLs and with MEDIA_PUBLIC_BASE_URL, against the same
// answer without what covers gained (width, height, urls.marker,
// urls.formats): byte for byte what the previous release wrote, as
// appendItems writes the old fields unchanged. Raw, and as served with
// gzip and zstd (every phone's HTTP stack asks for one): within 1.3× of
// before in both modes and every coding, while every variant is reachable
// from the cover: under a public base by its URL, with presigned URLs by
// its short API path (/v1/media/{id}/marker.jpg, which redirects), not by
// a second presigned URL (~400 bytes each: 1.53× raw when tried).
func TestListAnswersStayLight(t *testing.T) {
	env := stackEnv(t, testkit.RedisDBE2E)
	a := startServe(t, env)
	seedCoveredGuides(t, a, dbPool(t, env), 40)
	for _, mode := range []struct {
		name  string
		extra []string
	}{{"presigned", nil}, {"public", []string{"MEDIA_PUBLIC_BASE_URL=https://cdn.example.com"}}} {
		t.Run(mode.name, func(t *testing.T) {
			srv := startServe(t, env, mode.extra...)
			path := fmt.Sprintf("/v1/guides/nearby?lat=%s&lng=%s&radius_m=3000&limit=40", fmtF(lbLat), fmtF(lbLng))
			raw := fetchCoded(t, srv, path, "identity")
			var page struct {
				Items []struct {
					Cover struct {
						ID            string
						Width, Height int
						URLs          struct {
							Thumbnail, Marker string
							Formats           []string
						}
					}
				}
			}
			if err := json.Unmarshal(raw, &page); err != nil || len(page.Items) != 40 {
				t.Fatalf("%d items, %v: %.300s", len(page.Items), err, raw)
			}
			for _, it := range page.Items {
				c := it.Cover
				if c.Width != 4032 || c.Height != 3024 || c.URLs.Thumbnail == "" {
					t.Fatalf("cover %+v", c)
				}
				public := mode.extra != nil
				if strings.Join(c.URLs.Formats, ",") != "jpeg,webp" || !public && c.URLs.Marker != "/v1/media/"+c.ID+"/marker.jpg" {
					t.Fatalf("%s cover: formats %v, marker %q", mode.name, c.URLs.Formats, c.URLs.Marker)
				}
				if public {
					base, _ := url.Parse(c.URLs.Marker)
					small, _ := url.Parse("small.webp")
					thumb, _ := url.Parse("thumbnail.jpg")
					if got := base.ResolveReference(thumb).String(); got != c.URLs.Thumbnail {
						t.Fatalf("the thumbnail expands to %s, is %s", got, c.URLs.Thumbnail)
					}
					if u := base.ResolveReference(small).String(); !strings.HasPrefix(u, "https://cdn.example.com/media/") {
						t.Fatalf("small.webp expands to %s", u)
					}
				}
			}
			before := withoutNewCoverFields(raw)
			if bytes.Equal(before, raw) || !json.Valid(before) {
				t.Fatal("the answer has no new fields to take out")
			}
			if bin := os.Getenv(beforeBinaryEnv); bin != "" {
				p := testkit.StartBinary(t, bin, append(slices.Clone(env), mode.extra...), freeAddr(t), "serve")
				if old := fetchCoded(t, newGuideAPI(t, p.URL), path, "identity"); !bytes.Equal(old, before) {
					t.Fatalf("%s answers\n%.600s\nnot\n%.600s", bin, old, before)
				}
				t.Logf("%s answers the same bytes as this answer without the new members", bin)
			}
			ratio := func(a, b int) float64 { return float64(a) / float64(b) }
			t.Logf("%s, raw: %d bytes before, %d after (%.3f×)", mode.name, len(before), len(raw), ratio(len(raw), len(before)))
			for _, coding := range []string{"gzip", "zstd"} {
				served := fetchCoded(t, srv, path, coding)
				after, old := compressed(t, coding, raw), compressed(t, coding, before)
				t.Logf("%s, %s: %d bytes before, %d after (%.3f×; %d as served)", mode.name, coding, old, after, ratio(after, old), len(served))
				if ratio(after, old) > 1.3 {
					t.Errorf("%s, %s: %.3f× the bytes of before", mode.name, coding, ratio(after, old))
				}
			}
			if ratio(len(raw), len(before)) > 1.3 {
				t.Errorf("%s, raw: %.3f× the bytes of before", mode.name, ratio(len(raw), len(before)))
			}
		})
	}
}

const lbLat, lbLng = 37.5665, 126.978

// beforeBinaryEnv names a build of the previous release (go build -o …
// ./cmd/guidepost at its commit): given, the test checks that it answers
// exactly the bytes taken as "before".
const beforeBinaryEnv = "GUIDEPOST_LIST_BYTES_BEFORE"

// seedCoveredGuides writes n guides through the API, each with a ready
// photo of its own whose variants are what the worker records for a 12 MP
// photo (JPEG and WebP, four kinds), and realistic titles and tags. It
// returns the author's token.
func seedCoveredGuides(t *testing.T, a *guideAPI, pool *pgxpool.Pool, n int) string {
	t.Helper()
	titles := []string{"Gyeongbokgung at dawn", "Hidden hanok café", "Night market dumplings", "Bukhansan ridge trail",
		"Cheonggyecheon lanterns", "Mangwon market bites"}
	tags := [][]string{{"history", "palace"}, {"cafe"}, {"food", "night"}, {"hike", "views", "nature"}}
	owner, token := a.guest()
	for i := range n {
		photo := insertVariedPhoto(t, pool, owner)
		in := map[string]any{"title": fmt.Sprintf("%s #%d", titles[i%len(titles)], i+1), "tags": tags[i%len(tags)],
			"lat": lbLat + float64(i%7)*0.0013, "lng": lbLng + float64(i/7)*0.0011, "media_ids": []string{photo}}
		if code, raw := a.call("POST", "/v1/guides", token, in, nil); code != 201 {
			t.Fatalf("create %d: %d %s", i, code, raw)
		}
	}
	return token
}

func insertVariedPhoto(t *testing.T, pool *pgxpool.Pool, owner string) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	v := make([]byte, 6)
	rand.Read(v)
	version := hex.EncodeToString(v)
	type variant struct {
		K   string `json:"k"`
		F   string `json:"f"`
		W   int    `json:"w"`
		H   int    `json:"h"`
		B   int64  `json:"b"`
		Key string `json:"key"`
	}
	var vs []variant
	for _, k := range []struct {
		kind string
		w, h int
		jpeg int64
	}{{"marker", 256, 256, 14_210}, {"small", 540, 405, 41_877}, {"thumbnail", 1080, 810, 91_512}, {"web", 2048, 1536, 352_118}} {
		for _, f := range []struct {
			name, ext string
			share     int64
		}{{"jpeg", "jpg", 100}, {"webp", "webp", 55}} {
			vs = append(vs, variant{k.kind, f.name, k.w, k.h, k.jpeg * f.share / 100, "media/" + id + "/" + version + "/" + k.kind + "." + f.ext})
		}
	}
	js, _ := json.Marshal(vs)
	_, err := pool.Exec(context.Background(), `INSERT INTO media (id, owner_id, status, content_type, bytes, width, height, sha256, thumbhash,
			marker, variants, created_at, updated_at, processed_at)
		VALUES ($1, $2, 'ready', 'image/jpeg', 3480212, 4032, 3024, $3, '1QcSHQRnh493V4dIh4eXh1h4kJUI', true, $4::jsonb, now(), now(), now())`,
		id, owner, id, string(js))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// fetchCoded GETs path asking for one coding and returns the body as sent.
func fetchCoded(t *testing.T, a *guideAPI, path, coding string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", a.base+path, nil)
	req.Header.Set("Accept-Encoding", coding) // set by hand: the transport leaves the body coded
	resp, err := a.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if got := resp.Header.Get("Content-Encoding"); resp.StatusCode != 200 || got != strings.TrimPrefix(coding, "identity") {
		t.Fatalf("GET %s (%s): %d, Content-Encoding %q", path, coding, resp.StatusCode, got)
	}
	return body
}

// The new members of a list cover, as appendItems writes them.
var newCoverFields = regexp.MustCompile(`,"width":(?:null|\d+),"height":(?:null|\d+)|,"marker":(?:null|"[^"]*"),"formats":(?:null|\[[^\]]*\])`)

func withoutNewCoverFields(answer []byte) []byte { return newCoverFields.ReplaceAll(answer, nil) }

// compressed is len(b) coded as the server codes answers (api/compress.go).
func compressed(t *testing.T, coding string, b []byte) int {
	t.Helper()
	var out bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w, _ = gzip.NewWriterLevel(&out, gzip.BestSpeed)
	default:
		var err error
		if w, err = zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true)); err != nil {
			t.Fatal(err)
		}
	}
	w.Write(b)
	w.Close()
	return out.Len()
}
