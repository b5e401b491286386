package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
)

const (
	readerUser    = "01900000-0000-7000-8000-000000000001"
	readerSession = "01900000-0000-7000-8000-000000000002"
)

func readerTokens(now time.Time) *Tokens {
	return NewTokens(strings.Repeat("k", 32), time.Hour, guidepost.ClockFunc(func() time.Time { return now }))
}

// signed is a token of the given header and claims, signed with key
// whatever they hold: what only the holder of the key can make.
func signed(key []byte, header, claims string) string {
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(claims))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(signing))
	return signing + "." + enc.EncodeToString(mac.Sum(nil))
}

// The reader takes the tokens Issue writes: if the library ever wrote
// them otherwise, every check would fall back to it unseen.
func TestTokenReaderReadsWhatIssueWrites(t *testing.T) {
	for _, now := range []time.Time{time.Unix(1_800_000_000, 0), time.Unix(1_800_000_000, 999_999_999), time.Now()} {
		tokens := readerTokens(now)
		token, err := tokens.Issue(readerUser, readerSession)
		if err != nil {
			t.Fatal(err)
		}
		c, exp, ok := tokens.reader.read(token, now)
		if !ok || c != (Caller{UserID: readerUser, SessionID: readerSession}) {
			t.Fatalf("at %v: read %+v, %v", now, c, ok)
		}
		lc, lexp, err := tokens.parse(token, now)
		if err != nil || lc != c || !lexp.Equal(exp) {
			t.Fatalf("at %v: the library reads %+v until %v (%v); the reader %+v until %v", now, lc, lexp, err, c, exp)
		}
	}
}

// Every token the reader does not vouch for goes to the library, and
// Verify answers it as the library does.
func TestTokenReaderLeavesTheRestToTheLibrary(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tokens := readerTokens(now)
	key := tokens.secret
	hs256 := `{"alg":"HS256","typ":"JWT"}`
	ours := func(claims string) string { return signed(key, hs256, claims) }
	good := `{"iss":"guidepost","sub":"` + readerUser + `","exp":1800003600,"iat":1800000000,"sid":"` + readerSession + `"}`
	if _, _, ok := tokens.reader.read(ours(good), now); !ok {
		t.Fatal("the reference token is not read")
	}
	issued, _ := tokens.Issue(readerUser, readerSession)
	cases := map[string]struct {
		token string
		want  string // "": the library accepts it
	}{
		"expired at exp":       {ours(strings.Replace(good, "1800003600", "1800000000", 1)), guidepost.ETOKENEXPIRED},
		"another key":          {signed([]byte("another key of 32 bytes, or so.."), hs256, good), guidepost.EUNAUTHORIZED},
		"tampered claims":      {strings.Replace(ours(good), ".eyJ", ".eyK", 1), guidepost.EUNAUTHORIZED},
		"tampered signature":   {issued[:len(issued)-3] + map[bool]string{true: "AAA", false: "BBB"}[!strings.HasSuffix(issued, "AAA")], guidepost.EUNAUTHORIZED},
		"alg none":             {signed(key, `{"alg":"none","typ":"JWT"}`, good), guidepost.EUNAUTHORIZED},
		"alg HS384 header":     {signed(key, `{"alg":"HS384","typ":"JWT"}`, good), guidepost.EUNAUTHORIZED},
		"header reordered":     {signed(key, `{"typ":"JWT","alg":"HS256"}`, good), ""},
		"not yet valid":        {ours(strings.Replace(good, `,"iat"`, `,"nbf":1900000000,"iat"`, 1)), guidepost.EUNAUTHORIZED},
		"an audience":          {ours(strings.Replace(good, `,"exp"`, `,"aud":"x","exp"`, 1)), ""},
		"another issuer":       {ours(strings.Replace(good, `"guidepost"`, `"elsewhere"`, 1)), guidepost.EUNAUTHORIZED},
		"escaped subject":      {ours(strings.Replace(good, `"sub":"0`, `"sub":"\u0030`, 1)), ""},
		"no session":           {ours(strings.Replace(good, readerSession, "", 1)), guidepost.EUNAUTHORIZED},
		"no subject":           {ours(strings.Replace(good, readerUser, "", 1)), guidepost.EUNAUTHORIZED},
		"fractional expiry":    {ours(strings.Replace(good, "1800003600", "1800003600.5", 1)), ""},
		"expiry with a zero":   {ours(strings.Replace(good, "1800003600", "01800003600", 1)), guidepost.EUNAUTHORIZED},
		"negative expiry":      {ours(strings.Replace(good, "1800003600", "-1800003600", 1)), guidepost.ETOKENEXPIRED},
		"expiry as a string":   {ours(strings.Replace(good, "1800003600", `"1800003600"`, 1)), ""},
		"spaces":               {ours(strings.Replace(good, `,"sid"`, `, "sid"`, 1)), ""},
		"a field more":         {ours(strings.Replace(good, `"}`, `","x":1}`, 1)), ""},
		"a session twice":      {ours(strings.Replace(good, `"}`, `","sid":"other"}`, 1)), ""},
		"four segments":        {issued + ".x", guidepost.EUNAUTHORIZED},
		"padded":               {issued + "=", guidepost.EUNAUTHORIZED},
		"empty":                {"", guidepost.EUNAUTHORIZED},
		"refresh token":        {"gpr_ABCDEFGHIJKLMNOPQRSTUVWXYZ", guidepost.EUNAUTHORIZED},
		"claims not an object": {ours(`[1,2]`), guidepost.EUNAUTHORIZED},
	}
	for name, tc := range cases {
		if c, _, ok := tokens.reader.read(tc.token, now); ok {
			t.Errorf("%s: the reader vouched for it (%+v)", name, c)
		}
		_, err := tokens.Verify(tc.token)
		if got := guidepost.ErrorCode(err); got != tc.want {
			t.Errorf("%s: Verify %q (%v), want %q", name, got, err, tc.want)
		}
	}
}

