package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A bulk run that stops says which of its two states it left the store in: before the
// commit, nothing was changed; after it, the store is migrated and nothing needs to run
// again; for an error, a full disk and a signal alike. The steps' words are theirs.
func TestMigrateStoppedSaysTheBulkState(t *testing.T) {
	before := migration.State{Format: format.Format2}
	after := migration.State{Format: format.Format3}
	midway := migration.State{Format: format.Format2, Migrating: true}
	failed := errors.New("it failed")
	noSpace := fmt.Errorf("%w: full", rocks.ErrNoSpace)
	const asWas = "nothing was changed: the store is as it was (a new empty family at most)"
	const migrated = "the store is migrated (format 3, complete: the bulk commit went through)"
	cases := []struct {
		name   string
		err    error
		state  migration.State
		method string
		want   []string
	}{
		{"bulk before, error", failed, before, methodBulk, []string{asWas, "run the same command again once this is fixed", "it failed"}},
		{"bulk before, no space", noSpace, before, methodBulk, []string{asWas, "make room and run the same command again"}},
		{"bulk before, signal", context.Canceled, before, methodBulk, []string{"interrupted: " + asWas + "; run the same command again"}},
		{"bulk after, error", failed, after, methodBulk, []string{migrated, "nothing needs to run again", "it failed"}},
		{"bulk after, no space", noSpace, after, methodBulk, []string{migrated, "make room before the node starts; nothing needs to run again"}},
		{"steps before", failed, before, methodSteps, []string{"it failed"}},
		{"steps midway", failed, midway, methodSteps, []string{"the store is mid-migration (phase "}},
		{"steps after", failed, after, methodSteps, []string{"the migration finished: the store is at format 3 and complete"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := migrateStopped(c.err, c.state, 0, "", c.method).Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q\ndoes not say %q", msg, w)
				}
			}
			if c.method != methodBulk && (strings.Contains(msg, asWas) || strings.Contains(msg, migrated)) {
				t.Errorf("the steps' message says the bulk state: %q", msg)
			}
		})
	}
}

// A bulk run stopped by a value it cannot carry over (in its read stage, before any commit)
// exits 3 naming the key and saying nothing was changed; the store is format 2, not
// mid-migration, and its keys are what they were.
func TestMigrateBulkStopsAtUnreadableValue(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, dir, 2000, 10, 3)
	writeTo(t, dir, func(b *rocks.Batch) {
		b.Put(format.CFIndex, format.InflightV2Key{Seq: 1 << 40, Sink: 1}.Encode(), []byte{1, 2}) // not <<size::32>>
	})
	want := storetest.Dump(t, dir)
	code, stdout, stderr := runCLI(t.Context(), []string{"migrate", "--no-backup", dir})
	if code != exitcode.Store || !strings.Contains(stderr, "f seq=1099511627776 sink=1") ||
		!strings.Contains(stderr, "nothing was changed: the store is as it was (a new empty family at most)") {
		t.Fatalf("exit %d, want %d naming the key and saying nothing was changed:\n%s%s", code, exitcode.Store, stdout, stderr)
	}
	if migStoreMigrating(t, dir) {
		t.Fatal("the store is mid-migration")
	}
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
}
