package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Resolve is migrate's choice of checkpoint for each state of the store and each flag: which
// one it takes, keeps or names as the first run's, and what it refuses with nothing written.
func TestPolicyResolve(t *testing.T) {
	start := viewNow
	now := viewNow.Add(time.Hour)
	type want struct {
		dir, kept, earlier, dflt string
		refused                  bool
	}
	cases := []struct {
		name      string
		backup    string // relative to the test's root; "" for none
		noBackup  bool
		migrating bool
		setup     func(t *testing.T, root, store string)
		want      func(root, store string) want
	}{
		{name: "no backup", noBackup: true,
			want: func(root, store string) want { return want{} }},
		{name: "new run takes the default",
			want: func(root, store string) want { return want{dir: BackupName(store, now)} }},
		{name: "new run refuses a default that exists",
			setup: func(t *testing.T, root, store string) { mkdirT(t, BackupName(store, now)) },
			want:  func(root, store string) want { return want{refused: true} }},
		{name: "given and missing is taken", backup: "bk",
			want: func(root, store string) want { return want{dir: filepath.Join(root, "bk")} }},
		{name: "given and this migration's is kept", backup: "bk", migrating: true,
			setup: func(t *testing.T, root, store string) { markT(t, filepath.Join(root, "bk"), store, start) },
			want:  func(root, store string) want { return want{kept: filepath.Join(root, "bk")} }},
		{name: "given and another migration's is refused", backup: "bk", migrating: true,
			setup: func(t *testing.T, root, store string) {
				markT(t, filepath.Join(root, "bk"), store, start.Add(-time.Hour))
			},
			want: func(root, store string) want { return want{refused: true} }},
		{name: "given and not a checkpoint is refused", backup: "bk",
			setup: func(t *testing.T, root, store string) { mkdirT(t, filepath.Join(root, "bk")) },
			want:  func(root, store string) want { return want{refused: true} }},
		{name: "resumed finds the first run's at the default", migrating: true,
			setup: func(t *testing.T, root, store string) { markT(t, BackupName(store, start), store, start) },
			want: func(root, store string) want {
				return want{earlier: BackupName(store, start), dflt: BackupName(store, start)}
			}},
		{name: "resumed finds the first run's --backup in the record", migrating: true,
			setup: func(t *testing.T, root, store string) { markT(t, filepath.Join(root, "elsewhere"), store, start) },
			want: func(root, store string) want {
				return want{earlier: filepath.Join(root, "elsewhere"), dflt: BackupName(store, start)}
			}},
		{name: "resumed with none takes none", migrating: true,
			want: func(root, store string) want { return want{dflt: BackupName(store, start)} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			store := filepath.Join(root, "store")
			mkdirT(t, store)
			if c.setup != nil {
				c.setup(t, root, store)
			}
			backup := ""
			if c.backup != "" {
				backup = filepath.Join(root, c.backup)
			}
			p, err := MigrationPolicy(store, backup, c.noBackup)
			if err != nil {
				t.Fatal(err)
			}
			p, err = p.Resolve(c.migrating, start, now)
			w := c.want(root, store)
			var refused *Refused
			if w.refused {
				if !errors.As(err, &refused) {
					t.Fatalf("Resolve: %v, want a refusal", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := want{dir: p.Dir, kept: p.Kept, earlier: p.Earlier, dflt: p.Default}
			if got != w {
				t.Errorf("Resolve: %+v, want %+v", got, w)
			}
		})
	}
}

// A given --backup whose directory is missing is refused before the store is opened.
func TestMigrationPolicyChecksGivenDir(t *testing.T) {
	root := t.TempDir()
	_, err := MigrationPolicy(filepath.Join(root, "store"), filepath.Join(root, "no", "bk"), false)
	var refused *Refused
	if !errors.As(err, &refused) {
		t.Fatalf("MigrationPolicy: %v, want a refusal", err)
	}
}

// Mark writes the marker of the command the policy names, with its time, and records the
// checkpoint in the store; a policy that names no command marks nothing and says so.
func TestPolicyMark(t *testing.T) {
	at := viewNow.Add(time.Minute)
	cases := []struct {
		name   string
		policy func(store, dir string) Policy
		by     string
		ms     func(Marker) int64
	}{
		{"migrate", func(store, dir string) Policy { return Policy{Store: store, Dir: dir, By: ByMigrate} },
			ByMigrate, func(m Marker) int64 { return m.StartedAtMS }},
		{"repair", func(store, dir string) Policy { return RepairPolicy(store, dir, func() time.Time { return at }) },
			ByRepair, func(m Marker) int64 { return m.TakenAtMS }},
		{"none", func(store, dir string) Policy { return Policy{Store: store, Dir: dir} }, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			store, dir := filepath.Join(root, "store"), filepath.Join(root, "cp")
			mkdirT(t, store)
			mkdirT(t, dir)
			err := c.policy(store, dir).Mark(at)
			by, m, ok := ReadMarker(dir)
			if c.by == "" {
				if err == nil || ok {
					t.Fatalf("a policy naming no command: %v, marker %v", err, ok)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !ok || by != c.by || !SameDir(m.Store, store) || c.ms(m) != at.UnixMilli() {
				t.Errorf("marker: %v %q %+v", ok, by, m)
			}
			if rec := ReadRecord(store); len(rec) != 1 || rec[0].Path != dir {
				t.Errorf("record: %+v", rec)
			}
		})
	}
}

func mkdirT(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// markT makes dir a checkpoint migrate took of store for the migration started at start.
func markT(t *testing.T, dir, store string, start time.Time) {
	t.Helper()
	mkdirT(t, dir)
	if err := MarkMigration(dir, store, start); err != nil {
		t.Fatal(err)
	}
}
