package gosrc

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// File is one Go file of the program: its path from the module's root, with slashes, and its
// bytes.
type File struct {
	Rel string
	Src []byte
}

// Root is the module's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// ProgramFiles is every non-test .go file of the module, outside testdata and dot
// directories, in walk order; a directory whose path from the root starts with one of skip
// is left out whole.
func ProgramFiles(t testing.TB, skip ...string) []File {
	t.Helper()
	root := Root()
	var files []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			for _, s := range skip {
				if strings.HasPrefix(rel+"/", strings.TrimSuffix(s, "/")+"/") {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, File{Rel: rel, Src: src})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("%d Go files under %s: the walk missed the module", len(files), root)
	}
	return files
}
