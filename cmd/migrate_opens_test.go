package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A migration looks at the store read-only once (its state and its space estimate from the
// same open) before it opens it for writing; a store with nothing to do is opened once,
// read-only, and nothing is written (issue 30). Env.closing sees every store the command
// opens through env.openStore.
func TestMigrateOpensTheStoreOnceBeforeWriting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, dir, 2000, 20, 7)
	for _, tc := range []struct {
		name  string
		opens int
		wrote bool
	}{
		{"format 2: one read-only look, then the read-write open", 2, true},
		{"format 3: nothing to do, one read-only look", 1, false},
	} {
		var out, errb bytes.Buffer
		opens := 0
		env := &Env{IO: iostreams.IOStreams{Out: &out, Err: &errb}, Output: "json", Now: func() time.Time { return fixture.DefaultNow },
			closing: func(*rocks.Store) { opens++ }}
		opts := &migrateOptions{store: dir, noBackup: true, tenantsMax: format.DefaultTenantsMax}
		if err := runMigrate(context.Background(), env, opts); err != nil {
			t.Fatalf("%s: migrate: %v\n%s", tc.name, err, errb.String())
		}
		if opens != tc.opens || env.wrote != tc.wrote {
			t.Errorf("%s: opened the store %d times (wrote=%t), want %d (wrote=%t)", tc.name, opens, env.wrote, tc.opens, tc.wrote)
		}
	}
}
