package rocks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/linxGnu/grocksdb"

	"github.com/ankusa/ankusa-store/internal/access"
	"github.com/ankusa/ankusa-store/internal/scratch"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// Mode is how a store is opened.
type Mode int

const (
	// ReadOnly takes no lock and writes nothing, so it works while the node
	// holds the store; it sees the store as of the open (WAL included).
	ReadOnly Mode = iota
	// Secondary follows a running primary: it keeps its own info log in a
	// separate directory and catches up with the primary on open.
	Secondary
	// ReadWrite takes the store's LOCK (ErrLocked if the node has it).
	ReadWrite
)

func (m Mode) String() string {
	switch m {
	case ReadOnly:
		return "read-only"
	case Secondary:
		return "secondary"
	case ReadWrite:
		return "read-write"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Options says how to open a store.
type Options struct {
	Mode Mode
	// RandomLookups says the reader looks keys up at random across whole families (the joins
	// of dlq's rows, a migration's dry run): every open table's index then stays on the heap
	// beside the block cache, as RocksDB keeps it by default, instead of in the cache
	// (blockcache.go). A lookup needs its table's index block, a megabyte for a 64 MiB
	// table: a bounded cache would read most of them again for most lookups.
	RandomLookups bool
	// LookupFamilies are the column families (by name) that a reader, in any mode, looks up
	// at random while it scans the others: their tables' index stays on the heap, as with
	// RandomLookups, and every other family's is in the block cache. A migration's steps look
	// up delivery rows (format.CFDeliveries) and scan the rest.
	LookupFamilies []string
	// SecondaryDir is where a Secondary instance keeps its files (its info log); empty
	// means a scratch directory in the system's temporary directory, removed on Close, or
	// by a later run if this one is killed (internal/scratch).
	SecondaryDir string
	// Create makes a new, empty store with the column families of
	// CreateFormat (0 means format.NewestFormat). Requires ReadWrite; the
	// directory must not hold a store already.
	Create       bool
	CreateFormat uint32
	// NewTables, with Create, is how the new store's tables are written (nil: the oldest
	// node's defaults, OldestNodeRule). An existing store opened ReadWrite is always written
	// by the rule ChooseWriteRule reads from it (writerule.go).
	NewTables *WriteRule
	// Tune holds bulk-write knobs for the migration and fixture builders.
	Tune Tuning
	// Families, when not nil (ReadOnly only), opens just these column families of the
	// store (and default, which RocksDB always opens), for a reader of a few: RocksDB's
	// recovery then puts only their part of the WAL into memory. A family the store lacks is
	// left out. The store's own list stays in DB.Listed.
	Families []string
	// SkipWAL (ReadOnly only) reads the store as its tables hold it, without the writes its
	// WAL holds since the last flush: RocksDB is pointed at an empty WAL directory, so the
	// open reads none of the WAL, whatever its size. For a reader that must be quick more
	// than complete (completion); it says so to its user.
	SkipWAL bool
}

// Tuning holds bulk-write knobs. The zero value is the node's configuration.
// The counters family keeps what the contract pins (its 1 MiB write buffer,
// no compression and the merge operator); only the L0 triggers, which the
// contract leaves to RocksDB, apply to it too.
type Tuning struct {
	// WriteBufferSize, when > 0, replaces the write buffer size of every
	// family except counters (the index family's 16 MiB included).
	WriteBufferSize uint64
	// MaxWriteBufferNumber, when > 0, sets how many memtables a family
	// (except counters) may hold before writes stall.
	MaxWriteBufferNumber int
	// DisableAutoCompactions turns background compactions off in every
	// family; the caller compacts (CompactRange) when it is done.
	DisableAutoCompactions bool
	// Parallelism, when > 0, sizes RocksDB's background thread pools.
	Parallelism int
	// MaxTotalWALSize, when > 0, makes RocksDB flush the families that pin the oldest WAL
	// file once the WAL grows past it. Without it a family written rarely (audit, quarantine)
	// keeps every WAL file alive, and a bulk-written store is left with hundreds of MiB of
	// WAL that every later open must replay into memory.
	MaxTotalWALSize uint64
	// L0SlowdownTrigger and L0StopTrigger, when > 0, set every family's
	// level0_slowdown_writes_trigger and level0_stop_writes_trigger (RocksDB:
	// 20 and 36). The counters family's 1 MiB memtable flushes every few
	// migration steps, and at 10^7 rows compaction fell behind those small
	// files: 79 s of write stalls, all in counters (see bench/scale_bench.sh).
	L0SlowdownTrigger, L0StopTrigger int
	// L0CompactionTrigger, when > 0, sets every family's
	// level0_file_num_compaction_trigger (RocksDB: 4).
	L0CompactionTrigger int
	// TargetFileSize, when > 0, sets every family's target_file_size_base (RocksDB: 64 MiB):
	// a test compacts a small store into many table files with it, as a node's store of
	// some GiB is laid out.
	TargetFileSize uint64
	// CountersWriteBuffers, when > 0, is how many memtables counters may
	// hold (RocksDB: 2; the contract pins only their 1 MiB size). A
	// migration fills one every few steps, faster than a flush empties it:
	// at 10^7 rows, 54 stops "because we have 2 immutable memtables", 6.6 s.
	CountersWriteBuffers int
	// CountersFlushMerge, when > 1, is how many of counters' memtables a flush waits for and
	// writes as one table (min_write_buffer_number_to_merge; CountersWriteBuffers must allow
	// them).
	CountersFlushMerge int
	// BlockCacheBytes, when > 0, sizes the store's one block cache (blockcache.go; 32 MiB
	// otherwise).
	BlockCacheBytes uint64
	// Statistics turns RocksDB's statistics on (a few percent of CPU), for
	// Statistics(): benchmarks say where the time goes with them.
	Statistics bool
}

// BulkTuning is the Tuning used for migration steps and fixture builds: big
// memtables, several of them, more background threads.
var BulkTuning = Tuning{WriteBufferSize: 128 << 20, MaxWriteBufferNumber: 4, Parallelism: 4}

// DB is an open store: every column family open, counters with the merge
// operator. It is safe for concurrent use; Close waits for running calls.
type DB struct {
	mu     sync.RWMutex // read-held by every call using the C handles, write-held by Close
	closed bool

	db    *grocksdb.DB
	cdb   unsafe.Pointer // rocksdb_t*
	dir   string
	mode  Mode
	merge *mergeOperator

	names  []string // families in the order RocksDB listed them
	listed []string // the store's families, open or not (Options.Families)
	cfs    map[string]*family

	dbOpts *grocksdb.Options
	cfOpts []*grocksdb.Options // parallel to the families; kept alive until after close
	tune   Tuning
	cache  *grocksdb.Cache // the families' one block cache (blockcache.go); freed with the options
	// indexOnHeap: the tables' index and filter blocks are left out of the cache in every
	// family (Options.RandomLookups), lookupFamilies in these (Options.LookupFamilies).
	indexOnHeap    bool
	lookupFamilies []string
	rule           WriteRule // ReadWrite only: how new tables are written
	// stashed: a ReadWrite open of an existing store, whose OPTIONS files are in its stash
	// until Close puts them back (optionsfile.go).
	stashed bool
	// opened: RocksDB's open of the stashed store succeeded, so the OPTIONS files the stash
	// lacks at Close are this tool's.
	opened bool
	// lock: the store's LOCK as this process took it before the stash (storelock.go), kept
	// until the stash is back.
	lock *storeLock
	// createdStore: the open created the store, which is left with its rule's node's OPTIONS
	// file (WriteRule.Node; none without one: nodeoptions.go).
	createdStore bool
	secDir       string
	secTmp       *scratch.Dir // the secondary directory this DB made, removed on Close
	walTmp       *scratch.Dir // the empty WAL directory of a SkipWAL open, removed on Close

	onWrite func(ops int, sync bool) // ObserveWrites

	// iters counts the iterators opened (Iterators).
	iters atomic.Int64
}

type family struct {
	name string
	h    *grocksdb.ColumnFamilyHandle
	c    unsafe.Pointer // rocksdb_column_family_handle_t*
	opts *grocksdb.Options
}

// ListFamilies lists the column families of the store in dir without opening
// it (it reads CURRENT and the MANIFEST; nothing is written). A MANIFEST that a live
// writer replaced between CURRENT and its read is read again.
func ListFamilies(dir string) ([]string, error) {
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	if err := checkAccess(dir, false); err != nil {
		return nil, err
	}
	var names []string
	err := retryVanished(func() (err error) {
		names, err = listFamilies(dir)
		return err
	}, retryPause)
	return names, err
}

func listFamilies(dir string) ([]string, error) {
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	names, err := grocksdb.ListColumnFamilies(opts, dir)
	if err != nil {
		st := statusOf(err)
		if st.Corrupt() || st.Vanished() {
			return nil, &StatusError{Op: "list column families", Dir: dir, Status: st}
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrNotStore, dir, err)
	}
	return names, nil
}

// checkDir refuses a missing directory or one without CURRENT before RocksDB
// sees it, so that nothing is ever created there by accident.
func checkDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return access.Check(err, dir, false)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s does not exist", ErrNotStore, dir)
		}
		// The system's reason, without the call that met it (stat, lstat: how, not what).
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%w: %s: %v", ErrNotStore, dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%w: %s: not a directory", ErrNotStore, dir)
	}
	if _, err := os.Stat(dir + "/CURRENT"); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return access.Check(err, dir+"/CURRENT", false)
		}
		return fmt.Errorf("%w: %s: not a RocksDB directory (no CURRENT file)", ErrNotStore, dir)
	}
	return nil
}

