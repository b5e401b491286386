package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
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
	// Problem.type is an enum, so generated clients can switch over it:
	// exactly the types the server answers with.
	var types []string
	for code := range statusOf {
		types = append(types, "/problems/"+code)
	}
	slices.Sort(types)
	if listed := slices.Sorted(slices.Values(doc.Components.Schemas["ProblemType"].Enum)); !slices.Equal(listed, types) {
		t.Errorf("ProblemType in openapi.yaml lists %v, the server answers %v", listed, types)
	}
	documented := doc.Components.Schemas["FieldErrorCode"].Enum
	slices.Sort(documented)
	slices.Sort(fields)
	if explained := slices.Sorted(maps.Keys(fieldCodeDocs)); !slices.Equal(explained, fields) || !slices.Equal(documented, fields) {
		t.Errorf("field codes: errors.go %v\npages %v\nopenapi.yaml %v", fields, explained, documented)
	}
}

// Every field error the code base builds carries a code: a FieldError
// literal with named fields must name Code (Field and Fields.Add take it
// as an argument).
func TestEveryFieldErrorHasACode(t *testing.T) {
	n := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		check := func(lit *ast.CompositeLit) {
			if len(lit.Elts) == 0 {
				return
			}
			n++
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); !ok || kv.Key.(*ast.Ident).Name == "Code" {
					return
				}
			}
			t.Errorf("%s: a FieldError without a Code", path)
		}
		ast.Inspect(f, func(node ast.Node) bool {
			lit, ok := node.(*ast.CompositeLit)
			switch {
			case !ok:
			case isFieldErrorType(lit.Type):
				check(lit)
			case isFieldErrorList(lit.Type):
				for _, e := range lit.Elts {
					if inner, ok := e.(*ast.CompositeLit); ok && inner.Type == nil {
						check(inner)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil || n < 5 {
		t.Fatalf("read %d FieldError literals: %v", n, err)
	}
}

func isFieldErrorList(e ast.Expr) bool {
	a, ok := e.(*ast.ArrayType)
	return ok && isFieldErrorType(a.Elt)
}

func isFieldErrorType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "FieldError"
	case *ast.SelectorExpr:
		return e.Sel.Name == "FieldError"
	}
	return false
}
