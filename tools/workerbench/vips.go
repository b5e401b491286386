package main

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"log"
	"os"
	"path/filepath"

	"github.com/guidepost/guidepost/media/photo"
)

// The derivatives in the order Render makes them, with what vipsthumbnail
// is asked for and what it resizes from: the web size from the photo, the
// thumbnail from the web image, the small one and the centred marker
// square from the thumbnail, as guidepost does. ">" only ever shrinks, as
// guidepost never upscales.
var derivatives = []struct {
	name, from, size string
	crop             bool
}{
	{"web", "", fmt.Sprintf("%dx%d>", photo.WebMax, photo.WebMax), false},
	{"thumb", "web", fmt.Sprintf("%dx%d>", photo.ThumbMax, photo.ThumbMax), false},
	{"small", "thumb", fmt.Sprintf("%dx%d>", photo.SmallMax, photo.SmallMax), false},
	{"marker", "thumb", fmt.Sprintf("%dx%d>", photo.MarkerSize, photo.MarkerSize), true},
}

// vipsResize is the vipsthumbnail commands that make the four derivatives'
// pixels from the photo, each kept uncompressed in vips's own format (.v)
// in dir, so that the encodes after them start from pixels as guidepost's
// do: one decode, one resize chain, then every format.
func vipsResize(photoPath, dir string) [][]string {
	var cmds [][]string
	for _, d := range derivatives {
		src := photoPath
		if d.from != "" {
			src = filepath.Join(dir, d.from+".v")
		}
		cmd := []string{"vipsthumbnail", src, "-s", d.size}
		if d.crop {
			cmd = append(cmd, "--smartcrop", "centre")
		}
		cmds = append(cmds, append(cmd, "-o", filepath.Join(dir, d.name+".v")))
	}
	return cmds
}

// vipsEncode is the `vips copy` commands that compress the four derivatives
// in format f at guidepost's quality for each (photo.Qualities, the grain
// qualities where grainy says so) and its libwebp effort, without
// metadata; AVIF at effort 2 (libheif's aom, which the WebAssembly libavif
// at speed 9 stands for).
func vipsEncode(dir string, f photo.Encoding, grainy [4]bool) [][]string {
	var cmds [][]string
	for i, d := range derivatives {
		web, thumb, small, marker := photo.Qualities(f, grainy[i])
		opts := fmt.Sprintf("[Q=%d,strip", []int{web, thumb, small, marker}[i])
		switch f {
		case photo.EncodingWebP:
			opts += fmt.Sprintf(",effort=%d", photo.WebPMethod)
		case photo.EncodingAVIF:
			opts += ",effort=2"
		}
		cmds = append(cmds, []string{"vips", "copy", filepath.Join(dir, d.name+".v"), vipsOutput(dir, d.name, f) + opts + "]"})
	}
	return cmds
}

// vipsGrainy says which of the JPEGs vipsEncode made in dir are grainy
// (photo.Grainy), as guidepost decides from its own JPEGs.
func vipsGrainy(dir string) [4]bool {
	var out [4]bool
	for i, d := range derivatives {
		data, err := os.ReadFile(vipsOutput(dir, d.name, photo.EncodingJPEG))
		if err != nil {
			log.Fatal(err)
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			log.Fatalf("%s: %v", d.name, err)
		}
		out[i] = photo.Grainy(len(data), cfg.Width, cfg.Height)
	}
	return out
}

// vipsOutput is where vipsEncode writes a derivative.
func vipsOutput(dir, name string, f photo.Encoding) string {
	return filepath.Join(dir, name+"."+f.Ext())
}

// vipsStartCommands are one start of each program on a 1×1 image, to
// subtract: vipsthumbnail to .v (as vipsResize) and vips copy to JPEG (as
// vipsEncode). one is a 1×1 .v file.
func vipsStartCommands(one, dir string) (resize, encode []string) {
	return []string{"vipsthumbnail", one, "-s", "1x1", "-o", filepath.Join(dir, "start.v")},
		[]string{"vips", "copy", one, filepath.Join(dir, "start.jpg") + "[Q=70,strip]"}
}
