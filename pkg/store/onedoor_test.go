package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/gosrc"
)

// openStoreAllowed are the places that may call rocks.OpenStore besides this package: the
// package that defines it and the test helpers (tests open stores as they need). The
// writers that create a store (fixture, bench/migrategen), checkpoint's check that a store
// opens before its checkpoint is removed and the bench tools open through store.Open with
// the rocks.Options they need: no import cycle keeps them out (pkg/store stands on neither).
var openStoreAllowed = []string{"pkg/store/", "pkg/rocks/", "internal/testkit/"}

// rocks.OpenStore is called from this package only, so every command's open extracts an
// archive, shows the WAL replay and says a newer RocksDB alike (issue 47: there were four
// ways to open a store in cmd).
func TestOnlyStoreOpensStores(t *testing.T) {
	var found []string
	for _, f := range gosrc.ProgramFiles(t, openStoreAllowed...) {
		for _, at := range openStoreCalls(t, f.Rel, f.Src) {
			found = append(found, f.Rel+":"+at)
		}
	}
	if len(found) > 0 {
		t.Errorf("rocks.OpenStore called outside pkg/store (open through store.Open): %s", strings.Join(found, ", "))
	}
}

// openStoreCalls is where the Go file p (its source src) calls OpenStore of the package
// pkg/rocks.
func openStoreCalls(t *testing.T, p string, src []byte) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var rocksName string
	for _, im := range f.Imports {
		if ip, _ := strconv.Unquote(im.Path.Value); strings.HasSuffix(ip, "/pkg/rocks") {
			rocksName = path.Base(ip)
			if im.Name != nil {
				rocksName = im.Name.Name
			}
		}
	}
	if rocksName == "" {
		return nil
	}
	var at []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "OpenStore" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == rocksName {
				at = append(at, strconv.Itoa(fset.Position(sel.Pos()).Line))
			}
		}
		return true
	})
	return at
}
