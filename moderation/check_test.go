package moderation

import (
	"slices"
	"testing"
	"time"

	"github.com/guidepost/guidepost"
)

func fieldsOf(err error) []string {
	var out []string
	for _, f := range guidepost.ErrorFields(err) {
		out = append(out, f.Field+":"+f.Code)
	}
	slices.Sort(out)
	return out
}

// Every bad field of a report or an action is named at once.
func TestChecksNameEveryBadField(t *testing.T) {
	id := "01a233ee-9e6e-71a4-b005-098cc36a4e10"
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{func() error { _, err := checkReport(ReportInput{}); return err }(),
			[]string{"reason:required", "target_id:required", "target_type:required"}},
		{func() error {
			_, err := checkReport(ReportInput{TargetType: "post", TargetID: "x", Reason: "meh", Note: "\x00"})
			return err
		}(), []string{"note:invalid_characters", "reason:invalid_format", "target_id:invalid_format", "target_type:invalid_format"}},
		{func() error {
			_, err := checkReport(ReportInput{TargetType: "guide", TargetID: id, Reason: "spam"})
			return err
		}(), nil},
		{func() error {
			_, _, err := checkAction(ActionInput{Action: "suspend", TargetType: "guide", TargetID: id, Reason: "x"})
			return err
		}(), []string{"target_type:conflicting"}},
		{func() error {
			_, _, err := checkAction(ActionInput{Action: "ban", TargetType: "user", TargetID: id})
			return err
		}(),
			[]string{"action:invalid_format", "reason:required"}},
	} {
		if got := fieldsOf(tc.err); !slices.Equal(got, tc.want) {
			t.Errorf("%v: fields %v, want %v", tc.err, got, tc.want)
		}
	}
}

// A queue cursor reads back as the position it was made from; anything
// else is refused.
func TestQueueCursorRoundTrips(t *testing.T) {
	c := QueueCursor{Oldest: time.UnixMicro(1764633600123456).UTC(), Target: Target{Type: TargetPhoto, ID: "01a233ee-9e6e-71a4-b005-098cc36a4e10"}}
	got, ok := parseQueueCursor(queueCursor(c))
	if !ok || *got != c {
		t.Fatalf("round trip: %+v, %v", got, ok)
	}
	for _, bad := range []string{"x", "AAAA", queueCursor(c)[:10]} {
		if _, ok := parseQueueCursor(bad); ok {
			t.Errorf("cursor %q accepted", bad)
		}
	}
}
