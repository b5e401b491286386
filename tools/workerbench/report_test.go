package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/guidepost/guidepost/media/photo"
)

// The report has CPU seconds per photo for each setting and for each
// format on both sides, and bytes for each format and width.
func TestReportHasEveryFigure(t *testing.T) {
	jpeg, webp, avif := photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF
	f := figures{
		n:          10,
		settings:   [][]photo.Encoding{{jpeg}, {jpeg, webp}, {jpeg, webp, avif}},
		render:     map[string]float64{"jpeg": 1.5, "jpeg,webp": 4, "jpeg,webp,avif": 30},
		derive:     map[string]float64{"jpeg": 2, "jpeg,webp": 5, "jpeg,webp,avif": 32},
		vipsResize: 1, vipsEncode: map[photo.Encoding]float64{jpeg: 0.5, webp: 2, avif: 20},
		goBytes: map[photo.Encoding][4]int{jpeg: {300000, 90000, 30000, 12000}, webp: {200000, 50000, 17000, 7000},
			avif: {90000, 25000, 9000, 4000}},
		vipsBytes: map[photo.Encoding][4]int{jpeg: {310000, 91000, 31000, 12500}, webp: {210000, 52000, 18000, 7200},
			avif: {95000, 26000, 9500, 4100}},
		sizes: [4]string{"2048×1536", "1080×810", "540×405", "256×256"},
	}
	var out strings.Builder
	f.report(&out)
	text := out.String()
	t.Log("\n" + text)
	for _, row := range []string{
		// setting, render, derive, libvips (resize chain + encodes), ratios
		`jpeg +0\.150 +0\.200 +0\.150 +1\.00 +1\.33`,
		`jpeg,webp +0\.400 +0\.500 +0\.350 +1\.14 +1\.43`,
		`jpeg,webp,avif +3\.000 +3\.200 +2\.350 +1\.28 +1\.36`,
		// format: what it adds on each side
		`jpeg +0\.150 +0\.200 +0\.150`,
		`webp +0\.250 +0\.300 +0\.200`,
		`avif +2\.600 +2\.700 +2\.000`,
		// bytes per format and width
		`jpeg +web +2048×1536 +300000 +310000 +0\.97`,
		`webp +small +540×405 +17000 +18000 +0\.94`,
		`avif +marker +256×256 +4000 +4100 +0\.98`,
	} {
		if !regexp.MustCompile(`(?m)^` + row + `\s*$`).MatchString(text) {
			t.Errorf("no row matching %q", row)
		}
	}
}

// A format whose setting without it was not measured has no guidepost
// figure of its own, rather than a wrong one.
func TestFormatCPUNeedsBothSettings(t *testing.T) {
	f := figures{settings: [][]photo.Encoding{{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF}},
		render: map[string]float64{"jpeg,webp,avif": 30}, derive: map[string]float64{"jpeg,webp,avif": 32}}
	for _, e := range []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF} {
		if _, _, ok := f.formatCPU(e); ok {
			t.Errorf("%s: a figure from one setting", e)
		}
	}
}
