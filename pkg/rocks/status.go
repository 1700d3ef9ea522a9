package rocks

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
)

// Code is a RocksDB Status code (rocksdb::Status::Code).
type Code int

// The codes, in rocksdb::Status::Code order.
const (
	CodeOK Code = iota
	CodeNotFound
	CodeCorruption
	CodeNotSupported
	CodeInvalidArgument
	CodeIOError
	CodeMergeInProgress
	CodeIncomplete
	CodeShutdownInProgress
	CodeTimedOut
	CodeAborted
	CodeBusy
	CodeExpired
	CodeTryAgain
	CodeCompactionTooLarge
	CodeColumnFamilyDropped
	// CodeUnknown: the text does not start with any code's name (not a RocksDB status).
	CodeUnknown
)

// SubCode is a RocksDB Status subcode (rocksdb::Status::SubCode).
type SubCode int

// The subcodes, in rocksdb::Status::SubCode order.
const (
	SubNone SubCode = iota
	SubMutexTimeout
	SubLockTimeout
	SubLockLimit
	SubNoSpace
	SubDeadlock
	SubStaleFile
	SubMemoryLimit
	SubSpaceLimit
	SubPathNotFound
	SubMergeOperandsInsufficientCapacity
	SubManualCompactionPaused
	SubOverwritten
	SubTxnNotPrepared
	SubIOFenced
)

// codeNames is what Status::ToString writes first for each code (util/status.cc); the C API's
// error string (all grocksdb gives us) is exactly Status::ToString().
var codeNames = []struct {
	code Code
	name string
}{
	{CodeNotFound, "NotFound: "},
	{CodeCorruption, "Corruption: "},
	{CodeNotSupported, "Not implemented: "},
	{CodeInvalidArgument, "Invalid argument: "},
	{CodeIOError, "IO error: "},
	{CodeMergeInProgress, "Merge in progress: "},
	{CodeIncomplete, "Result incomplete: "},
	{CodeShutdownInProgress, "Shutdown in progress: "},
	{CodeTimedOut, "Operation timed out: "},
	{CodeAborted, "Operation aborted: "},
	{CodeBusy, "Resource busy: "},
	{CodeExpired, "Operation expired: "},
	{CodeTryAgain, "Operation failed. Try again.: "},
	{CodeCompactionTooLarge, "Compaction too large: "},
	{CodeColumnFamilyDropped, "Column family dropped: "},
}

// subNames is util/status.cc's msgs table, which ToString writes after the code's name (and,
// when a state follows, ": ").
var subNames = []struct {
	sub  SubCode
	name string
}{
	{SubMutexTimeout, "Timeout Acquiring Mutex"},
	{SubLockTimeout, "Timeout waiting to lock key"},
	{SubLockLimit, "Failed to acquire lock due to max_num_locks limit"},
	{SubNoSpace, "No space left on device"},
	{SubDeadlock, "Deadlock"},
	{SubStaleFile, "Stale file handle"},
	{SubMemoryLimit, "Memory limit reached"},
	{SubSpaceLimit, "Space limit reached"},
	{SubPathNotFound, "No such file or directory"},
	{SubMergeOperandsInsufficientCapacity, "Insufficient capacity for merge operands"},
	{SubManualCompactionPaused, "Manual compaction paused"},
	{SubTxnNotPrepared, "Txn not prepared"},
	{SubIOFenced, "IO fenced off"},
}

// Status is a RocksDB status parsed back from its text: ToString() is the code's fixed name,
// the subcode's fixed text, then the free-form state. Classes are decided on Code and Sub
// (and, for the LOCK, on the fixed context RocksDB's LockFile writes), never on the state's
// other words or on a path.
type Status struct {
	Code  Code
	Sub   SubCode
	State string // the rest: for a POSIX I/O error "<context>: <file>: <strerror>"
	Msg   string // the whole text
	// Cause is the status RocksDB wrapped in this one, when the state is itself a status
	// text: a table file missing at open is Corruption("Corruption: " + the IOError's
	// ToString()) (db/version_edit_handler.cc).
	Cause *Status
}

