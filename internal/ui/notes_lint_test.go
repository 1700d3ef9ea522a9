package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/gosrc"
)

// labelLiteral is a note's or a warning's label as a string literal would start one.
var labelLiteral = regexp.MustCompile(`\b(note|warning):`)

// notesFile is the one file of the program that writes the labels.
const notesFile = "internal/ui/notes.go"

// Every note and warning comes from the one printer (or NoteLine, for a note in a report):
// a string literal with "note:" or "warning:" in any other file of the program (tests
// aside) is one printed by hand, which -q and the live progress line would not know of.
func TestNoNoteLabelsOutsideThePrinter(t *testing.T) {
	var found []string
	for _, f := range gosrc.ProgramFiles(t) {
		if f.Rel == notesFile {
			continue
		}
		v, err := noteLabelLiterals(f.Rel, f.Src)
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, v...)
	}
	for _, v := range found {
		t.Errorf("a note or warning written outside internal/ui's printer: %s", v)
	}
}

// The checker finds a label written by hand, in a format or a plain string, and nothing in
// the printer's calls or in comments: a lint that cannot fail is a defect.
func TestNoteLabelLintFindsPlanted(t *testing.T) {
	src := `package p

// note: a comment says what it likes.
func bad(w io.Writer, n int) {
	fmt.Fprintf(w, "note: %d more findings not listed\n", n)
	fmt.Fprintln(w, "warning: the stores changed")
	s := ` + "`" + `the WAL: note: replayed` + "`" + `
	_ = s
}

func fine(env *Env, w io.Writer, n int) {
	env.note("%d tenants", n)
	fmt.Fprintln(w, ui.NoteLine("more findings not listed"))
	fmt.Fprintln(w, "notes: 3", "footnote", "next:")
}
`
	got, err := noteLabelLiterals("planted.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"planted.go:5", "planted.go:6", "planted.go:7"}
	if len(got) != len(want) {
		t.Fatalf("found %q, want lines %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]+":") {
			t.Errorf("finding %d is %q, want it at %s", i, got[i], want[i])
		}
	}
}

// noteLabelLiterals lists the string literals of a Go file that carry a label, as file:line:
// the literal.
func noteLabelLiterals(path string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err == nil && labelLiteral.MatchString(s) {
			found = append(found, fset.Position(lit.Pos()).String()+": "+lit.Value)
		}
		return true
	})
	return found, nil
}
