package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/guidepost/guidepost/media/photo"
)

// renderPhoto is `guidepost render [-formats F] PHOTO DIR`: the worker's
// render of one photo file, every derivative written to DIR as
// <kind>.<ext>, in process. It needs no configuration and no service, so a
// build (the Dockerfile's) can prove that the binary it made links its
// codecs and renders, and an operator can look at what the worker makes.
// -formats defaults to MEDIA_FORMATS, else the worker's default.
func renderPhoto(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stdout)
	def := getenv("MEDIA_FORMATS")
	if def == "" {
		names := make([]string, len(photo.DefaultEncodings))
		for i, e := range photo.DefaultEncodings {
			names[i] = string(e)
		}
		def = strings.Join(names, ",")
	}
	list := fs.String("formats", def, "formats to render, jpeg first (MEDIA_FORMATS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("usage: guidepost render [-formats jpeg,webp,avif] PHOTO DIR")
	}
	formats, err := photo.ParseEncodings(*list)
	if err != nil {
		return fmt.Errorf("-formats: %w", err)
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	f, err := photo.Sniff(data)
	if err != nil {
		return err
	}
	res, err := photo.Render(ctx, bytes.NewReader(data), f, photo.Options{Encodings: formats[1:]})
	if err != nil {
		return err
	}
	dir := fs.Arg(1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d×%d, JPEG %s, WebP %s\n", fs.Arg(0), res.Width, res.Height, photo.JPEGCodec, photo.WebPCodec)
	for _, d := range []struct {
		kind string
		d    photo.Derivative
	}{{"web", res.Web}, {"thumb", res.Thumb}, {"small", res.Small}, {"marker", res.Marker}} {
		for _, e := range formats {
			path := filepath.Join(dir, d.kind+"."+e.Ext())
			if err := os.WriteFile(path, d.d.File(e), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%-22s %5d×%-5d %8d bytes\n", path, d.d.Width, d.d.Height, len(d.d.File(e)))
		}
	}
	return nil
}