// ParseStatus parses a RocksDB status text (an error from grocksdb).
func ParseStatus(msg string) Status {
	s := Status{Code: CodeUnknown, Msg: msg, State: msg}
	if msg == "OK" {
		s.Code, s.State = CodeOK, ""
		return s
	}
	rest := ""
	for _, c := range codeNames {
		if r, ok := strings.CutPrefix(msg, c.name); ok {
			s.Code, rest = c.code, r
			break
		}
	}
	if s.Code == CodeUnknown {
		return s
	}
	s.State = rest
	for _, sc := range subNames {
		if r, ok := strings.CutPrefix(rest, sc.name); ok && (r == "" || strings.HasPrefix(r, ": ")) {
			s.Sub, s.State = sc.sub, strings.TrimPrefix(r, ": ")
			break
		}
	}
	if s.Sub == SubNone {
		inner := s.State
		if s.Code == CodeCorruption && strings.HasPrefix(inner, cantAccess) {
			// DBImpl::CheckConsistency (paranoid_checks at open): one line per table
			// file, "Can't access /NNNNNN.sst: " + the GetFileSize status.
			first, _, _ := strings.Cut(inner, "\n")
			_, inner, _ = strings.Cut(first, ": ")
		}
		if c := ParseStatus(inner); c.Code != CodeUnknown && c.Code != CodeOK {
			s.Cause = &c
		} else if c, ok := wrappedStatus(inner); ok {
			s.Cause = &c
		}
	}
	return s
}

