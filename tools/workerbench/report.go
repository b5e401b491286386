package main

import (
	"fmt"
	"io"

	"github.com/guidepost/guidepost/media/photo"
)

// figures are one run's measurements, CPU in seconds over n photos.
type figures struct {
	n        int
	settings [][]photo.Encoding
	render   map[string]float64 // by setting: photo.Render in this process
	derive   map[string]float64 // by setting: the worker's whole derive
	// vipsResize is the resize chain (decode included) over n photos,
	// vipsEncode each format's encodes; both with process starts
	// subtracted.
	vipsResize float64
	vipsEncode map[photo.Encoding]float64
	// bytes of each derivative (web, thumb, small, marker) by format.
	goBytes, vipsBytes map[photo.Encoding][4]int
	sizes              [4]string // each derivative's width×height
}

// vipsSetting is libvips's CPU for a setting: one resize chain, then each
// of its formats' encodes.
func (f figures) vipsSetting(set []photo.Encoding) float64 {
	cpu := f.vipsResize
	for _, e := range set {
		cpu += f.vipsEncode[e]
	}
	return cpu
}

// report writes the three tables: CPU seconds per photo for each setting
// on both sides, the CPU each format adds, and bytes per format and width.
func (f figures) report(w io.Writer) {
	per := func(cpu float64) float64 { return cpu / float64(f.n) }
	fmt.Fprintf(w, "\nCPU seconds per photo, each MEDIA_FORMATS setting (libvips: process starts subtracted)\n")
	fmt.Fprintf(w, "%-16s %10s %10s %10s %13s %13s\n", "setting", "render", "derive", "libvips", "render/vips", "derive/vips")
	for _, set := range f.settings {
		name := settingName(set)
		v := per(f.vipsSetting(set))
		fmt.Fprintf(w, "%-16s %10.3f %10.3f %10.3f %13s %13s\n", name, per(f.render[name]), per(f.derive[name]), v,
			ratio(per(f.render[name]), v), ratio(per(f.derive[name]), v))
	}
	fmt.Fprintf(w, "\nCPU seconds per photo, each format (guidepost: a setting less the same setting without the format;\n")
	fmt.Fprintf(w, "jpeg carries the decode and resizes on both sides)\n")
	fmt.Fprintf(w, "%-8s %14s %14s %10s\n", "format", "render", "derive", "libvips")
	for _, e := range allFormats(f.settings) {
		r, d, ok := f.formatCPU(e)
		v := f.vipsEncode[e]
		if e == photo.EncodingJPEG {
			v += f.vipsResize
		}
		gr, gd := "-", "-"
		if ok {
			gr, gd = fmt.Sprintf("%.3f", per(r)), fmt.Sprintf("%.3f", per(d))
		}
		fmt.Fprintf(w, "%-8s %14s %14s %10.3f\n", e, gr, gd, per(v))
	}
	fmt.Fprintf(w, "\nBytes per format and width (one photo)\n")
	fmt.Fprintf(w, "%-8s %-8s %-11s %11s %11s %13s\n", "format", "kind", "size", "guidepost", "libvips", "guidepost/vips")
	for _, e := range allFormats(f.settings) {
		for i, d := range derivatives {
			g, v := f.goBytes[e][i], f.vipsBytes[e][i]
			fmt.Fprintf(w, "%-8s %-8s %-11s %11d %11d %13s\n", e, d.name, f.sizes[i], g, v, ratio(float64(g), float64(v)))
		}
	}
}

// formatCPU is what format e adds to a render and to a derive: for jpeg,
// the jpeg setting itself; for another format, the first setting that has
// it less that setting without it, when both were measured.
func (f figures) formatCPU(e photo.Encoding) (render, derive float64, ok bool) {
	for _, set := range f.settings {
		if e == photo.EncodingJPEG && len(set) == 1 {
			name := settingName(set)
			return f.render[name], f.derive[name], true
		}
		rest, has := without(set, e)
		if _, measured := f.render[rest]; e != photo.EncodingJPEG && has && measured {
			name := settingName(set)
			return f.render[name] - f.render[rest], f.derive[name] - f.derive[rest], true
		}
	}
	return 0, 0, false
}

func ratio(a, b float64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}
