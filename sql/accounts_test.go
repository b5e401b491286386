package sql_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/guides"
	"github.com/guidepost/guidepost/internal/testkit"
	gsql "github.com/guidepost/guidepost/sql"
)

// Removing a deleted account's likes leaves every guide's count exact
// (base plus shards equals the rows), however the likes were spread over
// the shards, and removing them twice changes nothing.
func TestRemovingAnAccountKeepsEveryLikeCountExact(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	g := gsql.NewGuides(db)
	a := gsql.NewAccounts(db)
	leaving, staying, author := newUser(t, db), newUser(t, db), newUser(t, db)
	var ids []string
	for i := range 3 {
		id := uuid.Must(uuid.NewV7()).String()
		if err := g.CreateGuide(ctx, guides.NewGuide{ID: id, AuthorID: author, Title: "t", Lat: 37.5, Lng: 127 + float64(i)/100, CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	own := uuid.Must(uuid.NewV7()).String()
	if err := g.CreateGuide(ctx, guides.NewGuide{ID: own, AuthorID: leaving, Title: "mine", Lat: 37.6, Lng: 127, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		for range 3 { // repeated likes land on several shards but count once
			g.Like(ctx, id, guides.Liker{UserID: leaving}, t0)
		}
		g.Like(ctx, id, guides.Liker{UserID: staying}, t0)
	}
	g.Like(ctx, own, guides.Liker{UserID: staying}, t0)

	if err := a.RemoveLikes(ctx, leaving); guidepost.ErrorCode(err) != "" {
		t.Fatal(err)
	}
	if err := a.MarkDeleted(ctx, leaving, t0); err != nil {
		t.Fatal(err)
	}
	if err := a.MarkDeleted(ctx, leaving, t0); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("second mark: %v", err)
	}
	for range 2 {
		if err := a.RemoveLikes(ctx, leaving); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		got, err := g.Guide(ctx, id, "")
		if err != nil || got.LikeCount != 1 {
			t.Fatalf("guide %s: %d likes, %v", id, got.LikeCount, err)
		}
	}
	if err := a.RemoveGuides(ctx, leaving); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Guide(ctx, own, ""); guidepost.ErrorCode(err) != guidepost.ENOTFOUND {
		t.Fatalf("own guide: %v", err)
	}
	if err := a.RemoveUser(ctx, staying); err != nil {
		t.Fatal(err)
	}
	if _, err := gsql.NewUsers(db).UserByID(ctx, staying); err != nil {
		t.Fatalf("RemoveUser removed an account that was not deleted: %v", err)
	}
	if err := a.RemoveUser(ctx, leaving); err != nil {
		t.Fatal(err)
	}
	var left int
	db.Pool.QueryRow(ctx, `SELECT count(*) FROM users WHERE id = $1`, leaving).Scan(&left)
	if left != 0 {
		t.Fatal("the account row is left")
	}
}
