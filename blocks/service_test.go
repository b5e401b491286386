package blocks_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/blocks"
)

// Blocking yourself and ids of nobody are refused before the store is
// asked (it is nil here), each naming user_id.
func TestBlockRefusesSelfAndMalformedIDs(t *testing.T) {
	s := blocks.New(blocks.Deps{Clock: guidepost.SystemClock{}}, blocks.Config{})
	me := uuid.NewString()
	for _, tc := range []struct{ id, code, field string }{
		{me, guidepost.EUNPROCESSABLE, guidepost.FSELF},
		{"nobody", guidepost.ENOTFOUND, guidepost.FNOTFOUND},
		{"", guidepost.ENOTFOUND, guidepost.FNOTFOUND},
		{"{" + me + "}", guidepost.ENOTFOUND, guidepost.FNOTFOUND},
	} {
		_, err := s.Block(context.Background(), me, tc.id)
		fields := guidepost.ErrorFields(err)
		if guidepost.ErrorCode(err) != tc.code || len(fields) != 1 || fields[0].Field != "user_id" || fields[0].Code != tc.field {
			t.Errorf("block %q: %v %+v", tc.id, err, fields)
		}
		if err := s.Unblock(context.Background(), me, tc.id); guidepost.ErrorCode(err) != tc.code {
			t.Errorf("unblock %q: %v", tc.id, err)
		}
	}
	if s.Max() != blocks.DefaultConfig().Max {
		t.Errorf("max %d", s.Max())
	}
}

func TestSet(t *testing.T) {
	s := blocks.NewSet([]string{"b", "a", "b"}, true)
	if s.Len() != 2 || !s.Has("a") || s.Has("c") || !s.BlockedBySomeone() || s.IDs()[0] != "a" {
		t.Fatalf("%+v", s)
	}
	if e := (blocks.Set{}); e.Len() != 0 || e.Has("a") || e.BlockedBySomeone() {
		t.Fatalf("%+v", e)
	}
}
