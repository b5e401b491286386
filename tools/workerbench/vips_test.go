package main

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "golang.org/x/image/webp"

	"github.com/guidepost/guidepost/media/photo"
)

// The libvips side resizes as guidepost does (web from the photo, the
// thumbnail from the web image, small and the marker crop from the
// thumbnail) and encodes each derivative at guidepost's quality for it.
func TestVipsCommandsMakeGuidepostsOutputs(t *testing.T) {
	resize := vipsResize("in.jpg", "d")
	want := [][]string{
		{"vipsthumbnail", "in.jpg", "-s", "2048x2048>", "-o", "d/web.v"},
		{"vipsthumbnail", "d/web.v", "-s", "1080x1080>", "-o", "d/thumb.v"},
		{"vipsthumbnail", "d/thumb.v", "-s", "540x540>", "-o", "d/small.v"},
		{"vipsthumbnail", "d/thumb.v", "-s", "256x256>", "--smartcrop", "centre", "-o", "d/marker.v"},
	}
	if fmt.Sprint(resize) != fmt.Sprint(want) {
		t.Errorf("resize chain\n%v\nwant\n%v", resize, want)
	}
	for _, f := range []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF} {
		cmds := vipsEncode("d", f, [4]bool{})
		web, thumb, small, marker := photo.Qualities(f, false)
		for i, q := range []int{web, thumb, small, marker} {
			name := derivatives[i].name
			c := cmds[i]
			if c[0] != "vips" || c[1] != "copy" || c[2] != "d/"+name+".v" {
				t.Errorf("%s %s: %v", f, name, c)
			}
			out := c[3]
			if !strings.HasPrefix(out, "d/"+name+"."+f.Ext()+"[") || !strings.Contains(out, fmt.Sprintf("Q=%d,", q)) || !strings.Contains(out, "strip") {
				t.Errorf("%s %s: output %q, want quality %d, no metadata", f, name, out, q)
			}
			if f == photo.EncodingWebP && !strings.Contains(out, fmt.Sprintf("effort=%d", photo.WebPMethod)) {
				t.Errorf("%s %s: %q lacks guidepost's libwebp effort", f, name, out)
			}
		}
	}
}

// With libvips installed (Debian: libvips-tools), the commands run and make
// every derivative at guidepost's sizes.
func TestVipsMakesEveryDerivative(t *testing.T) {
	if _, err := exec.LookPath("vipsthumbnail"); err != nil {
		t.Skip("vipsthumbnail not installed (apt-get install libvips-tools)")
	}
	src := "../../testdata/photos/photo.jpg" // 640×480
	formats := []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP}
	if os.Getenv("WORKERBENCH_AVIF") != "" { // libvips's AVIF needs libheif's aom encoder
		formats = append(formats, photo.EncodingAVIF)
	}
	_, encode, size := vips(src, 1, formats)
	dir := t.TempDir()
	runAll(vipsResize(src, dir))
	for _, f := range formats {
		runAll(vipsEncode(dir, f, [4]bool{}))
		for i, d := range derivatives {
			if size[f][i] <= 0 {
				t.Errorf("%s %s: %d bytes", f, d.name, size[f][i])
			}
			if f == photo.EncodingAVIF {
				continue
			}
			data, err := os.ReadFile(vipsOutput(dir, d.name, f))
			if err != nil {
				t.Fatal(err)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil || !slices.Contains([]string{"jpeg", "webp"}, format) {
				t.Fatalf("%s %s: %v %s", f, d.name, err, format)
			}
			want := [][2]int{{640, 480}, {640, 480}, {540, 405}, {256, 256}}[i]
			if cfg.Width != want[0] || cfg.Height != want[1] {
				t.Errorf("%s %s: %d×%d, want %d×%d", f, d.name, cfg.Width, cfg.Height, want[0], want[1])
			}
		}
		if _, ok := encode[f]; !ok {
			t.Errorf("no CPU figure for %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "web.v")); err != nil {
		t.Error(err)
	}
}
