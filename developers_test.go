package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mapRow is a row of DEVELOPERS.md's map of packages: its first cell, a directory in
// backquotes.
var mapRow = regexp.MustCompile("(?m)^\\| `([^`]+)`")

// mapHeader is the header of the map's table.
const mapHeader = "| package | what it holds |\n"

// DEVELOPERS.md's map is where a newcomer asks "where does this change go?": every package
// of the module has its row, and no row names a package that is gone. A package added
// without its row (seven came in one day of issue 47) fails here rather than in review.
func TestDevelopersMapNamesEveryPackage(t *testing.T) {
	c := exec.Command("go", "list", "-f", "{{.Dir}}", "./...")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, d := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, filepath.ToSlash(rel))
	}
	if len(dirs) < 30 {
		t.Fatalf("go list named %d packages; the walk missed the module:\n%s", len(dirs), out)
	}
	doc, err := os.ReadFile("DEVELOPERS.md")
	if err != nil {
		t.Fatal(err)
	}
	missing, stale := mapMisses(string(doc), dirs)
	for _, d := range missing {
		t.Errorf("DEVELOPERS.md's map has no row for package %s", d)
	}
	for _, d := range stale {
		t.Errorf("DEVELOPERS.md's map has a row for %s, which is no package of the module", d)
	}
}

// The check finds a package without its row and a row without its package, and takes a
// row's first cell whatever follows it.
func TestDevelopersMapCheckFindsPlanted(t *testing.T) {
	doc := "| `pkg/before` | another table |\n\n| package | what it holds |\n|---|---|\n| `.` (`main.go`) | the program |\n| `pkg/a` | a |\n| `pkg/gone` | was |\nnot a row `pkg/b`\n\n| `-o` | a flag's table |\n"
	missing, stale := mapMisses(doc, []string{".", "pkg/a", "pkg/b"})
	if !slices.Equal(missing, []string{"pkg/b"}) || !slices.Equal(stale, []string{"pkg/gone"}) {
		t.Fatalf("missing %q, stale %q; want [pkg/b] and [pkg/gone]", missing, stale)
	}
}

// mapMisses is the packages of dirs without a row in doc's map, and the rows that name no
// package of dirs.
func mapMisses(doc string, dirs []string) (missing, stale []string) {
	// The map is the table under its header, to the first line that is no row: another
	// table of the file (a flag's, a file's) is no map of packages.
	_, table, _ := strings.Cut(doc, mapHeader)
	if end := strings.Index(table, "\n\n"); end >= 0 {
		table = table[:end]
	}
	rows := map[string]bool{}
	for _, m := range mapRow.FindAllStringSubmatch(table, -1) {
		rows[m[1]] = true
	}
	for _, d := range dirs {
		if !rows[d] {
			missing = append(missing, d)
		}
		delete(rows, d)
	}
	for r := range rows {
		stale = append(stale, r)
	}
	slices.Sort(stale)
	return missing, stale
}
