package rocks

import (
	"errors"
	"strings"
	"testing"
)

// Every message here was captured from a real failure of this library build (Debian's
// librocksdb 7.8.3 through grocksdb): the command that produced it is in the comment.
func TestParseStatusRealMessages(t *testing.T) {
	for _, c := range []struct {
		name, dir, msg string
		code           Code
		sub            SubCode
		corrupt        bool
		noSpace        bool
		vanished       bool
		lockHeld       bool
		file           string
		named          string // how the message names it, when not file
		what           string // the head of a corruption, as the message says it before the file
	}{
		{
			// another process holds the LOCK (fcntl F_SETLK, F_WRLCK), read-write open
			name: "lock held by another process", dir: "/tmp/rt/h",
			msg:  "IO error: While lock file: /tmp/rt/h/LOCK: Resource temporarily unavailable",
			code: CodeIOError, lockHeld: true,
		},
		{
			// a second read-write open in the same process
			name: "lock held by this process", dir: "/tmp/rt/h",
			msg:  "IO error: lock hold by current process, acquire time 1796117999 acquiring thread 8815: /tmp/rt/h/LOCK: No locks available",
			code: CodeIOError, lockHeld: true,
		},
		{
			// the same LOCK message, about another store's LOCK: not this store locked
			name: "another store's lock", dir: "/tmp/rt/other",
			msg:  "IO error: While lock file: /tmp/rt/h/LOCK: Resource temporarily unavailable",
			code: CodeIOError,
		},
		{
			// read-write open of a store on a read-only tmpfs mounted at a path with "lock" in it
			name: "read-only file system, lock in the path", dir: "/tmp/rt/blockstore/s",
			msg:  "IO error: While open a file for appending: /tmp/rt/blockstore/s/LOG: Read-only file system",
			code: CodeIOError, file: "",
		},
		{
			// a byte of a counters table file's data block flipped, then tenants ls
			name: "block checksum mismatch", dir: "/tmp/rt/d",
			msg:  "Corruption: block checksum mismatch: stored = 1333885311, computed = 231329765, type = 4  in /tmp/rt/d/000041.sst offset 0 size 3852",
			code: CodeCorruption, corrupt: true, file: "000041.sst",
		},
		{
			// a byte of the metaindex block flipped: found while the MANIFEST was replayed
			name: "checksum mismatch at open", dir: "/tmp/rt/d",
			msg:  "Corruption: block checksum mismatch: stored = 1318429188, computed = 232438181, type = 4  in /tmp/rt/d/000041.sst offset 4765 size 33 in file /tmp/rt/d/MANIFEST-000005",
			code: CodeCorruption, corrupt: true, file: "000041.sst",
		},
		{
			// a table cut to a few bytes, as RocksDB 11.1.2 builds the message (table/format.cc
			// ReadFooterFromFile glues the file on with " in ", Status::CopyAppendMessage):
			// ours said "...an SST file in in 000025.sst"
			name: "table too short", dir: "/tmp/rt/d",
			msg:  "Corruption: Input is too short to be an SST file in /tmp/rt/d/000025.sst",
			code: CodeCorruption, corrupt: true, file: "000025.sst", what: "Input is too short to be an SST file",
		},
		{
			// a footer's checksum, as format.cc builds it, the store named by a relative path
			name: "table too short, relative", dir: "rel/d",
			msg:  "Corruption: Footer at 1024 checksum mismatch in rel/d/000025.sst",
			code: CodeCorruption, corrupt: true, file: "000025.sst", what: "Footer at 1024 checksum mismatch",
		},
		{
			// a byte of the footer's format version flipped
			name: "footer format version", dir: "/tmp/rt/d",
			msg:  "Corruption: Corrupt or unsupported format_version: 16711685 in file /tmp/rt/d/MANIFEST-000005",
			code: CodeCorruption, corrupt: true, file: "MANIFEST-000005",
		},
		{
			// a table file deleted, then a read-only open (RocksDB wraps the IOError in a Corruption)
			name: "table file missing at open", dir: "v",
			msg:  "Corruption: Corruption: IO error: No such file or directory: While open a file for random read: v/000041.ldb: No such file or directory in file v/MANIFEST-000005",
			code: CodeCorruption, corrupt: true, vanished: true, file: "000041.ldb",
			// the name the store lists: RocksDB reports its fallback name, tried last
			named: "000041.sst (RocksDB also looked for 000041.ldb)",
		},
		{
			// a read-only open beside the churn role (internal/faults TestChurn): the
			// open's consistency check found table files compacted away
			name: "table files vanished at the consistency check", dir: "/tmp/TestChurn3072961354/001/store-v3",
			msg: "Corruption: Can't access /000155.sst: IO error: No such file or directory: while stat a file for size: /tmp/TestChurn3072961354/001/store-v3/000155.sst: No such file or directory\n" +
				"Can't access /000153.sst: IO error: No such file or directory: while stat a file for size: /tmp/TestChurn3072961354/001/store-v3/000153.sst: No such file or directory\n",
			code: CodeCorruption, corrupt: true, vanished: true, file: "000155.sst",
		},
		{
			// the report from a read-only open beside a live writer
			name: "WAL file vanished", dir: "/var/lib/ankusa/store",
			msg:  "IO error: No such file or directory: While opening a file for sequentially reading: /var/lib/ankusa/store/000967.log: No such file or directory",
			code: CodeIOError, sub: SubPathNotFound, vanished: true, file: "000967.log",
		},
		{
			// a checkpoint of the fixture into a 100 KiB tmpfs
			name: "no space", dir: "/tmp/rt/s",
			msg:  "IO error: No space left on device: While appending to file: /tmp/rt/full/cp.tmp/000029.sst: No space left on device",
			code: CodeIOError, sub: SubNoSpace, noSpace: true, file: "000029.sst",
		},
		{
			// RocksDB 9.11 wraps the options file's write failure: a format 2 store migrated on
			// a full disk, at CreateColumnFamily (internal/faults TestMigrateENOSPCMidRun)
			name: "no space, wrapped", dir: "/tmp/rt/s",
			msg:  "IO error: Unable to persist options.: IO error: No space left on device: While appending to file: /tmp/rt/s/OPTIONS-000035.dbtmp: No space left on device",
			code: CodeIOError, sub: SubNone, noSpace: true,
		},
		{
			// a failed counters merge
			name: "merge failed", dir: "/tmp/s",
			msg:  "Corruption: Error: Could not perform merge.",
			code: CodeCorruption, corrupt: true,
		},
		{
			// ldb get of a missing key
			name: "not found", dir: "/tmp/rt/h",
			msg:  "NotFound: ",
			code: CodeNotFound, vanished: true,
		},
		{
			name: "not a status", dir: "/tmp/x",
			msg:  "rocks: store is closed (a lock was blocked)",
			code: CodeUnknown,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := ParseStatus(c.msg)
			if s.Code != c.code || s.Sub != c.sub {
				t.Errorf("code %d sub %d, want %d %d", s.Code, s.Sub, c.code, c.sub)
			}
			if s.Corrupt() != c.corrupt || s.NoSpace() != c.noSpace || s.Vanished() != c.vanished || s.LockHeld(c.dir) != c.lockHeld {
				t.Errorf("corrupt %v noSpace %v vanished %v lockHeld %v, want %v %v %v %v",
					s.Corrupt(), s.NoSpace(), s.Vanished(), s.LockHeld(c.dir), c.corrupt, c.noSpace, c.vanished, c.lockHeld)
			}
			if c.file != "" && s.File() != c.file {
				t.Errorf("file %q, want %q", s.File(), c.file)
			}
			err := error(&StatusError{Op: "open", Dir: c.dir, Status: s})
			if errors.Is(err, ErrCorrupt) != c.corrupt || errors.Is(err, ErrNoSpace) != c.noSpace {
				t.Errorf("errors.Is: corrupt %v noSpace %v", errors.Is(err, ErrCorrupt), errors.Is(err, ErrNoSpace))
			}
			if errors.Is(classifyOpenError(c.dir, ReadWrite, errors.New(c.msg)), ErrLocked) != c.lockHeld {
				t.Errorf("classifyOpenError: locked %v, want %v", !c.lockHeld, c.lockHeld)
			}
			if c.noSpace && !strings.HasPrefix(err.Error(), "no space left on device") {
				t.Errorf("message %q", err)
			}
			named := c.file
			if c.named != "" {
				named = c.named
			}
			if c.corrupt && c.file != "" && !strings.Contains(err.Error(), " in "+named) {
				t.Errorf("message %q does not name %s", err, named)
			}
			// What the damage is, then where: never a word of the file's place twice.
			ke := &KeyError{CF: "t", Key: []byte("k"), Corrupt: c.corrupt, Err: errors.New(c.msg)}
			for _, m := range []string{err.Error(), ke.Error()} {
				if strings.Contains(m, " in in ") || c.what != "" && !strings.Contains(m, ": "+c.what+" in "+c.file) {
					t.Errorf("message %q: want %q then the file", m, c.what)
				}
			}
		})
	}
}
