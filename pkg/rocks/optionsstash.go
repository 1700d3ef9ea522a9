package rocks

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// A stash (optionsfile.go) is put back into the store, the store's OPTIONS files replaced by
// its own, only when this tool can show it made it for this store: anyone who can write in
// the store could plant an ANKUSA-NODE-OPTIONS directory, and a planted file claiming RocksDB
// 11.1.2 and format_version 7 would make a migration write tables a node on RocksDB 7.8.3
// cannot read, then put the planted file in place of the node's. So the stash carries a
// marker, written into it before it is renamed into place: the store's identity (a digest of
// its IDENTITY file, which a copy of the store keeps; the directory's device and inode for a
// store without one) and the SHA-256 of every file stashed. A stash whose marker is missing,
// names another store, or whose files are not exactly the ones it lists, byte for byte, is
// refused (exit 3, its path named) and nothing in the store is changed: it is not the tool's
// to remove either, and it may be the only copy of some node's files (a run of an older
// release of this tool, killed, left one without a marker).
//
// Second, the marker says whether this tool's RocksDB ever opened the store while the stash
// existed (the file OPENED, written once the open succeeded, under the LOCK RocksDB holds):
// only then are the store's OPTIONS files not in the stash this tool's, to remove. A stash
// without it was made by a run whose open failed or never came (killed at the stash, or
// refused because a node took the store first): whatever OPTIONS files the store has since
// are the node's, and such a stash is removed without touching them.

const (
	// stashMarkerName is the marker's file in a stash (and in its set-aside .done directory).
	stashMarkerName = "ANKUSA-STASH"
	// stashOpenedName is in a stash once this tool's RocksDB opened the store.
	stashOpenedName = "OPENED"
	// stashMarkerHead is the marker's first line.
	stashMarkerHead = "ankusa-store stash of the node's OPTIONS files, v1"
	// maxOptionsFile bounds what is read of one OPTIONS file or marker: a node's are some
	// 30 KB; anything near this is not one.
	maxOptionsFile = 4 << 20
)

// ErrForeignStash: a stash of OPTIONS files in the store that this tool cannot show it made.
var ErrForeignStash = errors.New("not a stash this tool made")

// ForeignStashError names the directory and why it is not the tool's.
type ForeignStashError struct {
	Path string
	Why  string
}

func (e *ForeignStashError) Error() string {
	return fmt.Sprintf("%s is not a stash of the node's OPTIONS files that this tool made (%s): nothing in the store was changed; "+
		"move that directory out of the store (if a killed run of an older release left it, put back from it the OPTIONS files the node had first) and run this again",
		e.Path, e.Why)
}

func (e *ForeignStashError) Is(target error) bool { return target == ErrForeignStash }

// stashMarker is a marker's content.
type stashMarker struct {
	store  string            // the store's identity (storeIdentity)
	files  map[string]string // OPTIONS file name -> hex SHA-256 of its bytes
	opened bool              // OPENED is there: this tool's RocksDB opened the store
}

var optionsNameRE = regexp.MustCompile(`^OPTIONS-[0-9]+$`)

func (m *stashMarker) encode() []byte {
	var b bytes.Buffer
	b.WriteString(stashMarkerHead + "\n")
	b.WriteString("store " + m.store + "\n")
	names := make([]string, 0, len(m.files))
	for n := range m.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.WriteString("file " + n + " " + m.files[n] + "\n")
	}
	return b.Bytes()
}

func parseStashMarker(b []byte) (*stashMarker, error) {
	m := &stashMarker{files: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() || sc.Text() != stashMarkerHead {
		return nil, errors.New("its marker is not this tool's")
	}
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "store":
			if m.store != "" || rest == "" {
				return nil, errors.New("its marker names the store twice or not at all")
			}
			m.store = rest
		case "file":
			name, sum, _ := strings.Cut(rest, " ")
			if d, err := hex.DecodeString(sum); err != nil || len(d) != sha256.Size || !optionsNameRE.MatchString(name) || m.files[name] != "" {
				return nil, fmt.Errorf("its marker has a line this tool does not write: %q", sc.Text())
			}
			m.files[name] = sum
		default:
			return nil, fmt.Errorf("its marker has a line this tool does not write: %q", sc.Text())
		}
	}
	if m.store == "" {
		return nil, errors.New("its marker does not name a store")
	}
	return m, nil
}

