package format

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/gosrc"
)

// Key bytes of the contract are built in this package only (as pebble's lint tests forbid
// imports): every other package takes typed keys, family descriptors and the spans of
// spans.go. The test reads the module's Go files (tests and testdata aside: a test builds a
// damaged key on purpose) and refuses, outside pkg/format:
//
//   - a byte-slice literal holding a folded family's prefix (format.PrefixDue, ...) or a byte
//     of a family's bounds (fam.Lo[0], f.Prefix[0] + 1): a key or a bound made by hand;
//   - append of such a prefix onto anything: the same, grown;
//   - binary.BigEndian.AppendUint32(x, y+1): the end of one tenant's span (TenantSpan);
//   - append(bytes.Clone(k), 0) and append(append(...), 0): a successor (Successor).
//
// The prefixes of the families the contract carries through untouched (c, k, u, e) are not
// refused: the contract pins none of their bytes, and the fixture writes them as it reads the
// design record.
func TestNoKeyBytesOutsideFormat(t *testing.T) {
	forbidden := foldedPrefixNames(t)
	var found []string
	for _, f := range gosrc.ProgramFiles(t, "pkg/format") {
		v, err := keyBytesViolations(filepath.FromSlash(f.Rel), f.Src, forbidden)
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, v...)
	}
	for _, v := range found {
		t.Errorf("key bytes built outside pkg/format: %s", v)
	}
}

// The checker finds each kind it refuses in a planted file, and nothing in the forms that
// read keys or build them through this package: a lint that cannot fail is a defect.
func TestKeyBytesLintFindsPlanted(t *testing.T) {
	forbidden := foldedPrefixNames(t)
	planted := `package p

import (
	"bytes"
	"encoding/binary"

	f "github.com/ankusa/ankusa-store/pkg/format"
)

func bad(ord uint32, k []byte, fam f.Family) {
	_ = binary.BigEndian.AppendUint32([]byte{f.PrefixDue}, ord)
	_ = []byte{f.PrefixTenantByOrd, 0xFF}
	_ = append([]byte(nil), f.PrefixDeadByTenant)
	_ = []byte{fam.Lo[0]}
	_ = []byte{fam.Prefix[0] + 1}
	_ = binary.BigEndian.AppendUint32(nil, ord+1)
	_ = append(bytes.Clone(k), 0)
	_ = append(append(make([]byte, 0, 9), k...), 0)
}

func fine(ord uint32, k []byte, names [][]byte, fam f.Family) {
	lo, hi := f.FamDue.TenantSpan(ord)
	_, _ = lo, hi
	_ = f.Successor(k)
	_ = k[0] == f.PrefixTenantByOrd
	_ = []byte{f.PrefixCleared}
	_ = append(names[0], 0)
	_ = binary.BigEndian.AppendUint32(nil, ord)
	_ = []byte{1, 2}
	_ = fam.PrefixEnd()
}
`
	got, err := keyBytesViolations("planted.go", []byte(planted), forbidden)
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []int{11, 12, 13, 14, 15, 16, 17, 18}
	var lines []int
	for _, v := range got {
		var line int
		fmt.Sscanf(strings.TrimPrefix(v, "planted.go:"), "%d", &line)
		lines = append(lines, line)
	}
	if !slices.Equal(lines, wantLines) {
		t.Errorf("found at lines %v, want %v:\n%s", lines, wantLines, strings.Join(got, "\n"))
	}
}

// foldedPrefixNames are the names of the prefix constants (constants.go) that lead a folded
// family's keys.
func foldedPrefixNames(t *testing.T) map[string]bool {
	t.Helper()
	folded := map[byte]bool{}
	for _, f := range AllFamilies() {
		if len(f.Prefix) == 1 {
			folded[f.Prefix[0]] = true
		}
	}
	file, err := parser.ParseFile(token.NewFileSet(), "constants.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	seen := map[byte]bool{}
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Prefix") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.CHAR {
					continue
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || len(s) != 1 {
					t.Fatalf("constant %s = %s: not one byte", n.Name, lit.Value)
				}
				if folded[s[0]] {
					names[n.Name], seen[s[0]] = true, true
				}
			}
		}
	}
	if len(seen) != len(folded) {
		t.Fatalf("constants.go names %d of the %d folded families' prefixes", len(seen), len(folded))
	}
	return names
}

// keyBytesViolations lists, as "path:line: what", each place in src that builds key bytes by
// hand (see TestNoKeyBytesOutsideFormat).
func keyBytesViolations(path string, src []byte, forbidden map[string]bool) ([]string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		return nil, err
	}
	formatName, binaryName := "", ""
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch p {
		case "github.com/ankusa/ankusa-store/pkg/format":
			formatName = name
		case "encoding/binary":
			binaryName = name
		}
	}
	// isPrefix: format.PrefixX of a folded family.
	isPrefix := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && formatName != "" && x.Name == formatName && forbidden[sel.Sel.Name]
	}
	// mentionsKeyByte: a folded prefix, or an index into a .Lo, .Hi or .Prefix.
	mentionsKeyByte := func(e ast.Expr) bool {
		hit := false
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if isPrefix(n) {
					hit = true
				}
			case *ast.IndexExpr:
				if sel, ok := n.X.(*ast.SelectorExpr); ok && slices.Contains([]string{"Lo", "Hi", "Prefix"}, sel.Sel.Name) {
					hit = true
				}
			}
			return !hit
		})
		return hit
	}
	isCall := func(e ast.Expr, pkg, fn string) bool {
		c, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		switch f := c.Fun.(type) {
		case *ast.Ident:
			return pkg == "" && f.Name == fn
		case *ast.SelectorExpr:
			x, ok := f.X.(*ast.Ident)
			return ok && x.Name == pkg && f.Sel.Name == fn
		}
		return false
	}
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, fmt.Sprintf("%s:%d: %s", path, fset.Position(n.Pos()).Line, what))
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			at, ok := n.Type.(*ast.ArrayType)
			if !ok || at.Len != nil {
				return true
			}
			if elt, ok := at.Elt.(*ast.Ident); !ok || elt.Name != "byte" {
				return true
			}
			if slices.ContainsFunc(n.Elts, mentionsKeyByte) {
				report(n, "a byte-slice literal of a family's prefix or bounds (use a typed key, a Family's bounds or a span)")
				return false
			}
		case *ast.CallExpr:
			if isCall(n, "", "append") && len(n.Args) >= 2 {
				if slices.ContainsFunc(n.Args[1:], isPrefix) {
					report(n, "a family's prefix appended by hand (use a typed key's Append or Encode)")
					return false
				}
				if lit, ok := n.Args[1].(*ast.BasicLit); ok && len(n.Args) == 2 && n.Ellipsis == token.NoPos &&
					lit.Value == "0" && (isCall(n.Args[0], "bytes", "Clone") || isCall(n.Args[0], "", "append")) {
					report(n, "a successor by hand (use format.Successor)")
					return false
				}
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && binaryName != "" && sel.Sel.Name == "AppendUint32" && len(n.Args) == 2 {
				if be, ok := sel.X.(*ast.SelectorExpr); ok && be.Sel.Name == "BigEndian" {
					if x, ok := be.X.(*ast.Ident); ok && x.Name == binaryName {
						if b, ok := n.Args[1].(*ast.BinaryExpr); ok && b.Op == token.ADD {
							if lit, ok := b.Y.(*ast.BasicLit); ok && lit.Value == "1" {
								report(n, "the end of a tenant's span by hand (use Family.TenantSpan)")
								return false
							}
						}
					}
				}
			}
		}
		return true
	})
	return out, nil
}
