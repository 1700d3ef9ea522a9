package rocks

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// RocksDB writes an OPTIONS-<number> file on every open for writing (and keeps the newest
// two): an INI-like record of the RocksDB version that opened the store and every option it
// ran with, per column family. It is the only place a store says which RocksDB its writer
// runs and how that writer configured its tables, so both the newer-table refusal and the
// write rule read it. RocksDB does not read it back at open; the tool removes only the
// files its own RocksDB wrote (removeOwnOptions, below).

// optionsFile is one OPTIONS file, parsed.
type optionsFile struct {
	Name           string
	Number         uint64
	RocksDBVersion string                       // [Version] rocksdb_version
	CF             map[string]map[string]string // [CFOptions "name"]
	Table          map[string]map[string]string // [TableOptions/BlockBasedTable "name"]
}

// readOptionsFiles parses every OPTIONS file of dir, newest (highest number) first. A file
// that cannot be read is skipped: it says nothing about the writer.
func readOptionsFiles(dir string) []optionsFile {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []optionsFile
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, "OPTIONS-") || strings.HasSuffix(n, ".dbtmp") {
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
	f, err := os.Open(path)
	if err != nil {
		return of, err
	}
	defer f.Close()
	var cur, version map[string]string
	sc := bufio.NewScanner(f)
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
// OPTIONS files, so two read-write opens would push the node's own out. So the tool leaves the
// OPTIONS files as the node left them: it removes the ones its own RocksDB wrote when a
// read-write open closes, and before one opens (a run killed before it closed left its file).
// The node does not read OPTIONS files back; RocksDB needs none to open a store.

// removeOwnOptions removes dir's OPTIONS files written by this build's RocksDB. With
// keepIfNoNode it keeps them when the store has no other OPTIONS file: they are then the
// write rule's record of what it chose (carried forward). A file that cannot be removed
// stays: the next open removes it.
func removeOwnOptions(dir string, keepIfNoNode bool) {
	own := LibraryVersion()
	var mine []string
	node := false
	for _, of := range readOptionsFiles(dir) {
		if of.RocksDBVersion == own {
			mine = append(mine, of.Name)
		} else {
			node = true
		}
	}
	if keepIfNoNode && !node {
		return
	}
	for _, n := range mine {
		os.Remove(filepath.Join(dir, n))
	}
}

// nodeOptionsFile is the newest OPTIONS file of dir not written by this build's RocksDB, "" if
// none.
func nodeOptionsFile(dir string) string {
	own := LibraryVersion()
	for _, of := range readOptionsFiles(dir) {
		if of.RocksDBVersion != own {
			return of.Name
		}
	}
	return ""
}
