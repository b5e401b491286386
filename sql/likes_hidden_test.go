package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	"github.com/guidepost/guidepost/moderation"
	gsql "github.com/guidepost/guidepost/sql"
)

// A guide hidden by a moderator, or by its author's suspension, cannot be
// liked or unliked by anyone but its author: the answer is the one for a
// guide that does not exist, and its count stays where it was. Once
// restored, likes work again. Both write paths: one statement per like,
// and the group commit, where the hidden guide shares a round with a
// visible one and with its author's own like.
func TestAHiddenGuideCannotBeLikedButByItsAuthor(t *testing.T) {
	for _, batched := range []bool{false, true} {
		name := "alone"
		if batched {
			name = "batched"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := testkit.DB(t)
			store, mod := gsql.NewGuides(db), gsql.NewModeration(db)
			if batched {
				batching(t, store, gsql.LikeBatchOptions{Committers: 1, Window: 100 * time.Millisecond})
			}
			author, fan, other, moderator := guideUser(t, db), guideUser(t, db), guideUser(t, db), guideUser(t, db)
			g, shownG := guideRow(t, store, author, 37.5, 127.0), guideRow(t, store, author, 37.6, 127.1)
			if _, err := store.Like(ctx, g, guides.Liker{UserID: fan}, time.Now()); err != nil {
				t.Fatal(err)
			}
			count := func(id string) (rows, n int) {
				return countRows(t, db, `SELECT count(*) FROM guide_likes WHERE guide_id = $1`, id),
					countRows(t, db, `SELECT (g.like_count + coalesce((SELECT sum(n) FROM guide_like_shards WHERE guide_id = g.id), 0))::int FROM guides g WHERE g.id = $1`, id)
			}
			target := moderation.Target{Type: moderation.TargetGuide, ID: g}
			if _, err := mod.Apply(ctx, entry(moderator, moderation.Hide, target, author)); err != nil {
				t.Fatal(err)
			}

			// At once, so that a batch holds them all in one round.
			calls := []likeCall{
				{like: true, guide: g, by: guides.Liker{UserID: other}, code: guidepost.ENOTFOUND},
				{like: false, guide: g, by: guides.Liker{UserID: fan}, code: guidepost.ENOTFOUND},
				{like: true, guide: shownG, by: guides.Liker{UserID: other}},
				{like: true, guide: g, by: guides.Liker{UserID: author}}, // the author still reads it, and may like it
			}
			codes := runCalls(store, calls)
			for i, c := range calls {
				if codes[i] != c.code {
					t.Errorf("call %d %+v: error %q, want %q", i, c, codes[i], c.code)
				}
			}
			if rows, n := count(g); rows != 2 || n != 2 {
				t.Errorf("the hidden guide: %d rows, count %d; want the fan's and the author's (2, 2)", rows, n)
			}
			if _, err := store.Unlike(ctx, g, guides.Liker{UserID: author}, time.Now()); err != nil {
				t.Errorf("the author unlikes their hidden guide: %v", err)
			}

			if _, err := mod.Apply(ctx, entry(moderator, moderation.Restore, target, author)); err != nil {
				t.Fatal(err)
			}
			st, err := store.Like(ctx, g, guides.Liker{UserID: other}, time.Now())
			if err != nil || !st.Liked || st.LikeCount != 2 {
				t.Errorf("like after restore: %+v, %v; want liked, count 2", st, err)
			}
			if st, err := store.Unlike(ctx, g, guides.Liker{UserID: fan}, time.Now()); err != nil || st.LikeCount != 1 {
				t.Errorf("unlike after restore: %+v, %v; want count 1", st, err)
			}

			// A suspension hides the author's guides: the same refusal.
			user := moderation.Target{Type: moderation.TargetUser, ID: author}
			if _, err := mod.Apply(ctx, entry(moderator, moderation.Suspend, user, author)); err != nil {
				t.Fatal(err)
			}
			if _, err := store.Like(ctx, shownG, guides.Liker{UserID: fan}, time.Now()); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
				t.Errorf("like of a suspended author's guide: %v, want not found", err)
			}
			if rows, n := count(shownG); rows != 1 || n != 1 {
				t.Errorf("the suspended author's guide: %d rows, count %d; want 1, 1", rows, n)
			}
		})
	}
}
