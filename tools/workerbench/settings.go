package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/guidepost/guidepost/media/photo"
)

// parseSettings reads -formats: MEDIA_FORMATS settings separated by ';' or
// spaces, each a comma list with jpeg in it ("jpeg;jpeg,webp").
func parseSettings(s string) ([][]photo.Encoding, error) {
	var out [][]photo.Encoding
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ' ' }) {
		set, err := photo.ParseEncodings(f)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(out, func(o []photo.Encoding) bool { return settingName(o) == settingName(set) }) {
			out = append(out, set)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no format setting in %q", s)
	}
	return out, nil
}

// settingName spells a setting as MEDIA_FORMATS does.
func settingName(set []photo.Encoding) string {
	names := make([]string, len(set))
	for i, e := range set {
		names[i] = string(e)
	}
	return strings.Join(names, ",")
}

// allFormats is every format any setting names, JPEG first.
func allFormats(settings [][]photo.Encoding) []photo.Encoding {
	var out []photo.Encoding
	for _, e := range []photo.Encoding{photo.EncodingJPEG, photo.EncodingWebP, photo.EncodingAVIF} {
		for _, set := range settings {
			if slices.Contains(set, e) && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// without is set less e, spelled as a setting, and whether set had e.
func without(set []photo.Encoding, e photo.Encoding) (string, bool) {
	if !slices.Contains(set, e) {
		return "", false
	}
	rest := slices.DeleteFunc(slices.Clone(set), func(x photo.Encoding) bool { return x == e })
	return settingName(rest), true
}
