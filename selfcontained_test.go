package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository stands on its own: someone who clones only it (a new contributor, an
// operator reading the source on the night of an upgrade) must find every file a file of it
// points to. So no tracked file names a path outside the repository: no relative path that
// climbs above its root, no Markdown link to a file it does not hold, no absolute path into
// the machine it was written on, and no path into the workspace's shared/ tree it was
// developed beside. What the project needs of such documents is in docs/format.md, in its
// own words; the design record is named by its title (TEN-1.a, "TenantKeys").
func TestNoPathLeavesTheRepository(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	files := trackedTextFiles(t)
	if len(files) < 50 {
		t.Fatalf("only %d tracked files: the test is not looking at the repository", len(files))
	}
	var problems []string
	for _, name := range files {
		if name == selfcontainedTest {
			continue // it spells out the paths it looks for
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		problems = append(problems, outsidePaths(name, string(b), workspaceOf(root), fileExists)...)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

const selfcontainedTest = "selfcontained_test.go"

// workspaceOf is the directory the checkout at root sits in, when naming it in a file would
// say something about the author's machine; "" when it is a temporary directory (CI clones
// into one, and /tmp/ in an example or a test is no such path) or the file system's root.
// /work/, this project's workspace, is checked by name in any case.
func workspaceOf(root string) string {
	ws := filepath.Clean(filepath.Dir(root))
	for _, tmp := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		if t := filepath.Clean(tmp); ws == t || strings.HasPrefix(ws, t+"/") {
			return ""
		}
	}
	if ws == "/" {
		return ""
	}
	return ws
}

// trackedTextFiles lists the files git tracks (and the untracked ones it does not ignore, so
// that a new file is checked before it is added), leaving out binary files.
func trackedTextFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(name)
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the working tree
			}
			t.Fatal(err)
		}
		if bytes.IndexByte(b, 0) >= 0 || strings.HasSuffix(name, ".zst") {
			continue
		}
		files = append(files, name)
	}
	return files
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

