package rocks

import (
	"os"
	"path/filepath"
)

// NodeOptionsSetAside says whether dir holds the node's OPTIONS files as a read-write open of
// this tool set them aside after RocksDB opened the store (optionsfile.go), not yet put back:
// the open is running, or its process was killed. Until they are back, the store's own
// OPTIONS files may be this tool's RocksDB's, which older RocksDB releases (Debian's 7.8.3
// ldb) refuse to load. A stash this tool cannot show it made does not count (ForeignStash).
func NodeOptionsSetAside(dir string) bool {
	if fi, err := os.Lstat(doneStash(dir)); err == nil && fi.IsDir() {
		return true
	}
	m, err := checkStash(dir, filepath.Join(dir, NodeOptionsStash))
	return err == nil && m.opened
}

// ForeignStash is a *ForeignStashError when dir holds an ANKUSA-NODE-OPTIONS this tool
// cannot show it made (which a read-write open refuses), nil otherwise.
func ForeignStash(dir string) error {
	stash := filepath.Join(dir, NodeOptionsStash)
	fi, err := os.Lstat(stash)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		return &ForeignStashError{Path: stash, Why: "not a directory but " + kindOf(fi.Mode())}
	}
	_, err = checkStash(dir, stash)
	return err
}

// PutBackNodeOptions puts back the node's OPTIONS files a killed run left set aside, as the
// next read-write open would, for a command that has nothing else to write (migrate of a
// store that is at format 3 already: the run killed in its final flush or close). It holds
// the store's LOCK (lockStore) meanwhile, so no RocksDB opens the store while its OPTIONS
// files change; a process that holds it is ErrLocked, and nothing is changed. The families
// the store has that the node's newest file lacks get their sections, as at a close.
func PutBackNodeOptions(dir string) error {
	if !NodeOptionsSetAside(dir) {
		return nil
	}
	lk, err := lockStore(dir)
	if err != nil {
		return err
	}
	defer lk.Unlock()
	families, err := listFamilies(dir)
	if err != nil {
		return err
	}
	if err := restoreOptions(dir, false); err != nil {
		return err
	}
	return describeFamilies(dir, families)
}
