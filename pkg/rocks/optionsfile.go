package rocks

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ankusa/ankusa-store/internal/nofollow"
)

// RocksDB writes an OPTIONS-<number> file on every open for writing (and keeps the newest
// two): an INI-like record of the RocksDB version that opened the store and every option it
// ran with, per column family. It is the only place a store says which RocksDB its writer
// runs and how that writer configured its tables, so both the newer-table refusal and the
// write rule read it. RocksDB does not read it back at open; the tool keeps the store's as
// they were (below).

// optionsFile is one OPTIONS file, parsed.
type optionsFile struct {
	Name           string
	Number         uint64
	RocksDBVersion string                       // [Version] rocksdb_version
	CF             map[string]map[string]string // [CFOptions "name"]
	Table          map[string]map[string]string // [TableOptions/BlockBasedTable "name"]
}

// readOptionsFiles parses every OPTIONS file of dir, newest (highest number) first. A file
// that cannot be read is skipped: it says nothing about the writer. While the node's files are
// set aside by a read-write open of this tool's (it runs, or was killed), the store's own are
// this tool's RocksDB's: the node's, in the stash, are read instead. Only a stash this tool
// can show it made, and whose open got as far as RocksDB (optionsstash.go), says so: before
// that the store's own files are still the node's, and a planted stash says nothing. An empty
// stash (the node left none) says nothing either: the store's own are read, as they would be
// after the close.
func readOptionsFiles(dir string) []optionsFile {
	stash := filepath.Join(dir, NodeOptionsStash)
	if fi, err := os.Lstat(stash); err == nil && fi.IsDir() {
		if m, err := checkStash(dir, stash); err == nil && m.opened {
			if ofs := readOptionsFilesIn(stash); len(ofs) > 0 {
				return ofs
			}
		}
	}
	return readOptionsFilesIn(dir)
}

// readOptionsFilesIn parses the OPTIONS files of dir itself, stash or not.
func readOptionsFilesIn(dir string) []optionsFile {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []optionsFile
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, "OPTIONS-") || strings.HasSuffix(n, ".dbtmp") || !e.Type().IsRegular() {
			continue
		}
		num, err := strconv.ParseUint(strings.TrimPrefix(n, "OPTIONS-"), 10, 64)
		if err != nil {
			continue
		}
		of, err := parseOptionsFile(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		of.Name, of.Number = n, num
		out = append(out, of)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number > out[j].Number })
	return out
}

func parseOptionsFile(path string) (optionsFile, error) {
	of := optionsFile{CF: map[string]map[string]string{}, Table: map[string]map[string]string{}}
	b, err := readRegular(path, maxOptionsFile)
	if err != nil {
		return of, err
	}
	var cur, version map[string]string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section := line[1 : len(line)-1]
			cur = nil
			switch {
			case section == "Version":
				version = map[string]string{}
				cur = version
			case strings.HasPrefix(section, "CFOptions "):
				cur = map[string]string{}
				of.CF[sectionName(section, "CFOptions ")] = cur
			case strings.HasPrefix(section, "TableOptions/BlockBasedTable "):
				cur = map[string]string{}
				of.Table[sectionName(section, "TableOptions/BlockBasedTable ")] = cur
			}
			continue
		}
		if cur == nil {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			cur[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	of.RocksDBVersion = version["rocksdb_version"]
	return of, sc.Err()
}

func sectionName(section, prefix string) string {
	return strings.Trim(strings.TrimPrefix(section, prefix), `"`)
}

// The OPTIONS file this build's RocksDB writes at a read-write open names options that older
// RocksDBs do not know (metadata_write_temperature, ...), and RocksDB 7.x refuses the whole
// file when a tool loads it: Debian's ldb 7.8.3 loads a store's newest OPTIONS file by
// default and then fails ("Could not find option"). And RocksDB keeps only the two newest
// OPTIONS files: at the open itself it drops the older of the node's two, and every family a
// migration creates writes another, so the node's are gone before the run closes. So the tool
// keeps the OPTIONS files as the node left them, both of them, whoever wrote them (a node on
// erlang-rocksdb 3.x runs this very RocksDB version, so the version says nothing of who wrote
// a file):
//
//  1. Before a read-write open, every OPTIONS file the store has is copied into the stash,
//     the directory ANKUSA-NODE-OPTIONS in the store, with the marker that says this tool
//     made it (optionsstash.go), built aside, synced, then renamed into place: it is whole or
//     absent. RocksDB ignores a directory whose name is not one of its files. Once RocksDB's
//     open succeeds, the stash is marked OPENED.
//  2. When the open closes (or fails), and only while this process holds the store's LOCK
//     (storelock.go: a node that took the store meanwhile is never written under): if the
//     stash is marked OPENED, every OPTIONS file not in it is removed and every one in it
//     that is missing is put back; then the stash is renamed aside (.ANKUSA-NODE-OPTIONS.done)
//     before it is removed: a stash removed file by file in place, killed part way, would hold
//     only some of the node's files, and the next step 2 would remove the others from the
//     store as if they were the tool's. A stash not marked OPENED is removed without touching
//     the store's files: this tool's RocksDB never wrote one, and any the store has that the
//     stash lacks are a node's (one that opened the store between the stash and the open).
//  3. A run killed before it closed left its stash: the next read-write open does step 2
//     first, so the store is as the node left it before anything else happens; a migrate
//     with nothing left to do (killed in its final flush or close) does step 2 alone
//     (PutBackNodeOptions). Until then whatever reads the store's OPTIONS (the write rule,
//     status) reads the stash's: the node's. A stash this tool cannot show it made is never
//     read, put back or removed: a read-write open refuses it (exit 3).
//
// A family the node's newest file lacks (the migration's tenants and counters, created by this
// open or by a killed one) would not be opened by a reader that takes its families from the
// newest OPTIONS file (ldb does): so at step 2 the newest of the node's files gets a section
// for each family the store has and it lacks, copied from the node's own "default" sections,
// appended; every other byte stays the node's.
//
// A store the tool creates has no stash: it is left with the OPTIONS file of the node its rule
// names, or none (nodeoptions.go). The node does not read OPTIONS files back; RocksDB needs
// none to open a store.

// NodeOptionsStash is the directory in a store holding copies of its OPTIONS files while a
// read-write open of the tool's has it.
const NodeOptionsStash = "ANKUSA-NODE-OPTIONS"

// optionsNames lists dir's OPTIONS files (names only, in no order).
func optionsNames(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "OPTIONS-") && e.Type().IsRegular() {
			out = append(out, n)
		}
	}
	return out
}