// Open opens the RocksDB store in dir with all its column families. It does
// not check the store's format: see OpenStore.
//
// Before RocksDB sees the store: a read-write open probes the LOCK (lockprobe.go), so that a
// store a node holds is refused with nothing changed; every open checks the table files'
// metaindex and properties blocks (tablecheck.go), which RocksDB parses before it checks them.
// A read-only or secondary open that fails because a file RocksDB listed vanished before it
// opened it (a live writer's flush or compaction deleted it) is tried again, a bounded number
// of times: that is a live store, not a damaged one.
func Open(dir string, o Options) (*DB, error) {
	if err := checkCPU(); err != nil {
		return nil, err
	}
	if !o.Create {
		// Before the LOCK is probed: the probe opens it, and a LOCK this user may not read
		// is the store's permissions, not a node holding it.
		if err := checkDir(dir); err != nil {
			return nil, err
		}
		// Before anything opens a file of the store: a fifo would block that open forever.
		if err := checkFileKinds(dir); err != nil {
			return nil, err
		}
		if err := checkAccess(dir, o.Mode == ReadWrite); err != nil {
			return nil, err
		}
	}
	if o.Mode == ReadWrite {
		if _, err := os.Stat(dir); err == nil || !o.Create {
			if err := probeLock(dir); err != nil {
				return nil, err
			}
		}
	}
	if o.Mode == ReadWrite {
		return openOnce(dir, o)
	}
	var d *DB
	err := retryVanished(func() (err error) {
		d, err = openOnce(dir, o)
		return err
	}, retryPause)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// openRetries bounds how many times a read-only open is tried while files vanish under it:
// attempts, not seconds. Each attempt lists the store afresh, and a live writer commits the
// MANIFEST that drops a file before it deletes the file, so no listing names a file that
// vanished before it: a file reported missing a second time, on any attempt, is missing
// (damage, reported then; with several files gone, by the time each was reported once). A
// writer flushing and compacting without pause (internal/faults TestChurn) makes each
// attempt miss another file, and only the bound ends that. It was 10 seconds: a machine
// busy enough slows the attempts more than the writer, and four of 720 read-only opens beside
// TestChurn's writer ran out of them while RocksDB compiled beside the test. Each attempt
// that fails on a new file is the writer's progress, not damage, whatever the clock says.
// At most the bound's pauses add up to some 20 s.
const openRetries = 1000

// retryPause waits before attempt number attempt+1: longer the more attempts failed, so
// that a writer in the middle of deleting several files can finish.
func retryPause(attempt int) { time.Sleep(time.Duration(min(attempt, 20)) * time.Millisecond) }

// retryVanished runs open until it succeeds, fails for another reason than a vanished file,
// fails on a file it failed on before, or has failed openRetries times; pause waits between
// attempts (retryPause).
func retryVanished(open func() error, pause func(attempt int)) error {
	seen := map[string]bool{}
	for attempt := 1; ; attempt++ {
		err := open()
		if err == nil || !vanished(err) {
			return err
		}
		msg := err.Error()
		if seen[msg] || attempt >= openRetries {
			return err
		}
		seen[msg] = true
		pause(attempt)
	}
}

// vanished reports whether an open failed because a file it listed was gone.
func vanished(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status.Vanished()
}

func openOnce(dir string, o Options) (*DB, error) {
	var names []string
	if o.Create {
		if o.Mode != ReadWrite {
			return nil, fmt.Errorf("rocks: creating a store needs ReadWrite, not %v", o.Mode)
		}
		// Refused here rather than with error_if_exists: RocksDB records that option in the
		// store's OPTIONS file, and ldb (our independent reader) then refuses to open the store.
		if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err == nil {
			return nil, fmt.Errorf("rocks: %s already holds a store", dir)
		}
		f := o.CreateFormat
		if f == 0 {
			f = format.NewestFormat
		}
		switch f {
		case format.Format2:
			names = slices.Clone(format.FamiliesV2)
		case format.Format3:
			names = slices.Clone(format.FamiliesV3)
		default:
			return nil, fmt.Errorf("rocks: cannot create a store of format %d", f)
		}
	} else {
		var err error
		if names, err = listFamilies(dir); err != nil {
			return nil, err
		}
		if err := checkTables(dir); err != nil {
			return nil, err
		}
	}
	listed := slices.Clone(names)
	if o.SkipWAL && o.Mode != ReadOnly {
		return nil, fmt.Errorf("rocks: opening without the WAL is for ReadOnly, not %v", o.Mode)
	}
	if o.Families != nil {
		if o.Mode != ReadOnly {
			return nil, fmt.Errorf("rocks: opening some column families only is for ReadOnly, not %v", o.Mode)
		}
		names = slices.DeleteFunc(names, func(n string) bool { return n != format.CFDefault && !slices.Contains(o.Families, n) })
	}

	d := &DB{dir: dir, mode: o.Mode, merge: &mergeOperator{}, tune: o.Tune, cfs: map[string]*family{}, createdStore: o.Create,
		indexOnHeap: o.RandomLookups, lookupFamilies: o.LookupFamilies}
	if o.Mode == ReadWrite {
		switch {
		case o.Create && o.NewTables != nil:
			d.rule = *o.NewTables
		case o.Create:
			d.rule = OldestNodeRule("a new store")
		default:
			rule, err := ChooseWriteRule(dir)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrNotStore, dir, err)
			}
			d.rule = rule
			// The node's OPTIONS files, kept before RocksDB writes its own and drops the
			// oldest (optionsfile.go); a killed run's stash is put back first. Under the
			// store's LOCK, taken here and held on through RocksDB's open (storelock.go): a
			// node that took the store since the probe gets nothing written into it, and
			// none takes it between the stash and the open.
			// On a read-only file system nothing can be written, RocksDB's open included,
			// which then says so in its own words: no stash is needed there.
			// A stash the tool cannot show it made is refused first, before the lock
			// creates a LOCK file in a store that has none: a refused open writes nothing.
			err = ForeignStash(dir)
			var lk *storeLock
			if err == nil {
				lk, err = lockStore(dir)
			}
			if err == nil {
				err = stashOptions(dir)
			}
			if err != nil && !errors.Is(err, syscall.EROFS) {
				lk.Unlock()
				var foreign *ForeignStashError
				if errors.As(err, &foreign) || errors.Is(err, ErrLocked) {
					return nil, fmt.Errorf("rocks: %s: %w", dir, err)
				}
				return nil, fmt.Errorf("rocks: %s: keeping the node's OPTIONS files: %w", dir, err)
			} else if err == nil {
				d.stashed, d.lock = true, lk
				// A node starting now is refused by the lock (the fault suite stops the run
				// here, OptionsPauseStashed, to start one).
				optionsPauseAt(OptionsPauseStashed)
			} else {
				lk.Unlock()
			}
		}
	}
	d.dbOpts = d.newDBOptions(o)
	d.cache = newBlockCache(o.Tune.BlockCacheBytes)
	d.cfOpts = make([]*grocksdb.Options, len(names))
	for i, n := range names {
		d.cfOpts[i] = d.familyOptions(n)
	}

	var (
		db      *grocksdb.DB
		handles []*grocksdb.ColumnFamilyHandle
		err     error
	)
	switch o.Mode {
	case ReadOnly:
		if o.SkipWAL {
			if d.walTmp, err = scratch.Temp("nowal", "the empty WAL directory of a read of "+dir+" without its WAL"); err != nil {
				d.freeOptions()
				return nil, err
			}
			d.dbOpts.SetWalDir(d.walTmp.Path)
		}
		// A cleanly closed node store still has a WAL file: it must not be
		// an error. Read-only takes no LOCK and writes no file.
		db, handles, err = grocksdb.OpenDbForReadOnlyColumnFamilies(d.dbOpts, dir, names, d.cfOpts, false)
	case Secondary:
		d.secDir = o.SecondaryDir
		if d.secDir == "" {
			// A scratch directory: a run killed before Close leaves it to the next run to remove.
			if d.secTmp, err = scratch.Temp("secondary", "the info log of a secondary instance of "+dir); err != nil {
				d.freeOptions()
				return nil, err
			}
			d.secDir = d.secTmp.Path
		}
		db, handles, err = grocksdb.OpenDbAsSecondaryColumnFamilies(d.dbOpts, dir, d.secDir, names, d.cfOpts)
		if err == nil {
			if cerr := db.TryCatchUpWithPrimary(); cerr != nil {
				err = cerr
				for _, h := range handles {
					h.Destroy()
				}
				db.Close()
			}
		}
	case ReadWrite:
		db, handles, err = grocksdb.OpenDbColumnFamilies(d.dbOpts, dir, names, d.cfOpts)
	default:
		err = fmt.Errorf("unknown mode %d", int(o.Mode))
	}
	if err != nil {
		d.freeOptions()
		d.removeSecondaryDir()
		if d.stashed {
			// RocksDB's failed open dropped the lock (it closed its LOCK descriptor): put
			// back only if it is this process's again; else the stash (never marked OPENED)
			// is the next run's, which removes it without touching the store's files.
			d.lock.putBack(dir, false, nil)
		}
		if key, n := d.merge.failure(); n > 0 {
			// WAL recovery flushes memtables, merging counters on the way.
			return nil, &KeyError{CF: format.CFCounters, Key: key, Corrupt: true,
				Err: fmt.Errorf("merge failed while opening %s (WAL recovery): %v", dir, err)}
		}
		if !o.Create {
			// A file RocksDB could not read for want of permission (changed since
			// checkAccess looked): its own message rather than a plain I/O error.
			if aerr := checkAccess(dir, o.Mode == ReadWrite); aerr != nil {
				return nil, aerr
			}
		}
		return nil, classifyOpenError(dir, o.Mode, err)
	}
	d.db = db
	d.cdb = dbPtr(db)
	d.names, d.listed = names, listed
	for i, n := range names {
		d.cfs[n] = &family{name: n, h: handles[i], c: cfPtr(handles[i]), opts: d.cfOpts[i]}
	}
	if o.Mode == ReadWrite {
		markHeld(dir, true)
		if d.stashed {
			// RocksDB holds the LOCK now, and may have written its OPTIONS file: from here
			// the store's OPTIONS files the stash lacks are this tool's (optionsstash.go).
			// The close knows it (opened); a run killed before it, from the mark.
			d.opened = true
			if err := markStashOpened(dir); err != nil {
				d.Close()
				return nil, fmt.Errorf("rocks: %s: marking the stash of the node's OPTIONS files: %w", dir, err)
			}
		}
	}
	return d, nil
}