var (
	// A path-like token holding a "..": a/../b, ../../x, "../..".
	dotdotPath = regexp.MustCompile(`[A-Za-z0-9_.\-/]*\.\.(?:/[A-Za-z0-9_.\-/]*)?`)
	// Go's filepath.Join("..", "..", ...): the ".." elements as separate strings.
	joinDotdots = regexp.MustCompile(`"\.\."(?:\s*,\s*"\.\.")*`)
	// A Markdown link's target: [text](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// The workspace's shared tree (the contract and design record live there, not here).
	sharedTree = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.\-/]|\.\./)shared/`)
)

// outsidePaths lists the places in the file name (relative to the repository root, with
// content text) that point outside the repository. workspace is the directory the
// repository sits in: an absolute path below it is a path on the author's machine. exists
// reports whether a path relative to the root is in the repository.
func outsidePaths(name, text, workspace string, exists func(string) bool) []string {
	dir := path.Dir(name)
	var out []string
	for i, line := range strings.Split(text, "\n") {
		at := func(format string, args ...any) {
			out = append(out, fmt.Sprintf("%s:%d: ", name, i+1)+fmt.Sprintf(format, args...))
		}
		for _, tok := range dotdotPath.FindAllString(line, -1) {
			if escapes(dir, tok) {
				at("%q climbs out of the repository", tok)
			}
		}
		for _, tok := range joinDotdots.FindAllString(line, -1) {
			if n := strings.Count(tok, `".."`); escapes(dir, strings.Repeat("../", n)) {
				at("%d \"..\" elements climb out of the repository from %s", n, dir)
			}
		}
		if strings.HasSuffix(name, ".md") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if i := strings.IndexAny(target, "#?"); i >= 0 {
					target = target[:i]
				}
				if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if strings.HasPrefix(target, "/") {
					at("link %q is an absolute path", m[1])
					continue
				}
				p := path.Join(dir, target)
				if escapes(dir, target) || !exists(p) {
					at("link %q is not a file of the repository", m[1])
				}
			}
		}
		if sharedTree.MatchString(line) {
			at("names the workspace's shared/ tree; say what it says in docs/format.md instead")
		}
		for _, abs := range []string{workspace + "/", "/work/"} {
			if abs != "/" && strings.Contains(line, abs) {
				at("names %s, a path outside the repository", abs)
				break
			}
		}
	}
	return out
}

// escapes reports whether the relative path p, read from directory dir of the repository,
// leads above the repository's root.
func escapes(dir, p string) bool {
	if strings.HasPrefix(p, "/") {
		return false // absolute: judged by the workspace rule, not here
	}
	j := path.Join(dir, p)
	return j == ".." || strings.HasPrefix(j, "../")
}

// Each rule bites: a path that leaves the repository is found however it is written, and
// paths that stay inside are not.
func TestOutsidePaths(t *testing.T) {
	exists := func(p string) bool { return p == "docs/testing.md" || p == "README.md" }
	cases := []struct {
		name, file, text string
		bad              bool
	}{
		{"relative path above the root", "DEVELOPERS.md", "Read `../shared/seeds/x.txt` first", true},
		{"three levels up from a package", "pkg/migration/doc.go", "// (../../../spec/contract.md)", true},
		{"filepath.Join climbing out", "pkg/x/a_test.go", `filepath.Join("..", "..", "..", "elsewhere")`, true},
		{"filepath.Join to testdata", "pkg/x/a_test.go", `filepath.Join("..", "..", "testdata")`, false},
		{"testdata from a package", "pkg/x/a_test.go", `const dir = "../../testdata/archive"`, false},
		{"an archive entry that stays inside", "pkg/archive/a_test.go", `Name: "a/../../evil/"`, false},
		{"the shared tree, bare", "docs/format.md", "the contract (`shared/spec/store-contract.md`)", true},
		{"the shared tree, one level up from a folder", "docs/testing.md", "See ../shared/spec/store-contract.md", true},
		{"the shared tree, from deeper", "pkg/format/doc.go", "// see ../../shared/spec/store-contract.md", true},
		{"the shared tree in a comment", "pkg/format/doc.go", "// pinned by the contract (shared/spec/store-contract.md)", true},
		{"a word ending in shared", "docs/a.md", "the unshared/ tree and pkg/shared/ stay", false},
		{"a link to a missing file", "docs/format.md", "see [the contract](contract.md)", true},
		{"a link above the root", "docs/format.md", "see [the record](../../seeds/r.txt)", true},
		{"an absolute link", "docs/format.md", "see [x](/etc/passwd)", true},
		{"a link that exists, with an anchor", "docs/format.md", "see [testing](testing.md#fuzz) and [readme](../README.md)", false},
		{"a web link", "docs/format.md", "[rapid](https://pkg.go.dev/pgregory.net/rapid)", false},
		{"the workspace", "scripts/x.sh", "cp /home/dev/src/shared-notes.txt .", true},
		{"the machine's work tree", "docs/a.md", "as in /work/main/README.md", true},
		{"a store path in an example", "docs/a.md", "$ ankusa-store tenants ls /var/lib/ankusa/store", false},
		{"an ellipsis", "docs/a.md", "and so on... ", false},
	}
	for _, ws := range []struct{ root, want string }{
		{"/home/dev/src/ankusa-store", "/home/dev/src"},
		{"/tmp/ci-clone.HKk4/repo", ""},
		{filepath.Join(os.TempDir(), "x"), ""},
		{"/repo", ""},
	} {
		if got := workspaceOf(ws.root); got != ws.want {
			t.Errorf("workspaceOf(%s) = %q, want %q", ws.root, got, ws.want)
		}
	}
	if got := outsidePaths("docs/a.md", "$ ankusa-store fixture /tmp/s.tar.zst", workspaceOf("/tmp/clone/repo"), exists); len(got) > 0 {
		t.Errorf("a clone in a temporary directory flags /tmp/ in an example: %q", got)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := outsidePaths(c.file, c.text, "/home/dev/src", exists)
			if (len(got) > 0) != c.bad {
				t.Errorf("outsidePaths(%s, %q) = %q, want a problem: %v", c.file, c.text, got, c.bad)
			}
		})
	}
}
