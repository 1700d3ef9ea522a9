package testkit

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// uiImports are the output layer and the terminal libraries under it: what a package
// below cmd must not stand on, directly or through another (it takes a
// reporting.Reporter, which the UI implements).
var uiImports = []string{
	"github.com/ankusa/ankusa-store/internal/ui",
	"github.com/charmbracelet/",
	"github.com/muesli/termenv",
}

// No package under pkg/ imports the UI or its ANSI libraries, directly or through another
// package: their dependencies as go list resolves them, the build's own (tests apart).
func TestPkgDoesNotImportTheUI(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./pkg/...")
	c.Dir = root
	out, err := c.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkgs++
		if bad := uiDeps(f[1:]); len(bad) > 0 {
			t.Errorf("%s stands on the UI (%s): below cmd, progress is a reporting.Reporter", f[0], strings.Join(bad, ", "))
		}
	}
	if pkgs < 10 {
		t.Fatalf("go list named %d packages under pkg/; the walk missed the module:\n%s", pkgs, out)
	}
}

// The check finds the UI among a package's dependencies, and passes one that only looks
// alike.
func TestUIImportFoundWhenPlanted(t *testing.T) {
	deps := []string{"fmt", "github.com/ankusa/ankusa-store/internal/uikit", "github.com/ankusa/ankusa-store/internal/ui/progress", "github.com/charmbracelet/lipgloss"}
	if got := uiDeps(deps); len(got) != 2 || got[0] != deps[2] || got[1] != deps[3] {
		t.Fatalf("found %q; want %q", got, deps[2:])
	}
}

// uiDeps is those of deps that are the UI or under it.
func uiDeps(deps []string) []string {
	var bad []string
	for _, d := range deps {
		for _, u := range uiImports {
			if d == u || strings.HasPrefix(d, strings.TrimSuffix(u, "/")+"/") {
				bad = append(bad, d)
				break
			}
		}
	}
	return bad
}
