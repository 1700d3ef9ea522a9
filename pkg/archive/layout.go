package archive

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// An archive reaches an operator in one of three shapes, all the same store: PackArchive's
// (the store's files at the top), tar -C STORE -cf - . (the same, each name after "./",
// and "./" itself first), and the runbook's off-machine copy, tar -C PARENT -cf - NAME |
// zstd (one directory, NAME/, holding the store). Extraction writes the entries as they
// are (every limit applies to them as named), then storeAtTop makes destDir the store.

// isTopEntry is an entry that names the archive's top itself: ".", "./" (and "./.").
func isTopEntry(name string) bool {
	return name != "" && !strings.ContainsAny(name, "\\\x00") && !path.IsAbs(name) && path.Clean(name) == "."
}

// storeAtTop leaves the extracted store in x.dest itself: as it is when CURRENT is at the
// top; moved up out of the one directory that holds it; refused (ErrBadArchive) when the
// archive holds no store in either place.
func (x *extractor) storeAtTop() error {
	if isRegular(filepath.Join(x.dest, "CURRENT")) {
		return nil
	}
	ents, err := os.ReadDir(x.dest)
	if err != nil {
		return err
	}
	var top []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		top = append(top, fmt.Sprintf("%q", n))
	}
	switch {
	case len(ents) == 1 && ents[0].IsDir() && isRegular(filepath.Join(x.dest, ents[0].Name(), "CURRENT")):
		return hoist(x.dest, ents[0].Name())
	case len(ents) == 1 && ents[0].IsDir():
		return badArchive(x.archive, "not a store archive: its one top-level directory %q holds no CURRENT file (a store archive holds one store: its files at the top, or one directory holding them)", ents[0].Name()+"/")
	default:
		return badArchive(x.archive, "not a store archive: no CURRENT file at its top, and %d top-level entries (%s) where one directory holding a store could be read as that store", len(ents), strings.Join(top, ", "))
	}
}

// hoist moves the entries of dest/name up into dest, which holds nothing else, and removes
// the emptied directory. The directory is renamed aside first, under a name none of its
// entries has, so that an entry named like the directory itself lands where it should.
func hoist(dest, name string) error {
	ents, err := os.ReadDir(filepath.Join(dest, name))
	if err != nil {
		return err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	aside := ".ankusa-store-archive-top"
	for slices.Contains(names, aside) {
		aside += "_"
	}
	from := filepath.Join(dest, aside)
	if err := os.Rename(filepath.Join(dest, name), from); err != nil {
		return err
	}
	for _, n := range names {
		if err := os.Rename(filepath.Join(from, n), filepath.Join(dest, n)); err != nil {
			return err
		}
	}
	return os.Remove(from)
}

// isRegular: path is a regular file (not followed: extraction makes no links, and a
// CURRENT that is anything else is no store's).
func isRegular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}