// wrappedStatus reads the status a Status(code, msg, msg2) carries as msg2: its state is
// "<msg>: <msg2>", and RocksDB passes another status's ToString as msg2 where it wraps one
// (9.11's CreateColumnFamily: IOError("Unable to persist options.", s.ToString())). The
// first ": " after which a status's fixed code name starts is taken.
func wrappedStatus(state string) (Status, bool) {
	for i := strings.Index(state, ": "); i >= 0; {
		if c := ParseStatus(state[i+2:]); c.Code != CodeUnknown && c.Code != CodeOK {
			return c, true
		}
		j := strings.Index(state[i+2:], ": ")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return Status{}, false
}

const cantAccess = "Can't access "

// root is the innermost status of a chain of wrapped ones.
func (s Status) root() Status {
	for s.Cause != nil {
		s = *s.Cause
	}
	return s
}

// statusOf parses err's text as a RocksDB status.
func statusOf(err error) Status {
	if err == nil {
		return Status{Code: CodeOK, Msg: "OK"}
	}
	return ParseStatus(err.Error())
}

// ioContexts are the fixed contexts RocksDB's POSIX file system writes before a file name
// (env/fs_posix.cc, env/io_posix.cc); the file name is whatever follows, up to the last ": "
// (strerror's text has none).
func (s Status) ioParts() (context, file, errText string, ok bool) {
	if s.Code != CodeIOError {
		return "", "", "", false
	}
	i := strings.Index(s.State, ": ")
	j := strings.LastIndex(s.State, ": ")
	if i < 0 || j <= i {
		return "", "", "", false
	}
	return s.State[:i], s.State[i+2 : j], s.State[j+2:], true
}

// Corrupt: RocksDB said Corruption.
func (s Status) Corrupt() bool { return s.Code == CodeCorruption }

// NoSpace: an IOError with the NoSpace subcode (ENOSPC), or an IOError wrapping one.
func (s Status) NoSpace() bool {
	for c := &s; c != nil && c.Code == CodeIOError; c = c.Cause {
		if c.Sub == SubNoSpace {
			return true
		}
	}
	return false
}

// Vanished: a file RocksDB listed was gone when it opened it. ENOENT is an IOError with the
// PathNotFound subcode (some paths say NotFound); a table file missing while the MANIFEST is
// replayed comes wrapped in a Corruption.
func (s Status) Vanished() bool {
	if s.Code == CodeCorruption && strings.HasPrefix(s.State, cantAccess) {
		// Every line must be a file that is gone: a size mismatch on another is damage.
		for _, l := range strings.Split(strings.TrimSpace(s.State), "\n") {
			if !strings.HasPrefix(l, cantAccess) {
				return false
			}
			_, inner, _ := strings.Cut(l, ": ")
			if c := ParseStatus(inner); !(c.Code == CodeIOError && c.Sub == SubPathNotFound) {
				return false
			}
		}
		return true
	}
	r := s.root()
	return (r.Code == CodeIOError && r.Sub == SubPathNotFound) || r.Code == CodeNotFound
}

// LockHeld: RocksDB's LockFile could not take the LOCK file of dir: another process holds the
// record lock ("While lock file: DIR/LOCK: ..."), or this process already does ("lock hold by
// current process ..."). Only a failure on dir's own LOCK counts, whatever else the text says.
func (s Status) LockHeld(dir string) bool {
	if s.Code != CodeIOError || s.Sub != SubNone {
		return false
	}
	ctx, file, _, ok := s.ioParts()
	if !ok {
		return false
	}
	if ctx != "While lock file" && !strings.HasPrefix(ctx, "lock hold by current process") {
		return false
	}
	return filepath.Clean(file) == filepath.Clean(filepath.Join(dir, "LOCK"))
}

// storeFileRE matches the names of a store's own files inside a status text.
var storeFileRE = regexp.MustCompile(`[0-9]{6,}\.(?:sst|ldb|log|blob)|MANIFEST-[0-9]{6,}|OPTIONS-[0-9]{6,}|\bCURRENT\b`)

// File names the store file a status is about, for the message only (never for its class): a
// table or WAL file it mentions first, else the MANIFEST (RocksDB appends "in file
// MANIFEST-N" to any error it meets while replaying the MANIFEST, including one in a table
// file it opened on the way).
func (s Status) File() string {
	all := storeFileRE.FindAllString(s.Msg, -1)
	for _, f := range all {
		if !strings.HasPrefix(f, "MANIFEST-") && !strings.HasPrefix(f, "OPTIONS-") && f != "CURRENT" {
			return f
		}
	}
	if len(all) > 0 {
		return all[0]
	}
	return ""
}

// StatusError is a RocksDB failure classified by its status.
type StatusError struct {
	Op     string // what the tool was doing ("open", "read", "write", "flush")
	Dir    string
	Family string // the column family, when known
	Status Status
	// Files names the files that RocksDB's text does not: see suspectFiles.
	Files []string
}

func (e *StatusError) Error() string {
	var b strings.Builder
	switch {
	case e.Status.Corrupt():
		b.WriteString(ErrCorrupt.Error())
		b.WriteString(": ")
		if e.Status.Vanished() {
			b.WriteString("a file the store lists is missing")
		} else {
			b.WriteString(corruptWhat(e.Status, e.Dir))
		}
		if len(e.Files) > 0 {
			b.WriteString(" in " + strings.Join(e.Files, " or "))
		} else if f := e.Status.File(); f != "" {
			b.WriteString(" in " + missingName(e.Status, f))
		}
		if e.Family != "" {
			b.WriteString(" (family " + e.Family + ")")
		}
		b.WriteString(": " + corruptAdvice)
		b.WriteString(" [RocksDB: " + e.Status.Msg + "]")
	case e.Status.NoSpace():
		b.WriteString(ErrNoSpace.Error())
		if _, file, _, ok := e.Status.ioParts(); ok {
			b.WriteString(" (writing " + file + ")")
		}
		b.WriteString(": free space and run the command again")
	default:
		b.WriteString("store error")
		if e.Op != "" {
			b.WriteString(" (" + e.Op + ")")
		}
		if e.Family != "" {
			b.WriteString(" in family " + e.Family)
		}
		b.WriteString(": " + e.Status.Msg)
	}
	return b.String()
}

// missingName names a vanished table file as the store lists it: RocksDB opens NNNNNN.sst
// and, when that fails, the old LevelDB name NNNNNN.ldb, and reports the last name it tried.
func missingName(s Status, f string) string {
	if !s.Vanished() || !strings.HasSuffix(f, ".ldb") {
		return f
	}
	return strings.TrimSuffix(f, ".ldb") + ".sst (RocksDB also looked for " + f + ")"
}

// corruptWhat is the head of a corruption's state ("block checksum mismatch"), without the
// numbers and paths that follow.
func corruptWhat(s Status, dir string) string {
	w := s.State
	// Everything from the word holding the store's file name on is where, not what (the
	// message names the file itself after the head): RocksDB glues a file on with " in "
	// (Status::CopyAppendMessage), a path relative or not.
	if i := storeFileRE.FindStringIndex(w); i != nil {
		head := w[:i[0]]
		if j := strings.LastIndexByte(head, ' '); j >= 0 {
			head = head[:j]
		}
		if strings.TrimSpace(head) != "" {
			w = head
		}
	}
	if dir != "" {
		// RocksDB glues some file names to the words before them ("to be an sstable" + path).
		if i := strings.Index(w, strings.TrimSuffix(dir, "/")+"/"); i > 0 {
			w = w[:i]
		}
	}
	for _, cut := range []string{":", " in /", " in file", "  in ", "/"} {
		if i := strings.Index(w, cut); i > 0 {
			w = w[:i]
		}
	}
	// The connective left before the file name cut off: the message puts its own " in ".
	w = strings.TrimSpace(w)
	for _, tail := range []string{" in file", " for file", " in"} {
		w = strings.TrimSuffix(w, tail)
	}
	return w
}

func (e *StatusError) Is(target error) bool {
	switch target {
	case ErrCorrupt:
		return e.Status.Corrupt()
	case ErrNoSpace:
		return e.Status.NoSpace()
	}
	return false
}

// classify wraps a RocksDB error in a *StatusError (nil stays nil).
func classify(op, dir, family string, err error) error {
	if err == nil {
		return nil
	}
	var se *StatusError
	if errors.As(err, &se) {
		return err
	}
	return &StatusError{Op: op, Dir: dir, Family: family, Status: statusOf(err)}
}
