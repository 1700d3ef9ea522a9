package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/migration"
)

// A bulk dry run names where its joins' sorted runs go and how much they take: inside the
// store file system's figure when the temporary directory is on it, as a figure of its own
// on the temporary directory's file system when it is not, and not at all when the joins
// keep their runs in memory (a store of fewer than some 500,000 rows).
func TestMigrateDrySpaceNamesTheJoinsTemporaryDirectory(t *testing.T) {
	est := migration.SpaceEstimate{Migration: 900 << 20, Runs: 500 << 20, Tables: 250 << 20}
	for _, c := range []struct {
		name     string
		join     int64
		tmp      string
		tempElse int64
		want     []string
		not      []string
	}{
		{"in memory", 0, "", 0, []string{"in /s/ANKUSA-BULK-*)"}, []string{"joins"}},
		{"beside the store", 300 << 20, "/s-tmp", 0,
			[]string{"needs about 1.2 GiB on the store's file system (the bulk method's sorted runs, 500.0 MiB, beside the store's files, and its table files, 250.0 MiB, in /s/ANKUSA-BULK-*; its joins' sorted runs, 300.0 MiB, in /s-tmp)"}, nil},
		{"on another file system", 300 << 20, "/tmp", 300 << 20,
			[]string{"needs about 900.0 MiB on the store's file system (the bulk method's sorted runs, 500.0 MiB, beside the store's files, and its table files, 250.0 MiB, in /s/ANKUSA-BULK-*), 1.0 GiB free; and about 300.0 MiB in /tmp for its joins' sorted runs, 64.0 MiB free there"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := est
			e.JoinTemp = c.join
			need := migration.RunSpace{SpaceEstimate: e, Needed: e.Migration, TempDir: c.tmp, TempElsewhereBytes: c.tempElse}
			if c.join > 0 && c.tempElse == 0 {
				need.Needed += c.join
			}
			res := migrateResult{Store: "/s", DryRun: true, Method: methodBulk,
				Space: &migrateSpaceEstimate{RunSpace: need, FreeBytes: 1 << 30, Where: "/s", Staging: "/s/ANKUSA-BULK-*", Enough: true, TempFreeBytes: 64 << 20}}
			var space, plain string
			for _, l := range migrateLines(res) {
				if l.key == "space" {
					space, plain = l.text, l.plain
				}
			}
			// Piped, the line's fields: the joins' own check when it is apart.
			if wantTemp := c.tempElse > 0; strings.Contains(plain, "temp_needed_bytes=314572800 temp_free_bytes=67108864") != wantTemp {
				t.Errorf("the space line's fields %q: the joins' check apart %v", plain, wantTemp)
			}
			for _, w := range c.want {
				if !strings.Contains(space, w) {
					t.Errorf("the space line\n%s\nlacks\n%s", space, w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(space, n) {
					t.Errorf("the space line\n%s\nnames %q", space, n)
				}
			}
		})
	}
}

// status says the same of a store whose temporary directory is on another file system
// than the store: the joins' runs checked there, beside the store's figure.
func TestStatusNamesTheJoinsTemporaryDirectory(t *testing.T) {
	o := &statusOutput{Store: "/s", Upgrade: &statusUpgrade{NeedBytes: 900 << 20, NeedRule: statusNeedRule, TempElsewhereBytes: 300 << 20, TempDir: "/tmp"}}
	var disk string
	for _, r := range statusSummaryRows(o, time.Now()).Rows {
		if r[0].Plain == "disk for migrate" {
			disk = r[1].Plain
		}
	}
	if !strings.Contains(disk, "needs about 900.0 MiB (") || !strings.Contains(disk, "), and 300.0 MiB in /tmp for the joins' sorted runs") {
		t.Errorf("status's disk for migrate: %q", disk)
	}
}
