package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// No answer writes a time.Time as encoding/json would (RFC3339Nano: a
// varying number of digits, the zone it was read in): every JSON field of
// a time is a timestamp.
func TestNoAnswerFieldIsATimeTime(t *testing.T) {
	names, _ := filepath.Glob("*.go")
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil || !strings.Contains(field.Tag.Value, `json:"`) {
				return true
			}
			typ := field.Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if sel, ok := typ.(*ast.SelectorExpr); ok && sel.Sel.Name == "Time" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" {
					t.Errorf("%s: JSON field %s is a time.Time; use timestamp", name, field.Tag.Value)
				}
			}
			return true
		})
	}
}

func TestTimestampFormat(t *testing.T) {
	kst := time.FixedZone("KST", 9*3600)
	for in, want := range map[time.Time]string{
		time.Date(2026, 1, 3, 18, 58, 0, 0, time.UTC):          `"2026-01-03T18:58:00.000Z"`,
		time.Date(2026, 12, 1, 4, 55, 37, 580451000, time.UTC): `"2026-12-01T04:55:37.580Z"`,
		time.Date(2026, 12, 1, 13, 55, 6, 773067036, kst):      `"2026-12-01T04:55:06.773Z"`,
		time.Date(2026, 12, 1, 13, 55, 6, 773067000, kst):      `"2026-12-01T04:55:06.773Z"`,
		time.Date(2026, 12, 1, 4, 55, 6, 999999999, time.UTC):  `"2026-12-01T04:55:06.999Z"`,
	} {
		got, _ := timestamp(in).MarshalJSON()
		if string(got) != want {
			t.Errorf("%v: %s, want %s", in, got, want)
		}
	}
}
