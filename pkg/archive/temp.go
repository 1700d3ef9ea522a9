package archive

import (
	"path/filepath"

	"github.com/ankusa/ankusa-store/internal/scratch"
)

// Extracted is a store archive extracted for reading into a scratch directory of the
// system's temporary directory (ankusa-store-archive-<pid>-<random>, internal/scratch):
// Remove deletes it; if the process is killed first, the next run of the tool does.
type Extracted struct {
	// Dir is the extracted store.
	Dir string
	tmp *scratch.Dir
}

// ExtractTemp extracts archivePath (with DefaultLimits, so at most 4 GiB in the temporary
// directory) for reading.
func ExtractTemp(archivePath string) (*Extracted, error) {
	what := "the store extracted from " + archivePath
	if abs, err := filepath.Abs(archivePath); err == nil {
		what = "the store extracted from " + abs
	}
	tmp, err := scratch.Temp("archive", what)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp.Path, "store")
	if err := ExtractArchive(archivePath, dir); err != nil {
		tmp.Remove()
		return nil, err
	}
	return &Extracted{Dir: dir, tmp: tmp}, nil
}

// Remove deletes the extracted store.
func (e *Extracted) Remove() error { return e.tmp.Remove() }
