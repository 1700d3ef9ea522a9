package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/proctest"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/migration"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// migrateNow is the start time every migration in these tests is given, so
// that runs compare key for key.
const migrateNow = "2026-11-30T10:00:00Z"

// The migration as a process: killed, signalled, locked out. The real binary
// is built once (main.go's signal handling is part of what is tested).
func TestMigrateProcess(t *testing.T) {
	bin := migBuildCLI(t)
	t.Run("kill -9 at random instants", func(t *testing.T) { testMigrateKill9(t, bin) })
	t.Run("SIGTERM and lock", func(t *testing.T) { testMigrateSignalAndLock(t, bin) })
}

// A real kill -9 at random instants, mid-step and mid-write included, never
// costs a row or counts one twice: the migration is rerun until it finishes,
// and every key of every column family (counters read merged) equals those of
// a run that was never interrupted.
func testMigrateKill9(t *testing.T, bin string) {
	src := filepath.Join(t.TempDir(), "src")
	migWriteV2Store(t, src, 8000, 60, 1)

	ref := storetest.CopyStore(t, src)
	refRun := migStart(t, bin, "-o", "json", ref)
	opened, _ := refRun.waitOpened()
	out, err := refRun.wait()
	if err != nil {
		t.Fatalf("reference run: %v\n%s", err, refRun.stderr.String())
	}
	full := time.Since(refRun.began)
	var refSum struct{ Steps int }
	if err := json.Unmarshal(out, &refSum); err != nil || refSum.Steps < 10 {
		t.Fatalf("reference run: %d steps (%v): too few to kill between", refSum.Steps, err)
	}
	want := storetest.Dump(t, ref)
	step := max((full-opened)/time.Duration(refSum.Steps), time.Millisecond)

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d; an uninterrupted run takes %v: %v to its first write, then %d steps of about %v", seed, full, opened, refSum.Steps, step)
	r := rand.New(rand.NewPCG(seed, 9))
	// The first kills fall anywhere in the first half of a run: opening the
	// store, creating the families, the preparation batch. The others fall a
	// random time, up to about a step, after the run's first write reached
	// its WAL (RocksDB starts a new WAL file when it opens the store):
	// mid-read, mid-build, mid-write or mid-fsync, each run moving the
	// migration on by a step or two. The timing comes from the reference run;
	// on a shared machine a later run can be twice as fast and finish before
	// its kill while too few kills have landed. Then the store is thrown away
	// and the kills start again on a fresh copy, twice as early: only the copy
	// that is finally compared counts its kills.
	const maxKills, early, attempts = 20, 3, 5
	var dir string
	kills, midway := 0, 0
	for attempt := 1; ; attempt++ {
		dir = storetest.CopyStore(t, src)
		kills, midway = 0, 0
		for ; kills < maxKills; kills++ {
			before := migCursor(dir)
			run := migStart(t, bin, "-q", dir)
			if kills < early {
				time.Sleep(time.Duration(r.Int64N(int64(max(full/2, time.Millisecond)))))
			} else if _, ok := run.waitOpened(); ok {
				time.Sleep(time.Duration(r.Int64N(int64(step))))
			}
			_ = run.cmd.Process.Signal(syscall.SIGKILL)
			_, err := run.wait()
			if err == nil {
				break // it finished before the kill
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("run %d: %v\n%s", kills+1, err, run.stderr)
			}
			if after := migCursor(dir); after != "" && after != before {
				midway++
			}
		}
		if midway >= 5 || attempt == attempts {
			break
		}
		t.Logf("attempt %d: a run finished before its kill after %d kills, %d of them mid-migration; again on a fresh copy with kills twice as early", attempt, kills, midway)
		full, step = full/2, max(step/2, time.Millisecond)
	}
	t.Logf("%d kills, %d of them after the run had moved the migration on", kills, midway)
	migRunCLI(t, bin, 0, "migrate", "--no-backup", "--now", migrateNow, "-q", dir)
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
	if midway < 5 {
		t.Fatalf("only %d kills landed mid-migration: the test did not test resumption", midway)
	}
}

// migRun is a migrate process on a store.
type migRun struct {
	t       *testing.T
	dir     string
	cmd     *exec.Cmd
	began   time.Time
	prevWAL string
	stdout  bytes.Buffer
	stderr  *bytes.Buffer
	exited  chan error
}

// migStart starts "migrate --method steps --no-backup --now migrateNow ARGS": the runs these
// tests kill and stop are the steps' (auto would run bulk on a store no migration touched).
func migStart(t *testing.T, bin string, args ...string) *migRun {
	t.Helper()
	dir := args[len(args)-1]
	r := &migRun{t: t, dir: dir, stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	r.prevWAL, _ = migNewestWAL(t, dir)
	r.cmd = exec.Command(bin, append([]string{"migrate", "--method", "steps", "--no-backup", "--now", migrateNow}, args...)...)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, r.stderr
	r.began = time.Now()
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.exited <- r.cmd.Wait() }()
	return r
}