// putBack puts back dir's stash (restoreOptions; opened: this process's RocksDB opened the
// store) and, when families is set, describes them in the node's newest OPTIONS file, only
// once this process holds the store's LOCK again (RocksDB's close of its descriptor dropped
// it); a store another process took meanwhile is left as it is, its stash the next run's.
// The lock is released after.
func (l *storeLock) putBack(dir string, opened bool, families []string) {
	defer l.Unlock()
	if l == nil || l.Relock() != nil {
		return
	}
	if restoreOptions(dir, opened) == nil && families != nil {
		_ = describeFamilies(dir, families)
	}
}

// classifyOpenError classifies a failed open by RocksDB's status: the LOCK of this store held
// is ErrLocked (only possible if a node took it after probeLock looked); everything else is a
// *StatusError (ErrCorrupt for Corruption, ErrNoSpace for NoSpace).
func classifyOpenError(dir string, mode Mode, err error) error {
	st := statusOf(err)
	if mode == ReadWrite && st.LockHeld(dir) {
		return fmt.Errorf("%w: %s: %v", ErrLocked, dir, err)
	}
	return &StatusError{Op: "open " + mode.String(), Dir: dir, Status: st, Files: suspectFiles(dir, st)}
}

func (d *DB) newDBOptions(o Options) *grocksdb.Options {
	opts := grocksdb.NewDefaultOptions()
	if o.Create {
		opts.SetCreateIfMissing(true)
		opts.SetCreateIfMissingColumnFamilies(true)
	} else {
		// A missing store must not be created.
		opts.SetCreateIfMissing(false)
	}
	if o.Mode != ReadWrite {
		// Every table file is opened while the DB opens and kept open: a live writer may
		// delete them under a read-only or secondary instance (a secondary needs it).
		opts.SetMaxOpenFiles(-1)
	}
	// Check what RocksDB can check at open (every table file's footer and size against the
	// MANIFEST, for a start), and fail rather than go on past a damaged file.
	opts.SetParanoidChecks(true)
	// A WAL whose last record is torn (a crash mid-append, or a live writer appending while a
	// reader replays it) is recovered up to that record, by design; a damaged record before
	// the end is an error. RocksDB's default (point in time) stops at the damage and silently
	// drops every later write: a read-only command would report a healthy, older store, and a
	// migration would build on it.
	opts.SetWALRecoveryMode(grocksdb.TolerateCorruptedTailRecordsRecovery)
	if o.Mode == ReadWrite {
		// A write can fill the disk: RocksDB's own info log would abort the process then.
		setDroppingInfoLog(opts, d.dir)
	}
	if o.Tune.MaxTotalWALSize > 0 {
		opts.SetMaxTotalWalSize(o.Tune.MaxTotalWALSize)
	}
	if o.Tune.Parallelism > 0 {
		opts.IncreaseParallelism(o.Tune.Parallelism)
	}
	if o.Tune.Statistics {
		opts.EnableStatistics()
	}
	return opts
}

