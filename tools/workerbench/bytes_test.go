package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/guidepost/guidepost/media/photo"
)

// The bytes report sums a set per format and derivative on both sides,
// against the JPEG of each side, and weighs a 40-marker map screen.
func TestBytesReportHasEveryFigure(t *testing.T) {
	jpeg, webp := photo.EncodingJPEG, photo.EncodingWebP
	b := setBytes{name: "demo", photos: 12,
		goBytes:    map[photo.Encoding][4]int{jpeg: {500000, 200000, 80000, 40000}, webp: {200000, 90000, 40000, 20000}},
		vipsBytes:  map[photo.Encoding][4]int{jpeg: {480000, 210000, 80000, 40000}, webp: {220000, 90000, 44000, 24000}},
		goScreen:   map[photo.Encoding]int{jpeg: 120000, webp: 60000},
		vipsScreen: map[photo.Encoding]int{jpeg: 125000, webp: 75000}}
	var out strings.Builder
	b.report(&out, []photo.Encoding{jpeg, webp})
	text := out.String()
	for _, row := range []string{
		`Bytes over demo: 12 photos`,
		`jpeg +web +500000 +480000 +1\.04 +1\.00 +1\.00`,
		`webp +small +40000 +44000 +0\.91 +0\.50 +0\.55`,
		`webp +marker +20000 +24000 +0\.83 +0\.50 +0\.60`,
		`webp +60000 +75000 +0\.50 +0\.60`,
	} {
		if !regexp.MustCompile(`(?m)^` + row).MatchString(text) {
			t.Errorf("no row matching %q in\n%s", row, text)
		}
	}
}

// A grainy derivative is encoded at guidepost's grain quality for it.
func TestVipsEncodeUsesGrainQualities(t *testing.T) {
	cmds := vipsEncode("d", photo.EncodingWebP, [4]bool{false, true, false, true})
	_, thumbG, _, markerG := photo.Qualities(photo.EncodingWebP, true)
	web, _, small, _ := photo.Qualities(photo.EncodingWebP, false)
	for i, q := range []int{web, thumbG, small, markerG} {
		if want := fmt.Sprintf("Q=%d,", q); !strings.Contains(cmds[i][3], want) {
			t.Errorf("%s: %q, want %s", derivatives[i].name, cmds[i][3], want)
		}
	}
	if thumbG == web && markerG == web {
		t.Error("grain qualities are the smooth ones")
	}
}
