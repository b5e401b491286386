package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// errorCodes reads the code constants of the root package's errors.go:
// E… are problem types, F… field error codes.
func errorCodes(t *testing.T) (problems, fields []string) {
	f, err := parser.ParseFile(token.NewFileSet(), "../errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, name := range v.Names {
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !ok {
					continue
				}
				s, _ := strconv.Unquote(lit.Value)
				switch {
				case strings.HasPrefix(name.Name, "E"):
					problems = append(problems, s)
				case strings.HasPrefix(name.Name, "F"):
					fields = append(fields, s)
				}
			}
		}
	}
	return problems, fields
}

// Every code has a status, a page, and a place in the API document; every
// field code is explained and listed there, and nothing more.
func TestEveryCodeIsDocumented(t *testing.T) {
	problems, fields := errorCodes(t)
	if len(problems) < 10 || len(fields) < 20 {
		t.Fatalf("read %d problem and %d field codes from errors.go", len(problems), len(fields))
	}
	for _, code := range problems {
		if statusOf[code] == 0 {
			t.Errorf("code %q has no HTTP status", code)
		}
	}
	for code := range statusOf {
		if _, ok := problemDocs[code]; !ok {
			t.Errorf("problem type %q has no page", code)
		}
		if !regexp.MustCompile(`/problems/` + code + `\b`).Match(OpenAPI) {
			t.Errorf("api/openapi.yaml does not name /problems/%s", code)
		}
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Enum []string `yaml:"enum"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	documented := doc.Components.Schemas["FieldErrorCode"].Enum
	slices.Sort(documented)
	slices.Sort(fields)
	if explained := slices.Sorted(maps.Keys(fieldCodeDocs)); !slices.Equal(explained, fields) || !slices.Equal(documented, fields) {
		t.Errorf("field codes: errors.go %v\npages %v\nopenapi.yaml %v", fields, explained, documented)
	}
}