// IndexOnHeap reports whether family cf's tables keep their index and filter
// blocks on the heap, outside the block cache (Options.RandomLookups,
// Options.LookupFamilies).
func (d *DB) IndexOnHeap(cf string) bool {
	return d.indexOnHeap || slices.Contains(d.lookupFamilies, cf)
}

// familyOptions returns the options for one column family. counters always
// gets the merge operator: reading a merge key through a family opened without
// it fails every read of that key (an assertion build aborts). A read-write
// open writes the family's tables as the write rule says; every open reads
// them through the store's one block cache (blockcache.go).
func (d *DB) familyOptions(name string) *grocksdb.Options {
	opts := grocksdb.NewDefaultOptions()
	onHeap := d.IndexOnHeap(name)
	if d.mode == ReadWrite {
		d.rule.For(name).apply(opts, d.cache, onHeap)
	} else {
		setTableFactory(opts, tableOptions(d.cache, onHeap))
	}
	t := d.tune
	if t.DisableAutoCompactions {
		opts.SetDisableAutoCompactions(true)
	}
	if t.L0SlowdownTrigger > 0 {
		opts.SetLevel0SlowdownWritesTrigger(t.L0SlowdownTrigger)
	}
	if t.L0StopTrigger > 0 {
		opts.SetLevel0StopWritesTrigger(t.L0StopTrigger)
	}
	if t.L0CompactionTrigger > 0 {
		opts.SetLevel0FileNumCompactionTrigger(t.L0CompactionTrigger)
	}
	if t.TargetFileSize > 0 {
		opts.SetTargetFileSizeBase(t.TargetFileSize)
	}
	switch name {
	case format.CFCounters:
		opts.SetMergeOperator(d.merge)
		opts.SetWriteBufferSize(format.CountersWriteBuffer)
		opts.SetCompression(grocksdb.NoCompression) // the contract's, in every mode
		if t.CountersWriteBuffers > 0 {
			opts.SetMaxWriteBufferNumber(t.CountersWriteBuffers)
		}
		if t.CountersFlushMerge > 1 {
			opts.SetMinWriteBufferNumberToMerge(t.CountersFlushMerge)
		}
		return opts
	case format.CFIndex:
		opts.SetWriteBufferSize(format.IndexWriteBuffer)
	}
	if t.WriteBufferSize > 0 {
		opts.SetWriteBufferSize(t.WriteBufferSize)
	}
	if t.MaxWriteBufferNumber > 0 {
		opts.SetMaxWriteBufferNumber(t.MaxWriteBufferNumber)
	}
	return opts
}

