// Package web holds the demo map page (/map) and the third-party files it
// loads, embedded in the binary so the page works with no network beyond
// the API itself. It knows nothing of HTTP routing: api mounts it.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
	"sync"
)

//go:embed map
var files embed.FS

// Asset is one file of the map page, ready to serve.
type Asset struct {
	Name string
	Body []byte
	Type string
	// ETag is strong: a hash of the bytes, so a browser revalidating an
	// unchanged file gets 304 and a new build's file is never mistaken for
	// the old one.
	ETag string
}

// The page's scripts are ES modules, which browsers refuse unless served as
// JavaScript; the system's MIME table may not know .mjs.
var types = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".json": "application/json",
	".txt":  "text/plain; charset=utf-8",
	"":      "text/plain; charset=utf-8",
}

var (
	assetsOnce sync.Once
	assets     map[string]Asset
)

// MapAsset returns a file of the page by its path under map/ ("index.html",
// "vendor/maplibre-gl.mjs"); false for anything else.
func MapAsset(name string) (Asset, bool) {
	assetsOnce.Do(load)
	a, ok := assets[name]
	return a, ok
}

func load() {
	assets = map[string]Asset{}
	root, err := fs.Sub(files, "map")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		typ, ok := types[strings.ToLower(path.Ext(name))]
		if !ok {
			return nil // nothing the page loads; not served
		}
		sum := sha256.Sum256(body)
		assets[name] = Asset{Name: name, Body: body, Type: typ, ETag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		return nil
	})
	if err != nil {
		panic(err)
	}
}
