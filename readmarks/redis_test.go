package readmarks_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/readmarks"
)

// A write raises the user's mark for every process; an older write never
// lowers it; it lives TTL; a Redis that cannot be read sends the
// request's reads to the primary (a mark no replica reaches).
func TestMarksFollowTheNewestWrite(t *testing.T) {
	ctx := context.Background()
	rdb := testkit.RedisClient(t, testkit.RedisURL(t, testkit.RedisDBReadMarks))
	marks := readmarks.New(readmarks.Deps{Client: rdb}, readmarks.Config{TTL: 3 * time.Second})
	first := marks.Follow(ctx, "u1")
	if m := guidepost.ReadMark(first); m != 0 {
		t.Fatalf("a user who never wrote has mark %d", m)
	}
	guidepost.Wrote(first, 500)
	if m := guidepost.ReadMark(first); m != 500 {
		t.Fatalf("the request's own mark: %d", m)
	}
	older := marks.Follow(ctx, "u1")
	if m := guidepost.ReadMark(older); m != 500 {
		t.Fatalf("the next request's mark: %d", m)
	}
	guidepost.Wrote(marks.Follow(ctx, "u2"), 100)
	if m := guidepost.ReadMark(marks.Follow(ctx, "u1")); m != 500 {
		t.Fatalf("another user's write moved u1's mark to %d", m)
	}
	// A request that started at 0 and wrote 300 after one that wrote 500.
	late := marks.Follow(ctx, "u3")
	guidepost.Wrote(marks.Follow(ctx, "u3"), 500)
	guidepost.Wrote(late, 300)
	if m := guidepost.ReadMark(marks.Follow(ctx, "u3")); m != 500 {
		t.Fatalf("an older write lowered the mark to %d", m)
	}
	if ttl := rdb.PTTL(ctx, "guidepost:readmark:u3").Val(); ttl <= 0 || ttl > 3*time.Second {
		t.Fatalf("ttl %s", ttl)
	}
	down := readmarks.New(readmarks.Deps{Client: redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})}, readmarks.Config{})
	if m := guidepost.ReadMark(down.Follow(ctx, "u1")); m != math.MaxInt64 {
		t.Fatalf("with Redis down the mark is %d", m)
	}
}
