package guidepost_test

import (
	"testing"

	"github.com/guidepost/guidepost"
)

func TestTextProblem(t *testing.T) {
	for _, s := range []string{"a\x00b", "a\x1bb", "a\u202eb", "a\u2066b", "a\u200fb", "a\u061cb", "a\x7fb", "a\u0085b", "a\xffb", "a\nb"} {
		if guidepost.TextProblem(s, false) == "" {
			t.Errorf("%q accepted", s)
		}
	}
	for _, s := range []string{"", "Ana", "서울 맛집", "مرحبا", "👩\u200d👩\u200d👧", "café"} {
		if msg := guidepost.TextProblem(s, false); msg != "" {
			t.Errorf("%q refused: %s", s, msg)
		}
	}
	if guidepost.TextProblem("one\ntwo\tthree\r\n", true) != "" || guidepost.TextProblem("a\x00", true) == "" {
		t.Error("lines")
	}
}
