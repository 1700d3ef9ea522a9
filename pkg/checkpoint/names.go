package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The kinds of checkpoint this tool takes, as Checkpoint.Kind names them.
const (
	KindBackup    = "backup"     // migrate's
	KindPreRepair = "pre-repair" // counters verify --repair's
	KindRecorded  = "recorded"   // in the store's record, with no marker saying which
)

// The commands that take them, as a marker, the record and Checkpoint.TakenBy name them.
const (
	ByMigrate = "migrate"
	ByRepair  = "counters verify --repair"
)

// kinds are the name rules of the checkpoints this tool takes, with the time layouts their
// names carry: BackupName and PreRepairName make them, ParseName reads them.
var kinds = []struct {
	kind, infix, layout string
}{
	{KindBackup, ".backup-", "20060102T150405.000Z"},
	{KindPreRepair, ".pre-repair-", "20060102T150405Z"},
}

// BackupName is migrate's checkpoint's default home: beside the store, named after it and
// the migration's start time, so that it sorts with the store and says when it was taken.
func BackupName(store string, start time.Time) string {
	clean := filepath.Clean(store)
	return filepath.Join(filepath.Dir(clean), filepath.Base(clean)+kinds[0].infix+start.UTC().Format(kinds[0].layout))
}

// PreRepairName is a repair's checkpoint's default home: STORE.pre-repair-<now>, with a -2,
// -3... suffix when a repair in the same second took that name.
func PreRepairName(store string, now time.Time) string {
	base := filepath.Clean(store) + kinds[1].infix + now.UTC().Format(kinds[1].layout)
	cp := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(cp); err != nil {
			return cp
		}
		cp = fmt.Sprintf("%s-%d", base, i)
	}
}

// ParseName reports whether path is named by a checkpoint name rule (STORE.backup-<time>,
// STORE.pre-repair-<time>[-N]), and of which store.
func ParseName(path string) (store, kind string, ok bool) {
	clean := filepath.Clean(path)
	dir, base := filepath.Dir(clean), filepath.Base(clean)
	for _, k := range kinds {
		if i := strings.LastIndex(base, k.infix); i > 0 {
			rest := base[i+len(k.infix):]
			if _, err := time.Parse(k.layout, rest); err != nil {
				if j := strings.LastIndex(rest, "-"); j < 0 {
					continue
				} else if _, err := time.Parse(k.layout, rest[:j]); err != nil {
					continue
				}
			}
			return filepath.Join(dir, base[:i]), k.kind, true
		}
	}
	return "", "", false
}

// Abs is path made absolute and clean, as a marker and the record write a path (path itself,
// cleaned, when the working directory is unknown).
func Abs(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return filepath.Clean(abs)
	}
	return filepath.Clean(path)
}
