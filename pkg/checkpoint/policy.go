package checkpoint

import (
	"fmt"
	"os"
	"time"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Policy is, as one value, the checkpoint a command that writes to a store takes before its
// first write: where it goes (or that none is taken), and the marker it gets once taken. cmd
// builds it once from the flags (MigrationPolicy and Resolve, RepairPolicy) and hands it to
// migration or health, which take it (Take) and mark it (Mark) between the checkpoint and the
// first write: the lower package never calls back into cmd to have its checkpoint marked.
type Policy struct {
	// Store is the store the checkpoint is taken of.
	Store string
	// Dir is where this run takes its checkpoint; "" takes none.
	Dir string
	// By is the command that takes it (ByMigrate, ByRepair): the marker Mark writes.
	By string

	// Given (migrate) is --backup DIR as given; None, --no-backup.
	Given string
	None  bool
	// Kept (migrate, after Resolve) is Given when it is the checkpoint an earlier run of this
	// migration took: this run keeps it as its own and takes none.
	Kept string
	// Earlier (migrate, resuming without --backup, after Resolve) is the checkpoint the first
	// run took, found at Default or in the store's record; "" when neither holds it.
	Earlier string
	// Default (migrate, resuming without --backup) is the default place Resolve looked at.
	Default string

	// Now (repair) is the clock a repair's marker takes its time from when Mark writes it
	// (nil: time.Now).
	Now func() time.Time
}

// untouched is what a refusal before the first write says of the store.
const untouched = "nothing was written, the store is untouched"

// MigrationPolicy is migrate's policy from its flags: --backup DIR (given: its place is
// checked now, before the store is opened) or --no-backup. Resolve completes it once the
// store's state is read.
func MigrationPolicy(store, backup string, noBackup bool) (Policy, error) {
	p := Policy{Store: store, By: ByMigrate, Given: backup, None: noBackup}
	if backup != "" {
		if err := CheckDir("--backup", backup, untouched); err != nil {
			return p, err
		}
	}
	return p, nil
}

// Resolve is the policy for a store in the state read: migrating (a migration started at
// start is mid-way) or not (one starting now). A given --backup that is this migration's
// checkpoint already is kept (Kept), one that is another's is Refused; a resumed run without
// --backup takes none (a second one would hold a half-moved store) and names the first run's
// (Earlier); a new run without --backup takes one at the default place, BackupName, which must
// not exist and whose directory is checked.
func (p Policy) Resolve(migrating bool, start, now time.Time) (Policy, error) {
	switch {
	case p.None:
	case p.Given != "":
		own, err := OwnBackup(p.Given, p.Store, migrating, start)
		if err != nil {
			return p, &Refused{err}
		}
		if own {
			p.Kept = p.Given
		} else {
			p.Dir = p.Given
		}
	case migrating:
		p.Default = BackupName(p.Store, start)
		if own, _ := OwnBackup(p.Default, p.Store, true, start); own {
			p.Earlier = p.Default
		} else {
			p.Earlier = RecordedBackup(p.Store, start)
		}
	default:
		p.Dir = BackupName(p.Store, now)
		if _, err := os.Lstat(p.Dir); err == nil {
			return p, &Refused{fmt.Errorf("backup directory %s exists; move it away, or give --backup DIR or --no-backup", p.Dir)}
		}
		if err := CheckDir("the checkpoint", p.Dir, untouched+" (give --backup DIR elsewhere, or --no-backup)"); err != nil {
			return p, err
		}
	}
	return p, nil
}

// RepairPolicy is counters verify --repair's policy: its checkpoint at dir (PlaceRepair's
// choice), marked with the time now says when Mark writes it.
func RepairPolicy(store, dir string, now func() time.Time) Policy {
	return Policy{Store: store, Dir: dir, By: ByRepair, Now: now}
}

// Holds is the checkpoint that holds the store as it was before this migration: the one this
// run takes, the one it keeps, or the one an earlier run took; "" when there is none.
func (p Policy) Holds() string {
	switch {
	case p.Dir != "":
		return p.Dir
	case p.Kept != "":
		return p.Kept
	}
	return p.Earlier
}

// Take takes the checkpoint of st at Dir (Take); the caller marks it before its first write.
func (p Policy) Take(st *rocks.Store) error { return Take(st, p.Dir) }

// Mark writes the marker into the checkpoint just taken at Dir and records it in the store:
// migrate's names the migration started at start; a repair's, the time Now says (start is
// not a repair's). A policy no constructor made (no By) marks nothing and says so: an
// unmarked checkpoint is one checkpoints rm may never remove and status never finds.
func (p Policy) Mark(start time.Time) error {
	switch p.By {
	case ByMigrate:
		return MarkMigration(p.Dir, p.Store, start)
	case ByRepair:
		now := time.Now
		if p.Now != nil {
			now = p.Now
		}
		return MarkRepair(p.Dir, p.Store, now())
	}
	return fmt.Errorf("the checkpoint %s: no command named to mark it as taken by", p.Dir)
}

// Adopt marks the kept checkpoint (Kept) as the one of the migration starting at start: its
// first run stopped between the checkpoint and its first write, so the store is as it holds.
func (p Policy) Adopt(start time.Time) error {
	if p.Kept == "" {
		return nil
	}
	return MarkMigration(p.Kept, p.Store, start)
}
