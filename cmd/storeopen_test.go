package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/lockholder"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/archive"
	"github.com/ankusa/ankusa-store/pkg/fixture"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// sampleWithWAL extracts the committed sample store name (store-v2, store-v3), with the few
// KiB of WAL its archive keeps, and returns it with its WAL's size.
func sampleWithWAL(t *testing.T, name string) (dir string, wal int64) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), name)
	if err := archive.ExtractArchive("../testdata/"+name+".tar.zst", dir); err != nil {
		t.Fatal(err)
	}
	if wal = store.WALBytes(dir); wal == 0 {
		t.Fatalf("the sample store %s has no WAL", name)
	}
	return dir, wal
}

// Every command that reads a store opens it through the one opener, so each says the WAL
// replay before it waits for it: tenants show and dlq show too, which opened the store
// another way and said nothing. The extracted sample store has a few KiB of WAL; the
// threshold is lowered for this run (Env.walShown) rather than a WAL of 8 MiB made.
func TestEveryOpenShowsTheWALReplay(t *testing.T) {
	dir, wal := sampleWithWAL(t, "store-v3")
	line := regexp.MustCompile(`(?m)^progress: started opening ` + regexp.QuoteMeta(dir) + ` \(replaying [0-9.]+ [KMG]?i?B of WAL\)$`)
	for _, args := range [][]string{
		{"status", dir},
		{"tenants", "ls", dir},
		{"tenants", "show", "acme", dir},
		{"dlq", "scan", dir},
		{"dlq", "show", "383:1", dir},
		{"dlq", "export", dir},
		{"scan", "due", dir},
		{"counters", "verify", dir},
		{"keys", "decode", "7400000003", dir},
		{"diff", dir, dir},
	} {
		for _, shown := range []int64{wal, wal + 1} {
			t.Run(fmt.Sprintf("%s/%d", strings.Join(args[:len(args)-1], " "), shown), func(t *testing.T) {
				streams, _, _, errb := iostreams.Test()
				env := &Env{IO: streams, Build: BuildInfo{Version: "test"},
					Now: func() time.Time { return fixture.DefaultNow }, walShown: shown}
				root := NewRootCmd(env)
				root.SetArgs(append([]string{"--progress=plain"}, args...))
				if err := root.ExecuteContext(context.Background()); exitcode.Of(err) > exitcode.Findings {
					t.Fatalf("exit %d: %v\n%s", exitcode.Of(err), err, errb.String())
				}
				if got := line.MatchString(errb.String()); got != (shown <= wal) {
					t.Errorf("with %d bytes of WAL shown from %d, the replay line said: %v; stderr:\n%s", wal, shown, got, errb.String())
				}
			})
		}
	}
}

// Each note once: migrate opens a store twice (its look, read-only, then its open to write),
// and on a store a node holds the second open is refused at once. Piped, each open said the
// WAL replay, so the operator read "started opening" twice before the one error (issue 46).
// The node here is a real second process holding the LOCK; the replay is shown from the
// sample store's few KiB of WAL (Env.walShown).
func TestLockedMigrateSaysTheReplayOnce(t *testing.T) {
	dir, wal := sampleWithWAL(t, "store-v2")
	lockholder.Hold(t, dir, lockholder.LockOnly)
	line := regexp.MustCompile(`(?m)^progress: started opening ` + regexp.QuoteMeta(dir) + ` \(replaying [0-9.]+ [KMG]?i?B of WAL\)$`)
	for _, flags := range [][]string{nil, {"--progress=plain"}} {
		t.Run(fmt.Sprintf("%v", flags), func(t *testing.T) {
			streams, _, _, errb := iostreams.Test()
			env := &Env{IO: streams, Build: BuildInfo{Version: "test"},
				Now: func() time.Time { return fixture.DefaultNow }, walShown: wal}
			root := NewRootCmd(env)
			root.SetArgs(append(append([]string{}, flags...), "migrate", dir))
			err := root.ExecuteContext(context.Background())
			if code := exitcode.Of(err); code != exitcode.Locked {
				t.Fatalf("migrate of a held store: exit %d (want %d): %v\n%s", code, exitcode.Locked, err, errb.String())
			}
			if n := len(line.FindAllString(errb.String(), -1)); n != 1 {
				t.Errorf("the replay line was said %d times, want once; stderr:\n%s", n, errb.String())
			}
		})
	}
}