// stashOptions copies every OPTIONS file of dir into its stash, with its marker (step 1
// above). A stash left by a killed run is put back or removed first (step 3). The caller holds
// the store's LOCK (lockStore).
func stashOptions(dir string) error {
	if err := restoreOptions(dir, false); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+NodeOptionsStash+".tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	id, err := storeIdentity(dir)
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	m := &stashMarker{store: id, files: map[string]string{}}
	for _, n := range optionsNames(dir) {
		if !optionsNameRE.MatchString(n) {
			// OPTIONS-N.dbtmp: what a RocksDB killed while writing its OPTIONS left, no
			// node's file; a marker naming it would be refused as none of the tool's.
			continue
		}
		b, err := readRegular(filepath.Join(dir, n), maxOptionsFile)
		if err == nil {
			err = nofollow.Create(filepath.Join(tmp, n), b, true)
		}
		if err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("keeping the node's %s: %w", n, err)
		}
		sum := sha256.Sum256(b)
		m.files[n] = hex.EncodeToString(sum[:])
	}
	if err := nofollow.Create(filepath.Join(tmp, stashMarkerName), m.encode(), true); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := nofollow.SyncDir(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, NodeOptionsStash)); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nofollow.SyncDir(dir)
}

// doneStash is the name a stash is renamed to once its files are back in the store, before it
// is removed: a stash removed file by file in place, killed part way, would hold only some of
// the node's files, and the next restore would remove the others from the store as the tool's.
func doneStash(dir string) string { return filepath.Join(dir, "."+NodeOptionsStash+".done") }

// restoreOptions puts dir's OPTIONS files back as its stash holds them, if this tool's
// RocksDB opened the store since the stash was made (the stash is marked OPENED, or opened
// says this process's open did), and removes the stash (step 2 above);
// without a stash it does nothing. The caller holds the store's LOCK (lockStore). A stash
// this tool did not make is refused (*ForeignStashError) with nothing changed; a file that
// cannot be put back leaves the stash in place for the next run, and the error says so.
func restoreOptions(dir string, opened bool) error {
	// What a run killed while it removed its stash left: every file of it is back already.
	if fi, err := os.Lstat(doneStash(dir)); err == nil {
		if !fi.IsDir() {
			return &ForeignStashError{Path: doneStash(dir), Why: "not a directory but " + kindOf(fi.Mode())}
		}
		if err := removeStashDir(dir, doneStash(dir), ""); err != nil {
			return err
		}
	}
	stash := filepath.Join(dir, NodeOptionsStash)
	fi, err := os.Lstat(stash)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &ForeignStashError{Path: stash, Why: "not a directory but " + kindOf(fi.Mode())}
	}
	m, err := checkStash(dir, stash)
	if err != nil {
		return err
	}
	if m.opened || opened {
		if err := putBackStashed(dir, stash, m); err != nil {
			return err
		}
	}
	if err := os.Rename(stash, doneStash(dir)); err != nil {
		return err
	}
	if err := nofollow.SyncDir(dir); err != nil {
		return err
	}
	if err := removeStashDir(dir, doneStash(dir), OptionsPauseUnstashing); err != nil {
		return err
	}
	return nofollow.SyncDir(dir)
}

