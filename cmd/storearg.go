package cmd

import (
	"fmt"
	"strings"

	"github.com/ankusa/ankusa-store/pkg/archive"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// isArchive reports whether a store argument names a .tar.zst archive rather than a directory.
func isArchive(path string) bool { return strings.HasSuffix(path, ".tar.zst") }

// openStore opens the store a command was pointed at. An archive is extracted to a scratch
// directory that close removes (archive.ExtractTemp); archives are only ever opened read-only, since writing to a
// copy that is then thrown away would report success for work that is lost.
func openStore(path string, o rocks.Options) (st *rocks.Store, closeFn func(), err error) {
	dir := path
	cleanup := func() {}
	if isArchive(path) {
		if o.Mode == rocks.ReadWrite {
			return nil, nil, usageErr("%s is an archive; extract it first to change it (archives are opened read-only)", path)
		}
		x, err := archive.ExtractTemp(path)
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { x.Remove() }
		dir = x.Dir
		// An archive never has a running node behind it: a plain read-only open is right.
		o.Mode = rocks.ReadOnly
	}
	st, err = rocks.OpenStore(dir, o)
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, func() { st.Close(); cleanup() }, nil
}