// waitOpened waits until the run's first write reached the WAL, and says how
// long that took; false if the process exited first.
func (r *migRun) waitOpened() (time.Duration, bool) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && len(r.exited) == 0 {
		if name, size := migNewestWAL(r.t, r.dir); name > r.prevWAL && size > 0 {
			return time.Since(r.began), true
		}
		time.Sleep(100 * time.Microsecond)
	}
	return time.Since(r.began), false
}

func (r *migRun) wait() ([]byte, error) {
	err := <-r.exited
	return r.stdout.Bytes(), err
}

// migNewestWAL is the name and size of the store's newest WAL file: a run
// that opens the store for writing starts a new one.
func migNewestWAL(t *testing.T, dir string) (string, int64) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	var size int64
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") && e.Name() > name {
			if info, err := e.Info(); err == nil {
				name, size = e.Name(), info.Size()
			}
		}
	}
	return name, size
}

// migCursor is the store's m:migrating:3 ("" when it has none), read while
// another process may be writing the store (an open that fails is "").
func migCursor(dir string) string {
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		return ""
	}
	defer st.Close()
	v, _, _ := st.Get(format.CFDefault, []byte(format.KeyMigrating3))
	return string(v)
}

// SIGTERM stops the migration after the current step with exit 130, and the
// store resumes to the same result; a locked store is exit 4.
func testMigrateSignalAndLock(t *testing.T, bin string) {
	src := filepath.Join(t.TempDir(), "src")
	migWriteV2Store(t, src, 12000, 300, 2)
	ref := storetest.CopyStore(t, src)
	migRunCLI(t, bin, 0, "migrate", "--no-backup", "--now", migrateNow, "-q", ref)
	want := storetest.Dump(t, ref)

	dir := storetest.CopyStore(t, src)
	// The run stops itself once its first step is committed (migration.PauseEnv), so that it
	// holds the store mid-migration however fast the machine migrates 12,000 rows (with the
	// hook table it often finished before the second migrate below was refused).
	r := proctest.StartToPoint(t, exec.Command(bin, "migrate", "--method", "steps", "--no-backup", "--now", migrateNow, dir),
		migration.PauseEnv+"="+migration.PauseAfterStep, "after its first step")
	c := r.Cmd
	// While it runs, the store is locked: a second writer is refused with 4.
	out, lockErr := exec.Command(bin, "migrate", "--no-backup", dir).CombinedOutput()
	if code := migExitCode(lockErr); code != exitcode.Locked {
		t.Errorf("second migrate on a locked store: exit %d, want %d\n%s", code, exitcode.Locked, out)
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = c.Process.Signal(syscall.SIGCONT)
	<-r.Done
	if code := migExitCode(r.Err); code != exitcode.Interrupted {
		t.Fatalf("after SIGTERM: exit %d, want %d\n%s", code, exitcode.Interrupted, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "resume") || !migStoreMigrating(t, dir) {
		t.Fatalf("after SIGTERM the store should be mid-migration and the message say how to resume:\n%s", r.Stderr)
	}
	out, err := exec.Command(bin, "migrate", "--no-backup", "--now", "2030-01-01T00:00:00Z", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "ignoring --now") {
		t.Errorf("a resumed run given --now should say it ignores it:\n%s", out)
	}
	storetest.AssertSame(t, want, storetest.Dump(t, dir))
}

func migExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// migBuildCLI builds the real binary (main.go's signal handling included) once per test.
func migBuildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ankusa-store")
	began := time.Now()
	out, err := exec.Command("go", "build", "-o", bin, "github.com/ankusa/ankusa-store").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("go build: %v", time.Since(began).Round(time.Millisecond))
	return bin
}

func migRunCLI(t *testing.T, bin string, want int, args ...string) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if code := migExitCode(err); code != want {
		t.Fatalf("ankusa-store %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, out)
	}
}

// migStoreMigrating reports whether the store has m:migrating:3; a read-only open
// works while the migration holds the store.
func migStoreMigrating(t *testing.T, dir string) bool {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		if errors.Is(err, rocks.ErrNotStore) {
			return false // not created yet
		}
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	return st.Migrating
}

// migWriteV2Store writes a format 2 store of about rows index rows over tenants
// tenants, a few of its hooks missing or nil-tenant.
func migWriteV2Store(t *testing.T, dir string, rows, tenants int, seed uint64) {
	t.Helper()
	st := storetest.Create(t, dir, format.Format2, rocks.Tuning{})
	defer st.Close()
	now := uint64(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC).UnixMilli())
	r := rand.New(rand.NewPCG(seed, 2))
	w := storetest.NewWriter(format.Format2)
	n := 0
	for seq := uint64(100); n < rows; seq++ {
		tenant := fmt.Sprintf("t%04d", r.IntN(tenants))
		switch r.IntN(40) {
		case 0: // no hook
		case 1:
			w.B.Put(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(format.Envelope{ID: []byte("i"), TenantNil: true}, false))
		default:
			w.B.Put(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(format.Envelope{ID: []byte("i"), TenantID: []byte(tenant), Body: make([]byte, 100+r.IntN(300))}, r.IntN(5) == 0))
		}
		for sink := uint16(0); sink < uint16(1+r.IntN(2)); sink++ {
			size := uint32(r.IntN(4000))
			w.B.Put(format.CFDeliveries, format.DeliveryKey{Seq: seq, Sink: sink}.Encode(), format.EncodeDelivery(format.Delivery{Sink: sink, Status: format.StatusDue, Size: uint64(size), LastErrorNil: true}))
			switch r.IntN(4) {
			case 0, 1:
				w.B.Put(format.CFIndex, format.DueV2Key{At: now - 1_800_000 + uint64(r.IntN(3_600_000)), Seq: seq, Sink: sink}.Encode(), format.EncodeSize(size))
			case 2:
				w.B.Put(format.CFIndex, format.InflightV2Key{Seq: seq, Sink: sink}.Encode(), format.EncodeSize(size))
			default:
				w.B.Put(format.CFIndex, format.DeadKey{At: now - uint64(r.IntN(1e8)), Seq: seq, Sink: sink}.Encode(), format.DeadValue{SourceID: []byte("s"), ID: []byte("i")}.Encode())
			}
			n++
		}
		if r.IntN(4) == 0 {
			w.B.Put(format.CFIndex, format.ArchiveKey{Seq: seq}.Encode(), format.EncodeSize(7))
			n++
		}
		if w.B.Count() > 5000 {
			w.Commit(t, st, false)
		}
	}
	w.Commit(t, st, true)
	// As a node leaves it: rows in table files, not in a WAL to replay.
	for _, cf := range st.Families() {
		if err := st.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
}

// A value the migration cannot carry over stops it with exit 3, naming the
// key; the store is left mid-migration, and the message says so. The dry run
// stops at the same key, before anything is written.
func TestMigrateStopsAtUnreadableValue(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, dir, 2000, 10, 3)
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	bad := format.InflightV2Key{Seq: 1 << 40, Sink: 1}.Encode()
	b := rocks.NewBatch()
	b.Put(format.CFIndex, bad, []byte{1, 2}) // not <<size::32>>
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	st.Close()

	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Execute(context.Background(), iostreams.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb}, BuildInfo{Version: "test"}, args)
		return code, errb.String()
	}
	code, stderr := run("migrate", "--dry-run", dir)
	if code != exitcode.Store || !strings.Contains(stderr, "f seq=1099511627776 sink=1") {
		t.Fatalf("dry run: exit %d, want %d naming the key:\n%s", code, exitcode.Store, stderr)
	}
	code, stderr = run("migrate", "--method", "steps", "--no-backup", dir)
	if code != exitcode.Store || !strings.Contains(stderr, "f seq=1099511627776 sink=1") || !strings.Contains(stderr, "mid-migration") {
		t.Fatalf("migrate: exit %d, want %d naming the key and saying the store is mid-migration:\n%s", code, exitcode.Store, stderr)
	}
	if !migStoreMigrating(t, dir) {
		t.Fatal("the store is not mid-migration")
	}
	t.Logf("migrate said:\n%s", stderr)
}

