package rocks

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors; test with errors.Is. Commands map them to exit codes.
var (
	// ErrNotStore: the directory is missing, is not a RocksDB directory, or has
	// no m:format in its default family.
	ErrNotStore = errors.New("not an Ankusa store")
	// ErrNewerFormat: m:format is above format.NewestFormat.
	ErrNewerFormat = errors.New("store format is newer than this tool")
	// ErrUnknownFamily: the store has a column family this tool does not know,
	// so it is of a newer format; refused, never guessed at.
	ErrUnknownFamily = errors.New("store has an unknown column family")
	// ErrLocked: another process (the node) holds the store's LOCK.
	ErrLocked = errors.New("store is locked (is the node running?)")
	// ErrNoSpace: RocksDB (or the file system under it) ran out of space: an IOError with
	// the NoSpace subcode. Exit 3, like any store error, with this message.
	ErrNoSpace = errors.New("no space left on device")
	// ErrCorrupt: RocksDB reported corruption, a merge failed, or a fold was
	// cut short.
	ErrCorrupt = errors.New("store is corrupt")
	// ErrMidMigration is returned by callers (never by this package) when a
	// store with m:migrating:3 is opened by anything but the migration.
	ErrMidMigration = errors.New("store is mid-migration (2 -> 3)")
	// ErrReadOnly: a write was attempted on a store opened ReadOnly or Secondary.
	ErrReadOnly = errors.New("store is open read-only")
	// ErrClosed: the DB was used after Close.
	ErrClosed = errors.New("store is closed")
	// ErrNoFamily: the named column family is not open in this store.
	ErrNoFamily = errors.New("no such column family")
)

// corruptAdvice ends every corruption message: what to do.
const corruptAdvice = "do not migrate or repair; restore the checkpoint or copy the store for a bug report"

// FmtKey renders a key for error messages: printable ASCII as is, other bytes
// as \xNN, the whole quoted.
func FmtKey(k []byte) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range k {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\x%02x", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// KeyError is a RocksDB error tied to one key (a failed merge, a corrupt
// block). It is ErrCorrupt when RocksDB said "Corruption" or a merge failed.
type KeyError struct {
	CF      string
	Key     []byte
	After   bool // the error came after Key (an iterator that failed past it)
	Corrupt bool
	Err     error // RocksDB's message
}

func (e *KeyError) Error() string {
	what := "read failed"
	if e.Corrupt {
		what = "corrupt"
	}
	return what + ": " + e.Detail()
}

// Detail is the error without its class ("corrupt: ", "read failed: "), for a report that
// lists it under its class already.
func (e *KeyError) Detail() string {
	if st := statusOf(e.Err); e.Corrupt && st.Corrupt() && st.File() != "" {
		// A damaged block: say which file first, then where the read was.
		where := "at key " + FmtKey(e.Key)
		if e.After {
			where = "after key " + FmtKey(e.Key)
			if e.Key == nil {
				where = "at its first key"
			}
		}
		return fmt.Sprintf("%s in %s (family %s, %s): %s [RocksDB: %s]",
			corruptWhat(st, ""), st.File(), e.CF, where, corruptAdvice, st.Msg)
	}
	if e.After {
		if e.Key == nil {
			return fmt.Sprintf("family %s, at its first key: %v", e.CF, e.Err)
		}
		return fmt.Sprintf("family %s, after key %s: %v", e.CF, FmtKey(e.Key), e.Err)
	}
	return fmt.Sprintf("key %s in family %s: %v", FmtKey(e.Key), e.CF, e.Err)
}

func (e *KeyError) Unwrap() error { return e.Err }

func (e *KeyError) Is(target error) bool { return target == ErrCorrupt && e.Corrupt }

// CutShortError: a fold did not start at its lo sentinel or did not reach its
// hi sentinel. Either the sentinel is gone or iteration stopped early (RocksDB
// may report corruption as a plain end of iteration). Always ErrCorrupt.
type CutShortError struct {
	Family  string // key family (format.Family.Name)
	CF      string
	Missing string // "lo" or "hi"
	LastKey []byte // last key seen before the fold stopped (nil if none)
	Err     error  // the iterator's error, if it reported one
}

func (e *CutShortError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fold of family %s (column family %s) cut short: ", e.Family, e.CF)
	if e.Missing == "lo" {
		b.WriteString("its lo sentinel is missing")
	} else {
		b.WriteString("its hi sentinel was not reached")
		if e.LastKey != nil {
			fmt.Fprintf(&b, " (last key %s)", FmtKey(e.LastKey))
		}
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

func (e *CutShortError) Unwrap() error { return e.Err }

func (e *CutShortError) Is(target error) bool { return target == ErrCorrupt }

// isCorruption reports whether a RocksDB status text has the Corruption code (a failed merge
// surfaces as "Corruption: Error: Could not perform merge.").
func isCorruption(msg string) bool { return ParseStatus(msg).Corrupt() }
