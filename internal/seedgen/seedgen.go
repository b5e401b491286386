// Package seedgen makes the demo content `guidepost seed` loads: a few
// hundred hand-placed demo guides, and any number of generated ones
// clustered like real cities for load tests and benchmarks. It decides
// what to write; the sql package only writes it.
package seedgen

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost/guides"
	gsql "github.com/guidepost/guidepost/sql"
)

// seedArea is a city the generated guides cluster in: a Gaussian around a
// centre, σ in degrees of latitude and longitude.
type seedArea struct {
	name               string
	lat, lng           float64
	sigmaLat, sigmaLng float64
	share              float64 // of the clustered half
}

// Seoul's σ of ~9 km puts ~14,000 of a million guides within 3 km of City
// Hall, the density the issue measured at.
var seedAreas = []seedArea{
	{"Seoul", 37.5665, 126.9780, 0.08, 0.10, 0.5},
	{"Busan", 35.1796, 129.0756, 0.05, 0.06, 0.3},
	{"Jeju", 33.4996, 126.5312, 0.05, 0.15, 0.2},
}

// seedSpread is where the other half lands, uniformly: South Korea's box.
var seedSpread = guides.BBox{MinLng: 126.1, MinLat: 34.0, MaxLng: 129.6, MaxLat: 38.3}

var seedTags = []string{"food", "cafe", "hiking", "beach", "temple", "market", "night", "museum", "view", "family",
	"history", "shopping", "street-food", "park", "art", "festival", "bar", "nature", "photo", "rainy-day"}

var seedAdjectives = []string{"Quiet", "Hidden", "Classic", "Local", "Late-night", "Sunny", "Old", "New", "Tiny", "Famous"}
var seedNouns = []string{"cafe", "alley", "market stall", "viewpoint", "noodle house", "trail", "gallery", "temple", "bakery", "beach"}

// The words generated bodies are written with, Korean and English, most
// common first: a text search then has common words (카페, coffee: a few
// per cent of all guides) and rare ones (a few hundred in a million).
var seedWords = []string{
	"카페", "coffee", "맛집", "시장", "view", "산책", "야경", "food", "공원", "바다",
	"market", "전망대", "한옥", "palace", "골목", "night", "해변", "temple", "박물관", "빵집",
	"museum", "사찰", "미술관", "noodles", "등산", "bakery", "한강", "gallery", "떡볶이", "국밥",
	"냉면", "sunset", "비빔밥", "bookshop", "벚꽃", "단풍", "garden", "온천", "포장마차", "tea",
	"서점", "hanok", "궁궐", "waterfall", "폭포", "lighthouse", "등대", "seafood", "회센터", "makgeolli",
}

// Korean glues particles to nouns: the search must find 카페 in 카페에서.
var seedParticles = []string{"", "", "", "에서", "의", "은", "는", "이", "가", "을", "를", "으로", "도"}

// seedWord picks a word, earlier ones more often (u², as tags).
func seedWord(rng *rand.Rand) string {
	return seedWords[int(float64(len(seedWords))*rng.Float64()*rng.Float64())]
}

// seedBody is 6–15 words, Korean nouns with a particle now and then.
func seedBody(rng *rand.Rand) string {
	var b strings.Builder
	for i := range 6 + rng.IntN(10) {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := seedWord(rng)
		b.WriteString(w)
		if w[0] >= 0x80 { // Hangul
			b.WriteString(seedParticles[rng.IntN(len(seedParticles))])
		}
	}
	b.WriteByte('.')
	return b.String()
}

// uuidV7At makes a version-7 id for a given time with the given random
// bits, so seeded ids sort like their creation times, as real ones do.
func uuidV7At(t time.Time, rnd []byte) string {
	var u uuid.UUID
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(t.UnixMilli()))
	copy(u[0:6], ms[2:8])
	copy(u[6:], rnd)
	u[6] = 0x70 | u[6]&0x0F
	u[8] = 0x80 | u[8]&0x3F
	return u.String()
}

