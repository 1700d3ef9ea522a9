package testkit

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const testkitPath = "github.com/ankusa/ankusa-store/internal/testkit"

// No file of the program imports a test helper: only _test.go files, and the helpers
// themselves, import internal/testkit/....
func TestOnlyTestsImportTestkit(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == filepath.Join("internal", "testkit") || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		bad, err := testkitImports(rel, src)
		for _, b := range bad {
			t.Errorf("%s imports %s: test helpers are for tests only", rel, b)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files of the program under %s; the walk missed the module", files, root)
	}
}

// The check finds a planted import, aliased or not, and passes one that only looks alike.
func TestTestkitImportFoundWhenPlanted(t *testing.T) {
	src := `package p

import (
	"fmt"
	st "github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/testkitten"
)
`
	bad, err := testkitImports("planted.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || bad[0] != testkitPath+"/storetest" {
		t.Fatalf("found %q in the planted file; want only %s/storetest", bad, testkitPath)
	}
}

// testkitImports lists the import paths of src under internal/testkit.
func testkitImports(name string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == testkitPath || strings.HasPrefix(p, testkitPath+"/") {
			bad = append(bad, p)
		}
	}
	return bad, nil
}
