package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/guidepost/guidepost/media/photo"
	"github.com/guidepost/guidepost/media/photo/demophoto"
)

// mapScreen is how many markers a map screen shows at once.
const mapScreen = 40

// photoSet is a set of photos to weigh: a directory's, or the demo seed's.
type photoSet struct {
	name  string
	paths []string // files on disk, for libvips
}

// setBytes is what a set's derivatives weigh, summed over its photos, by
// format and derivative (web, thumb, small, marker), on both sides; and a
// map screen of mapScreen markers, the set's photos in turn.
type setBytes struct {
	name                 string
	photos               int
	goBytes, vipsBytes   map[photo.Encoding][4]int
	goScreen, vipsScreen map[photo.Encoding]int
}

// dirSet is every file in dir that guidepost renders (others are
// skipped: the test photos include refused and non-photo files).
func dirSet(dir string) photoSet {
	entries, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	set := photoSet{name: dir}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil || e.IsDir() {
			continue
		}
		if _, err := photo.Render(context.Background(), bytes.NewReader(data), sniff(data), photo.Options{}); err != nil {
			continue
		}
		set.paths = append(set.paths, p)
	}
	return set
}

// demoSet writes the demo seed's photos (demophoto) into dir.
func demoSet(dir string) photoSet {
	set := photoSet{name: "demo photos (seed --demo)"}
	for n := range demophoto.Count {
		p := filepath.Join(dir, fmt.Sprintf("demo-%02d.jpg", n))
		if err := os.WriteFile(p, demophoto.JPEG(n), 0o644); err != nil {
			log.Fatal(err)
		}
		set.paths = append(set.paths, p)
	}
	return set
}

func sniff(data []byte) photo.Format {
	f, err := photo.Sniff(data)
	if err != nil {
		return photo.Unknown
	}
	return f
}

// weigh renders every photo of the set in formats with guidepost and with
// libvips (the same chain and qualities as the CPU comparison) and adds
// up the bytes.
func weigh(set photoSet, formats []photo.Encoding) setBytes {
	out := setBytes{name: set.name, photos: len(set.paths), goBytes: map[photo.Encoding][4]int{},
		vipsBytes: map[photo.Encoding][4]int{}, goScreen: map[photo.Encoding]int{}, vipsScreen: map[photo.Encoding]int{}}
	dir, err := os.MkdirTemp("", "workerbench-bytes")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for i, p := range set.paths {
		data, err := os.ReadFile(p)
		if err != nil {
			log.Fatal(err)
		}
		res, err := photo.Render(context.Background(), bytes.NewReader(data), sniff(data), photo.Options{Encodings: formats[1:]})
		if err != nil {
			log.Fatalf("%s: %v", p, err)
		}
		ds := [4]photo.Derivative{res.Web, res.Thumb, res.Small, res.Marker}
		runAll(vipsResize(p, dir))
		var grainy [4]bool
		for _, f := range formats { // JPEG first, as in vips
			runAll(vipsEncode(dir, f, grainy))
			vb := vipsSizes(dir, f)
			if f == photo.EncodingJPEG {
				grainy = vipsGrainy(dir)
			}
			gb, sum := out.goBytes[f], out.vipsBytes[f]
			for k := range ds {
				gb[k] += len(ds[k].File(f))
				sum[k] += vb[k]
			}
			out.goBytes[f], out.vipsBytes[f] = gb, sum
			// Markers i, i+n, i+2n… of the screen are this photo's.
			for m := i; m < mapScreen; m += len(set.paths) {
				out.goScreen[f] += len(res.Marker.File(f))
				out.vipsScreen[f] += vb[3]
			}
		}
	}
	return out
}

// report writes the set's bytes per format and derivative, against
// libvips and against the JPEG of each side, and the map screen's.
func (b setBytes) report(w io.Writer, formats []photo.Encoding) {
	fmt.Fprintf(w, "\nBytes over %s: %d photos, summed per format and derivative\n", b.name, b.photos)
	fmt.Fprintf(w, "%-8s %-8s %11s %11s %14s %14s %14s\n", "format", "kind", "guidepost", "libvips", "guidepost/vips", "guidepost/jpeg", "libvips/jpeg")
	for _, e := range formats {
		for i, d := range derivatives {
			g, v := b.goBytes[e][i], b.vipsBytes[e][i]
			gj, vj := b.goBytes[photo.EncodingJPEG][i], b.vipsBytes[photo.EncodingJPEG][i]
			fmt.Fprintf(w, "%-8s %-8s %11d %11d %14s %14s %14s\n", e, d.name, g, v,
				ratio(float64(g), float64(v)), ratio(float64(g), float64(gj)), ratio(float64(v), float64(vj)))
		}
	}
	fmt.Fprintf(w, "\nA map screen of %d markers (the photos in turn), bytes\n", mapScreen)
	fmt.Fprintf(w, "%-8s %11s %11s %14s %14s\n", "format", "guidepost", "libvips", "guidepost/jpeg", "libvips/jpeg")
	for _, e := range formats {
		g, v := b.goScreen[e], b.vipsScreen[e]
		fmt.Fprintf(w, "%-8s %11d %11d %14s %14s\n", e, g, v,
			ratio(float64(g), float64(b.goScreen[photo.EncodingJPEG])), ratio(float64(v), float64(b.vipsScreen[photo.EncodingJPEG])))
	}
}

// weighSets weighs each directory of dirs (comma-separated) and, with
// demo, the demo photos, and writes a report for each.
func weighSets(dirs string, demo bool, formats []photo.Encoding) {
	var sets []photoSet
	for _, d := range strings.Split(dirs, ",") {
		if d = strings.TrimSpace(d); d != "" {
			sets = append(sets, dirSet(d))
		}
	}
	if demo {
		dir, err := os.MkdirTemp("", "workerbench-demo")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		sets = append(sets, demoSet(dir))
	}
	for _, s := range sets {
		if len(s.paths) == 0 {
			log.Fatalf("%s: no photo guidepost renders", s.name)
		}
		weigh(s, formats).report(os.Stdout, formats)
	}
}