// Close closes the store: column family handles first (closing the DB before
// them aborts the process), then the DB, then the options. Idempotent.
func (d *DB) Close() (err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	for _, n := range d.names {
		d.cfs[n].h.Destroy()
	}
	d.db.Close()
	if d.mode == ReadWrite {
		markHeld(d.dir, false)
		// The store's OPTIONS files as the node left them (optionsfile.go); a store the tool
		// created is left with none.
		switch {
		case d.stashed:
			// RocksDB dropped its lock with the close: the LOCK is taken again for the
			// put-back, and a node that took it first gets nothing written; the stash left
			// is put back by the next open (or PutBackNodeOptions), which describes the
			// families then. Every family of the store is described, not only those this
			// open created: a killed run's may have created them.
			optionsPauseAt(OptionsPauseClosed)
			d.lock.putBack(d.dir, d.opened, d.names)
			d.lock = nil
		case d.createdStore:
			err = leaveNodeOptions(d.dir, d.rule, d.names)
		}
	}
	d.freeOptions()
	d.removeSecondaryDir()
	return err
}

// freeOptions frees the options once nothing uses them. Options holding the
// Go merge operator own it through a shared_ptr; grocksdb's Destroy would
// free it a second time, so those are freed with rocksdb_options_destroy only.
func (d *DB) freeOptions() {
	for _, o := range d.cfOpts {
		destroyOptions(o)
	}
	d.cfOpts = nil
	if d.dbOpts != nil {
		destroyOptions(d.dbOpts)
		d.dbOpts = nil
	}
	if d.cache != nil {
		d.cache.Destroy() // the families' table factories hold it until they go
		d.cache = nil
	}
}