// putBackStashed makes dir's OPTIONS files the stash's, those m lists (checked by checkStash).
func putBackStashed(dir, stash string, m *stashMarker) error {
	for _, n := range optionsNames(dir) {
		if m.files[n] == "" {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("removing %s, written by this tool's open: %w", n, err)
			}
			optionsPauseAt(OptionsPauseRestoring)
		}
	}
	for n := range m.files {
		want, err := readRegular(filepath.Join(stash, n), maxOptionsFile)
		if err != nil {
			return fmt.Errorf("reading the node's %s in %s: %w", n, stash, err)
		}
		dst := filepath.Join(dir, n)
		if have, err := nofollow.ReadFile(dst); err == nil && bytes.Equal(have, want) {
			continue
		}
		if err := nofollow.ReplaceVia(dst, filepath.Join(dir, "."+n+".restore"), want, true); err != nil {
			return fmt.Errorf("putting the node's %s back from %s: %w", n, stash, err)
		}
	}
	return nofollow.SyncDir(dir)
}

// copyFileNoFollow copies src to dst, which must not exist, and syncs it; neither is
// followed if it is a link (nofollow).
func copyFileNoFollow(src, dst string) error {
	b, err := nofollow.ReadFile(src)
	if err != nil {
		return err
	}
	return nofollow.Create(dst, b, true)
}

// copyNodeOptions gives the checkpoint dir the store's OPTIONS files as its node left them
// (the stash's), in place of the one RocksDB copied, its own. It runs while this tool's
// RocksDB has the store open, so a stash of the tool's is there, marked OPENED; without one
// (a store the tool created) the checkpoint gets none.
func copyNodeOptions(store, dir string) error {
	src := filepath.Join(store, NodeOptionsStash)
	m, err := checkStash(store, src)
	if err != nil || !m.opened {
		src = "" // a store the tool created, or one it did not stash: none
	}
	for _, n := range optionsNames(dir) {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	if src == "" {
		return nil
	}
	for n := range m.files {
		if err := copyFileNoFollow(filepath.Join(src, n), filepath.Join(dir, n)); err != nil {
			return fmt.Errorf("the node's %s: %w", n, err)
		}
	}
	return nofollow.SyncDir(dir)
}

// describeFamilies appends to dir's newest OPTIONS file a copy of its "default" family's
// sections for each family of families (those the open created) it lacks (see above); a store without OPTIONS files,
// or whose newest lists them all, is left as it is.
func describeFamilies(dir string, families []string) error {
	ofs := readOptionsFilesIn(dir)
	if len(ofs) == 0 {
		return nil
	}
	newest := ofs[0]
	var missing []string
	for _, cf := range families {
		if _, ok := newest.CF[cf]; !ok {
			missing = append(missing, cf)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	path := filepath.Join(dir, newest.Name)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	cfSec, tableSec := rawSection(b, `CFOptions "default"`), rawSection(b, `TableOptions/BlockBasedTable "default"`)
	if cfSec == "" {
		return nil // no default section to copy: nothing that says how the node writes
	}
	out := append([]byte(nil), b...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	for _, cf := range missing {
		out = append(out, "\n"+strings.Replace(cfSec, `"default"`, `"`+cf+`"`, 1)...)
		if tableSec != "" {
			out = append(out, "\n"+strings.Replace(tableSec, `"default"`, `"`+cf+`"`, 1)...)
		}
	}
	if err := nofollow.ReplaceVia(path, filepath.Join(dir, "."+newest.Name+".families"), out, true); err != nil {
		return err
	}
	return nofollow.SyncDir(dir)
}

// rawSection is the text of the section [name] of an OPTIONS file, its header line included,
// up to the next section; "" if there is none.
func rawSection(b []byte, name string) string {
	lines := strings.SplitAfter(string(b), "\n")
	var out strings.Builder
	in := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			if in {
				break
			}
			in = t == "["+name+"]"
		}
		if in && t != "" {
			out.WriteString(l)
			if !strings.HasSuffix(l, "\n") {
				out.WriteString("\n")
			}
		}
	}
	return out.String()
}