// On a terminal, migrate draws its progress on stderr: the phase, rows moved
// out of the rows counted (by the bulk method's join), the rate; with -o json too (stdout
// stays the document), never with -q or --progress=none.
func TestMigrateProgressOnATerminal(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		progress bool
	}{
		{[]string{"migrate", "--no-backup"}, true},
		{[]string{"migrate", "--no-backup", "-o", "json"}, true},
		{[]string{"migrate", "--no-backup", "-q"}, false},
		{[]string{"migrate", "--no-backup", "--progress=none"}, false},
	} {
		dir := filepath.Join(t.TempDir(), "store")
		migWriteV2Store(t, dir, 1500, 10, 4)
		var out, errb bytes.Buffer
		streams := iostreams.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, ErrIsTerminal: true}
		if code := Execute(context.Background(), streams, BuildInfo{Version: "test"}, append(tc.args, dir)); code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.args, code, errb.String())
		}
		drawn := regexp.MustCompile(`\r\033\[Kmigrate .*: phase due  500/1,500 rows`).MatchString(errb.String())
		if drawn != tc.progress || (drawn && !strings.Contains(errb.String(), " rows/s")) {
			t.Errorf("%v: progress drawn %v, want %v:\n%q", tc.args, drawn, tc.progress, errb.String())
		}
	}
}
