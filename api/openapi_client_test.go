package api

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oapi-codegen/oapi-codegen/v2/pkg/codegen"
	"github.com/oapi-codegen/oapi-codegen/v2/pkg/util"

	// What generated clients import: listed here so go.mod and go.sum keep
	// it and the module cache has it for the offline build below.
	_ "github.com/oapi-codegen/runtime"
	_ "github.com/oapi-codegen/runtime/types"
)

const runtimeModule = "github.com/oapi-codegen/runtime"

// People generate clients from the document; one that no longer compiles
// (a clash of generated names, a schema the generator cannot type) fails
// here. The client is generated with oapi-codegen into a scratch module and
// vetted offline against the module cache.
func TestGeneratedGoClientCompiles(t *testing.T) {
	doc, err := util.LoadSwagger("openapi.yaml")
	if err != nil {
		t.Fatalf("oapi-codegen cannot load openapi.yaml: %v", err)
	}
	code, err := codegen.Generate(doc, codegen.Configuration{
		PackageName: "guidepostclient",
		Generate:    codegen.GenerateOptions{Client: true, Models: true},
	})
	if err != nil {
		t.Fatalf("oapi-codegen: %v", err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building the generated client needs the go command: %v", err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join("..", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	gomod := "module guidepostclient\n\ngo 1.26.0\n\nrequire " + runtimeModule + " " + moduleVersion(t, goBin, runtimeModule) + "\n"
	for name, data := range map[string][]byte{"client.gen.go": []byte(code), "go.mod": []byte(gomod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "vet", "./...")
	cmd.Dir = dir
	// -mod=mod completes the scratch go.mod with the runtime's own
	// requirements. Their go.mod files (never needed by this module's
	// pruned graph, so absent from a fresh module cache) come from the
	// proxy like any dependency; go.sum pins them.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the generated client does not build: %v\n%s", err, out)
	}
}

// moduleVersion is the version of path that this module's go.mod selects.
func moduleVersion(t *testing.T, goBin, path string) string {
	t.Helper()
	out, err := exec.Command(goBin, "list", "-m", "-f", "{{.Version}}", path).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", path, err)
	}
	return strings.TrimSpace(string(out))
}
