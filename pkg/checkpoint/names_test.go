package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Each name the tool makes is read back by ParseName as the same store's and kind: the maker
// beside its parser, so the two cannot drift (status, ls, rm and completion find by the
// parse what migrate and repair named).
func TestNamesParseBack(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "var", "store")
	at := time.Date(2026, 11, 30, 10, 0, 0, 123e6, time.FixedZone("x", 3600))

	backup := BackupName(store+"/", at)
	if backup != store+".backup-20261130T090000.123Z" {
		t.Fatalf("BackupName = %s", backup)
	}
	repair := PreRepairName(store, at)
	if repair != store+".pre-repair-20261130T090000Z" {
		t.Fatalf("PreRepairName = %s", repair)
	}
	// A repair in the same second takes the next free suffix.
	if err := os.MkdirAll(repair, 0o755); err != nil {
		t.Fatal(err)
	}
	second := PreRepairName(store, at)
	if second != repair+"-2" {
		t.Fatalf("PreRepairName with %s taken = %s", repair, second)
	}
	for _, tc := range []struct{ name, kind string }{{backup, KindBackup}, {repair, KindPreRepair}, {second, KindPreRepair}} {
		s, kind, ok := ParseName(tc.name)
		if !ok || s != store || kind != tc.kind {
			t.Errorf("ParseName(%s) = %s, %s, %v; want %s, %s", tc.name, s, kind, ok, store, tc.kind)
		}
	}
}