func (d *DB) removeSecondaryDir() {
	d.secTmp.Remove()
	d.secTmp = nil
	d.walTmp.Remove()
	d.walTmp = nil
}

// Dir is the store's directory.
func (d *DB) Dir() string { return d.dir }

// Statistics returns RocksDB's statistics dump ("" unless opened with
// Tuning.Statistics).
func (d *DB) Statistics() string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed || !d.tune.Statistics {
		return ""
	}
	return d.dbOpts.GetStatisticsString()
}

// Mode is how the store was opened.
func (d *DB) Mode() Mode { return d.mode }

// WriteRule is how a ReadWrite store writes its tables (the zero rule otherwise).
func (d *DB) WriteRule() WriteRule { return d.rule }

// HasFamily reports whether the column family is open.
func (d *DB) HasFamily(name string) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	_, ok := d.cfs[name]
	return ok
}

// Families lists the open column families, in RocksDB's order.
func (d *DB) Families() []string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return slices.Clone(d.names)
}

// Listed lists the column families of the store, open or not (Options.Families), in
// RocksDB's order.
func (d *DB) Listed() []string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return slices.Clone(d.listed)
}

// CreateFamily creates a column family with its contract options.
func (d *DB) CreateFamily(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if d.mode != ReadWrite {
		return ErrReadOnly
	}
	if _, ok := d.cfs[name]; ok {
		return fmt.Errorf("rocks: column family %s already exists", name)
	}
	opts := d.familyOptions(name)
	h, err := d.db.CreateColumnFamily(opts, name)
	if err != nil {
		destroyOptions(opts)
		return fmt.Errorf("rocks: create column family %s: %w", name, d.wrapStatus(err))
	}
	d.cfOpts = append(d.cfOpts, opts)
	d.names = append(d.names, name)
	d.listed = append(d.listed, name)
	d.cfs[name] = &family{name: name, h: h, c: cfPtr(h), opts: opts}
	return nil
}

// cf returns the open family named name; the caller holds d.mu.
func (d *DB) cf(name string) (*family, error) {
	if d.closed {
		return nil, ErrClosed
	}
	f, ok := d.cfs[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoFamily, name)
	}
	return f, nil
}