// storeIdentity is what a marker records of the store in dir: a digest of its IDENTITY file,
// which RocksDB writes once and a copy of the store keeps, or, for a store without one, its
// directory's device and inode.
func storeIdentity(dir string) (string, error) {
	b, err := readRegular(filepath.Join(dir, "IDENTITY"), 4096)
	if err == nil {
		return fmt.Sprintf("identity %x", sha256.Sum256(b)), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return dirIdentity(dir)
}

func dirIdentity(dir string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("directory %d:%d", st.Dev, st.Ino), nil
}

// sameStore says whether the identity a marker recorded is dir's, read the way it was
// recorded (an open of this tool's gives a store without IDENTITY one).
func sameStore(dir, recorded string) bool {
	var now string
	var err error
	if strings.HasPrefix(recorded, "directory ") {
		now, err = dirIdentity(dir)
	} else {
		now, err = storeIdentity(dir)
	}
	return err == nil && now == recorded
}

// checkStash reads the stash directory stash of the store dir and returns its marker, or a
// *ForeignStashError: no marker, another store's, a file missing, changed or added.
func checkStash(dir, stash string) (*stashMarker, error) {
	foreign := func(why string, args ...any) error {
		return &ForeignStashError{Path: stash, Why: fmt.Sprintf(why, args...)}
	}
	b, err := readRegular(filepath.Join(stash, stashMarkerName), maxOptionsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, foreign("it has no %s marker", stashMarkerName)
	}
	if err != nil {
		return nil, foreign("its marker: %v", err)
	}
	m, err := parseStashMarker(b)
	if err != nil {
		return nil, foreign("%v", err)
	}
	if !sameStore(dir, m.store) {
		return nil, foreign("its marker names another store")
	}
	ents, err := os.ReadDir(stash)
	if err != nil {
		return nil, foreign("%v", err)
	}
	for _, e := range ents {
		switch n := e.Name(); {
		case n == stashMarkerName:
		case n == stashOpenedName:
			// OPENED is created only once RocksDB has the store open, then written: a run
			// killed between the two (or a crash before the write reached the disk) leaves it
			// holding only a beginning of its line, or nothing. That is this tool's own mark
			// cut short, and it says what a whole one says: refused as a stranger's, it
			// stopped every later run until an operator moved the stash out by hand.
			ob, err := readRegular(filepath.Join(stash, n), 4096)
			if err != nil || !strings.HasPrefix(m.store+"\n", string(ob)) {
				return nil, foreign("its %s is not this tool's", stashOpenedName)
			}
			m.opened = true
		case m.files[n] == "":
			return nil, foreign("it holds %s, which its marker does not list", n)
		}
	}
	for n, sum := range m.files {
		fb, err := readRegular(filepath.Join(stash, n), maxOptionsFile)
		if err != nil {
			return nil, foreign("%s: %v", n, err)
		}
		if got := sha256.Sum256(fb); hex.EncodeToString(got[:]) != sum {
			return nil, foreign("%s is not the file it stashed (its digest differs)", n)
		}
	}
	return m, nil
}

// markStashOpened records in dir's stash that this tool's RocksDB has the store open: from
// now on the store's OPTIONS files not in the stash are this tool's.
func markStashOpened(dir string) error {
	stash := filepath.Join(dir, NodeOptionsStash)
	id, err := storeIdentity(dir)
	if err != nil {
		return err
	}
	// The store's identity as the marker has it (a store without IDENTITY has one now).
	if b, err := readRegular(filepath.Join(stash, stashMarkerName), maxOptionsFile); err == nil {
		if m, err := parseStashMarker(b); err == nil {
			id = m.store
		}
	}
	f, err := os.OpenFile(filepath.Join(stash, stashOpenedName), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	optionsPauseAt(OptionsPauseMarking)
	_, err = f.WriteString(id + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	d, err := os.Open(stash)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// removeStashDir removes a stash directory this tool made (checked by the caller, or a .done
// one checked here): the files its marker lists, then OPENED, then the marker, then the
// directory, so that a run killed part way leaves a directory that still says whose it is.
// pause, if set, is reached after the first file.
func removeStashDir(dir, path string, pause string) error {
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		b, err := readRegular(filepath.Join(path, stashMarkerName), maxOptionsFile)
		if err != nil {
			return &ForeignStashError{Path: path, Why: fmt.Sprintf("its marker: %v", err)}
		}
		m, err := parseStashMarker(b)
		if err != nil {
			return &ForeignStashError{Path: path, Why: err.Error()}
		}
		if !sameStore(dir, m.store) {
			return &ForeignStashError{Path: path, Why: "its marker names another store"}
		}
		first := true
		for _, e := range ents {
			n := e.Name()
			if n == stashMarkerName || n == stashOpenedName {
				continue
			}
			if m.files[n] == "" {
				return &ForeignStashError{Path: path, Why: fmt.Sprintf("it holds %s, which its marker does not list", n)}
			}
			if err := os.Remove(filepath.Join(path, n)); err != nil {
				return err
			}
			if first && pause != "" {
				optionsPauseAt(pause)
			}
			first = false
		}
		for _, n := range []string{stashOpenedName, stashMarkerName} {
			if err := os.Remove(filepath.Join(path, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return os.Remove(path)
}

// readRegular reads path, at most max bytes, refusing a link (O_NOFOLLOW), anything but a
// regular file (a fifo is opened without waiting, then refused) and a longer file.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := openRegular(path, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return b, nil
}
