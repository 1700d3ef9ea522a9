package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStatusSeesInterruptedBackup is issue 21's first case: the runbook's migrate
// --backup DIR, killed mid-migration, then status: it names that checkpoint as the
// migration's (found from the store's record, by the marker naming this migration), lists
// it among the store's checkpoints, and the metrics file counts it; checkpoints ls says it
// opens, as the format 2 store it was.
func TestStatusSeesInterruptedBackup(t *testing.T) {
	dir := t.TempDir()
	store := genStoreV2(t, dir, 8000)
	backup := filepath.Join(t.TempDir(), "x", "hm1.pre-v3")
	if err := os.MkdirAll(filepath.Dir(backup), 0o755); err != nil {
		t.Fatal(err)
	}
	// The steps' run, killed mid-way (auto would run bulk, which leaves no WAL to wait for).
	c, done, res := started(t, "migrate", "--method", "steps", "--backup", backup, "--now", migNow, store)
	waitFile(t, c, done, filepath.Join(backup, "ANKUSA-MIGRATION-CHECKPOINT"))
	waitUntil(t, done, func() string { return fmt.Sprintf("the migration ended before the test could kill it: %s", res) },
		func() bool { return walBytes(store) >= 40<<10 })
	c.Process.Kill()
	<-done

	prom := filepath.Join(dir, "status.prom")
	r := run(t, "status", "--metrics-file", prom, store)
	expectOut(t, r, 0, "migration checkpoint\t"+backup+"\n", "checkpoint\tpath="+backup+" kind=backup taken_at=2026-11-30T10:00:00.000Z ")
	if strings.Contains(r.Stdout, "not found") {
		t.Fatalf("status does not find the --backup:\n%s", r)
	}
	if m := readFile(t, prom); !regexp.MustCompile(`(?m)^ankusa_store_checkpoints\{store="[^"]*"\} 1$`).MatchString(m) {
		t.Fatalf("the metrics file does not count the checkpoint:\n%s", m)
	}
	expectOut(t, run(t, "checkpoints", "ls", store), 0, backup+"\tmigrate\t2026-11-30T10:00:00.000Z\t", "\tyes format=2\n")
	// Resumed without its --backup, migrate names that checkpoint as the first run's.
	expect(t, run(t, "migrate", "--now", migNow, store), 0, "no checkpoint is taken (the first run's is "+backup+", its --backup)")
}
