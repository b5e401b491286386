package main

import (
	"reflect"
	"testing"

	"github.com/guidepost/guidepost/media/photo"
)

func TestParseSettings(t *testing.T) {
	got, err := parseSettings("jpeg; jpeg,webp;jpeg,webp,avif;JPEG")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, settingName(s))
	}
	if want := []string{"jpeg", "jpeg,webp", "jpeg,webp,avif"}; !reflect.DeepEqual(names, want) {
		t.Errorf("settings %v; want %v", names, want)
	}
	if f := allFormats(got); !reflect.DeepEqual(f, []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF}) {
		t.Errorf("all formats %v", f)
	}
	for _, bad := range []string{"", " ; ", "webp", "jpeg,gif"} {
		if _, err := parseSettings(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestWithout(t *testing.T) {
	set := []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF}
	if rest, ok := without(set, photo.EncodingAVIF); !ok || rest != "jpeg,webp" {
		t.Errorf("without avif: %q %v", rest, ok)
	}
	if _, ok := without(set[:1], photo.EncodingWebP); ok {
		t.Error("jpeg has no webp to take away")
	}
	if len(set) != 3 {
		t.Error("without changed its argument")
	}
}