// Guides loads n generated guides with COPY: half clustered in Seoul,
// Busan and Jeju, half spread over South Korea, 1–3 tags and a body of
// Korean and English words (common to rare, for text search) each, written by
// n/2000 (at least 10) generated guest authors over the past year. Rows go
// in tile order, so a tile's guides share disk pages. Each batch is one
// COPY, the tile trigger running once per batch; the whole load is one
// transaction (see gsql.LoadGuides).
func Guides(ctx context.Context, db *gsql.DB, n int, seed int64, progress func(done int)) error {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9d2c5680))
	now := time.Now().UTC()
	authors := make([]string, max(10, n/2000))
	rnd := make([]byte, 10)
	for i := range authors {
		fillRandom(rng, rnd)
		authors[i] = uuidV7At(now.Add(-400*24*time.Hour), rnd)
	}
	if err := gsql.CreateGuestAuthors(ctx, db, authors, "Seed author ", now.Add(-400*24*time.Hour)); err != nil {
		return fmt.Errorf("seed: authors: %w", err)
	}
	spots := spread(rng, n)
	const batch = 100_000
	err := gsql.LoadGuides(ctx, db, func(put func([]gsql.GuideRow) error) error {
		for start := 0; start < n; start += batch {
			rows := make([]gsql.GuideRow, 0, min(batch, n-start))
			for i := start; i < min(start+batch, n); i++ {
				rows = append(rows, generated(rng, rnd, i, spots[i], now, authors))
			}
			if err := put(rows); err != nil {
				return fmt.Errorf("seed: copy: %w", err)
			}
			if progress != nil {
				progress(start + len(rows))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := gsql.AnalyzeGuides(ctx, db); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	return nil
}

type spot struct {
	lat, lng float64
	tile     int64
}

// spread places n guides, alternately in a city and anywhere, in tile order.
func spread(rng *rand.Rand, n int) []spot {
	spots := make([]spot, n)
	for i := range spots {
		var lat, lng float64
		if i%2 == 0 {
			u := rng.Float64()
			a := seedAreas[len(seedAreas)-1]
			for _, c := range seedAreas {
				if u < c.share {
					a = c
					break
				}
				u -= c.share
			}
			lat = a.lat + rng.NormFloat64()*a.sigmaLat
			lng = a.lng + rng.NormFloat64()*a.sigmaLng
		} else {
			b := seedSpread
			lat = b.MinLat + rng.Float64()*(b.MaxLat-b.MinLat)
			lng = b.MinLng + rng.Float64()*(b.MaxLng-b.MinLng)
		}
		spots[i] = spot{lat, lng, guides.TileOf(lat, lng)}
	}
	slices.SortFunc(spots, func(a, b spot) int { return int(a.tile - b.tile) })
	return spots
}

// generated is the i-th generated guide, at s.
func generated(rng *rand.Rand, rnd []byte, i int, s spot, now time.Time, authors []string) gsql.GuideRow {
	created := now.Add(-time.Duration(rng.Int64N(int64(365 * 24 * time.Hour)))).Truncate(time.Microsecond)
	fillRandom(rng, rnd)
	tags := make([]string, 0, 3)
	for range 1 + rng.IntN(3) {
		// Earlier tags are more common, as real tags are.
		t := seedTags[int(float64(len(seedTags))*rng.Float64()*rng.Float64())]
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	title := seedAdjectives[rng.IntN(len(seedAdjectives))] + " " + seedNouns[rng.IntN(len(seedNouns))] + " " +
		seedWord(rng) + " #" + strconv.Itoa(i+1)
	return gsql.GuideRow{ID: uuidV7At(created, rnd), AuthorID: authors[rng.IntN(len(authors))], Title: title,
		Body: seedBody(rng), Lat: s.lat, Lng: s.lng, Tags: tags, CreatedAt: created}
}

func fillRandom(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// demoPlace is a real place the demo guides gather around.
type demoPlace struct {
	city, name string
	lat, lng   float64
	tags       []string
}

var demoPlaces = []demoPlace{
	{"Seoul", "Gyeongbokgung Palace", 37.5796, 126.9770, []string{"history", "photo"}},
	{"Seoul", "Bukchon Hanok Village", 37.5826, 126.9836, []string{"history", "photo"}},
	{"Seoul", "Insadong", 37.5740, 126.9850, []string{"art", "shopping"}},
	{"Seoul", "Gwangjang Market", 37.5701, 126.9996, []string{"market", "street-food"}},
	{"Seoul", "Myeongdong", 37.5636, 126.9826, []string{"shopping", "street-food"}},
	{"Seoul", "N Seoul Tower", 37.5512, 126.9882, []string{"view", "night"}},
	{"Seoul", "Cheonggyecheon Stream", 37.5690, 126.9780, []string{"park", "night"}},
	{"Seoul", "Hongdae", 37.5563, 126.9236, []string{"night", "bar"}},
	{"Seoul", "Seongsu-dong", 37.5446, 127.0557, []string{"cafe", "shopping"}},
	{"Seoul", "Yeouido Hangang Park", 37.5284, 126.9341, []string{"park", "family"}},
	{"Seoul", "Lotte World Tower", 37.5126, 127.1025, []string{"view", "shopping"}},
	{"Seoul", "Bongeunsa Temple", 37.5150, 127.0577, []string{"temple", "history"}},
	{"Seoul", "Dongdaemun Design Plaza", 37.5665, 127.0092, []string{"art", "night"}},
	{"Seoul", "Ikseon-dong", 37.5740, 126.9897, []string{"cafe", "food"}},
	{"Seoul", "National Museum of Korea", 37.5240, 126.9804, []string{"museum", "family"}},
	{"Busan", "Haeundae Beach", 35.1587, 129.1604, []string{"beach", "family"}},
	{"Busan", "Gamcheon Culture Village", 35.0975, 129.0106, []string{"art", "photo"}},
	{"Busan", "Jagalchi Fish Market", 35.0966, 129.0306, []string{"market", "food"}},
	{"Busan", "Gwangalli Beach", 35.1532, 129.1186, []string{"beach", "night"}},
	{"Busan", "Haedong Yonggungsa", 35.1884, 129.2233, []string{"temple", "view"}},
	{"Busan", "Taejongdae", 35.0525, 129.0874, []string{"nature", "hiking"}},
	{"Busan", "BIFF Square", 35.0988, 129.0276, []string{"street-food", "shopping"}},
	{"Busan", "Huinnyeoul Culture Village", 35.0784, 129.0449, []string{"cafe", "view"}},
	{"Jeju", "Seongsan Ilchulbong", 33.4580, 126.9425, []string{"hiking", "view"}},
	{"Jeju", "Hallasan", 33.3617, 126.5292, []string{"hiking", "nature"}},
	{"Jeju", "Hyeopjae Beach", 33.3940, 126.2396, []string{"beach", "family"}},
	{"Jeju", "Dongmun Market", 33.5115, 126.5269, []string{"market", "food"}},
	{"Jeju", "Manjanggul Cave", 33.5283, 126.7716, []string{"nature", "family"}},
	{"Jeju", "Cheonjiyeon Falls", 33.2469, 126.5545, []string{"nature", "photo"}},
	{"Jeju", "Udo Island", 33.5065, 126.9535, []string{"beach", "cafe"}},
}

var demoAngles = []string{"first-visit tips", "at night", "with kids", "the best photo spot", "on a rainy day",
	"where locals eat nearby", "early morning", "a two-hour walk", "on a budget", "in autumn"}

// DemoGuideCount is how many guides DemoGuides writes.
const DemoGuideCount = 300

// DemoGuides writes the demo guides around Seoul, Busan and Jeju for
// authorID. Their ids and contents are derived from their number, so a
// second run inserts nothing; it returns how many were added.
func DemoGuides(ctx context.Context, db *gsql.DB, authorID string) (int, error) {
	base := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	rows := make([]gsql.GuideRow, DemoGuideCount)
	for i := range rows {
		h := sha256.Sum256([]byte("guidepost demo guide " + strconv.Itoa(i)))
		p := demoPlaces[i%len(demoPlaces)]
		angle := demoAngles[(i/len(demoPlaces))%len(demoAngles)]
		created := base.Add(time.Duration(i) * 37 * time.Minute)
		// Within ~400 m of the place, fixed by the hash.
		dLat := (float64(h[10])/255 - 0.5) * 0.007
		dLng := (float64(h[11])/255 - 0.5) * 0.009
		t := append(slices.Clone(p.tags), seedTags[int(h[12])%len(seedTags)])
		slices.Sort(t)
		rows[i] = gsql.GuideRow{ID: uuidV7At(created, h[:10]), Title: p.name + ": " + angle,
			Body: fmt.Sprintf("%s in %s, %s. A demo guide written by guidepost seed --demo.", p.name, p.city, angle),
			Lat:  round6(p.lat + dLat), Lng: round6(p.lng + dLng), Tags: slices.Compact(t), CreatedAt: created}
	}
	added, err := gsql.InsertGuidesOnce(ctx, db, authorID, rows)
	if err != nil {
		return 0, fmt.Errorf("seed: demo guides: %w", err)
	}
	return added, nil
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