// The reader makes by hand the checks Tokens.rules asks of the library:
// this fails when the rules change, so that both change together; and
// what the rules leave alone (the issue time, an audience), both take.
func TestTokenReaderKnowsTheRules(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tokens := readerTokens(now)
	if n := len(tokens.rules(func() time.Time { return now })); n != 4 {
		t.Fatalf("rules has %d options; tokenReader checks 4 (HS256, the issuer, exp required, the time): teach it the new one", n)
	}
	issuedLater := `{"iss":"guidepost","sub":"` + readerUser + `","exp":1800003600,"iat":1900000000,"sid":"` + readerSession + `"}`
	token := signed(tokens.secret, `{"alg":"HS256","typ":"JWT"}`, issuedLater)
	if _, _, ok := tokens.reader.read(token, now); !ok {
		t.Fatal("the reader declines a token issued later than now")
	}
	if _, _, err := tokens.parse(token, now); err != nil {
		t.Fatalf("the library now checks the issue time (%v): so must the reader", err)
	}
}

// FuzzTokenReaderAcceptsOnlyWhatTheLibraryAccepts signs arbitrary headers
// and claims with our key (a token the reader could be fooled by must
// carry our signature) and mutates whole tokens: whatever the reader
// vouches for, the library accepts, naming the same caller until the same
// instant.
func FuzzTokenReaderAcceptsOnlyWhatTheLibraryAccepts(f *testing.F) {
	good := `{"iss":"guidepost","sub":"` + readerUser + `","exp":1800003600,"iat":1800000000,"sid":"` + readerSession + `"}`
	f.Add(`{"alg":"HS256","typ":"JWT"}`, good, "", int64(0))
	f.Add(`{"alg":"HS256","typ":"JWT"}`, strings.Replace(good, `,"iat"`, `,"nbf":1900000000,"iat"`, 1), "", int64(0))
	f.Add(`{"alg":"HS256","typ":"JWT"}`, good, "x", int64(3599))
	f.Add(`{"alg":"HS256","typ":"JWT"}`, `{"iss":"guidepost","sub":"a","exp":99,"iat":1,"sid":"b"}`, "", int64(-1_799_999_950))
	f.Add(`{"alg":"none"}`, good, "", int64(0))
	f.Add(`{"alg":"HS256","typ":"JWT"}`, strings.Replace(good, "1800000000", "1900000000", 1), "", int64(0))
	f.Add(`{"alg":"HS256","typ":"JWT"}`, strings.Replace(good, `,"exp"`, `,"aud":"x","exp"`, 1), "", int64(0))
	tokens := readerTokens(time.Time{}) // read and parse take the time themselves
	f.Fuzz(func(t *testing.T, header, claims, suffix string, dt int64) {
		now := time.Unix(1_800_000_000, 0).Add(time.Duration(dt) * time.Second)
		token := signed(tokens.secret, header, claims) + suffix
		for _, tok := range []string{token, strings.Replace(token, "_", "-", 1), token[:len(token)/2] + suffix + token[len(token)/2:]} {
			c, exp, ok := tokens.reader.read(tok, now)
			if !ok {
				continue
			}
			lc, lexp, err := tokens.parse(tok, now)
			if err != nil || lc != c || !lexp.Equal(exp) {
				t.Fatalf("%q: the reader vouched for %+v until %v; the library: %+v until %v, %v", tok, c, exp, lc, lexp, err)
			}
		}
	})
}

// What the reader saves: /reader against /library, the check it
// replaces.
func BenchmarkTokenReader(b *testing.B) {
	now := time.Now()
	tokens := readerTokens(now)
	token, _ := tokens.Issue(readerUser, readerSession)
	b.Run("reader", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, ok := tokens.reader.read(token, now); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := tokens.parse(token, now); err != nil {
				b.Fatal(err)
			}
		}
	})
}
