package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// migrate follows the streams rule on a real terminal and piped: on a terminal the summary
// as sentences and the phase table drawn; piped (no -o) TSV like every other command, with
// no box drawing; -o tsv -q keeps the whole summary on stdout and says nothing on stderr.
func TestMigrateOutputOnATerminalAndPiped(t *testing.T) {
	src := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, src, 600, 8, 3)

	out, code := runOnTerminal(t, 100, nil, "migrate", "--dry-run", "--now", migrateNow, src)
	if code != 0 {
		t.Fatalf("on a terminal: exit %d\n%s", code, out)
	}
	screen := strings.Join(screenLines(out), "\n")
	for _, want := range []string{"\n2 -> 3: re-key due/inflight/dead by tenant ordinal", "\nwould move ", "│ Phase ", "│ due "} {
		if !strings.Contains("\n"+screen, want) {
			t.Errorf("on a terminal, no %q:\n%s", want, screen)
		}
	}

	for _, args := range [][]string{
		{"migrate", "--dry-run", "--now", migrateNow},
		{"migrate", "--dry-run", "--now", migrateNow, "-o", "tsv", "-q"},
	} {
		var stdout, stderr bytes.Buffer
		streams := IOStreams{In: strings.NewReader(""), Out: &stdout, Err: &stderr}
		if code := Execute(context.Background(), streams, BuildInfo{Version: "test"}, append(args, src)); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr.String())
		}
		got := stdout.String()
		if strings.ContainsAny(got, "│┌─└") {
			t.Errorf("%v piped: box drawing on stdout:\n%s", args, got)
		}
		for _, want := range []string{"field\tvalue\nplan\t2 -> 3: ", "\nwould_move\trows=", "\n\nphase\trows\tstrays\ndue\t"} {
			if !strings.Contains(got, want) {
				t.Errorf("%v piped: no %q on stdout:\n%s", args, want, got)
			}
		}
		if stderr.Len() > 0 {
			t.Errorf("%v piped: stderr is not empty:\n%s", args, stderr.String())
		}
	}
}

// The summary a resumed migration prints is the whole migration's: after a SIGTERM and a
// resume, whole_migration has every row and every hook filed under default of an
// uninterrupted run of the same store, and the phase table's rows are the whole's.
func TestMigrateResumedSummaryIsTheWhole(t *testing.T) {
	bin := migBuildCLI(t)
	src := filepath.Join(t.TempDir(), "src")
	migWriteV2Store(t, src, 12000, 300, 2)
	ref := storetest.CopyStore(t, src)
	want := migRunJSON(t, bin, "migrate", "--no-backup", "--now", migrateNow, "-q", "-o", "json", ref)
	if len(want.Defaults) == 0 || want.Whole == nil || want.Whole.Rows != want.Rows {
		t.Fatalf("reference run: defaults %+v, whole %+v", want.Defaults, want.Whole)
	}

	dir := migInterrupt(t, bin, src)
	got := migRunJSON(t, bin, "migrate", "--no-backup", "--now", migrateNow, "-q", "-o", "json", dir)
	w := got.Whole
	switch {
	case !got.Resumed || !got.Finished || w == nil:
		t.Fatalf("resumed run: resumed %v finished %v whole %+v", got.Resumed, got.Finished, w)
	case !w.Complete || w.Runs != 2:
		t.Fatalf("resumed run: whole complete %v (%s), %d runs, want 2", w.Complete, w.Incomplete, w.Runs)
	case got.Rows >= w.Rows:
		t.Fatalf("resumed run moved %d rows of the whole's %d: the first run moved none", got.Rows, w.Rows)
	}
	if w.Rows != want.Rows || w.Strays != want.Strays || !reflect.DeepEqual(w.Phases, want.Phases) || w.TenantsAllocated != want.TenantsAllocated {
		t.Errorf("whole migration: %d rows %d strays %+v, %d tenants\nuninterrupted: %d rows %d strays %+v, %d tenants",
			w.Rows, w.Strays, w.Phases, w.TenantsAllocated, want.Rows, want.Strays, want.Phases, want.TenantsAllocated)
	}
	if len(w.Defaults) != len(want.Defaults) {
		t.Fatalf("whole defaults %+v\nuninterrupted %+v", w.Defaults, want.Defaults)
	}
	for i, d := range want.Defaults {
		g := w.Defaults[i]
		if g.Reason != d.Reason || g.Rows != d.Rows || !reflect.DeepEqual(g.ExampleSeqs, d.ExampleSeqs) || g.Hooks < d.Hooks {
			t.Errorf("whole default %+v\nuninterrupted %+v", g, d)
		}
		if g.Hooks != d.Hooks && !w.DefaultHooksApprox {
			t.Errorf("whole default %s: %d hooks, uninterrupted %d, and not said to be approximate", g.Reason, g.Hooks, d.Hooks)
		}
	}

	// The report says it too: the finding lines are the whole's, the table has this run's beside.
	dir2 := migInterrupt(t, bin, src)
	out, err := exec.Command(bin, "migrate", "--no-backup", "-q", "-o", "table", dir2).Output()
	if err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	for _, want := range []string{"\nthe whole migration: ", " in 2 runs, ", "│ This run │", "missing_hook: "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("resumed report: no %q:\n%s", want, out)
		}
	}
}

// migInterrupt copies src, starts a migration of the copy and stops it with SIGTERM once
// it has committed a step (a run that finishes first is tried again on a fresh copy).
func migInterrupt(t *testing.T, bin, src string) string {
	t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		dir := storetest.CopyStore(t, src)
		run := migStart(t, bin, "-q", dir)
		for len(run.exited) == 0 && len(migCursor(dir)) <= 1 { // the cursor of the preparation is 1 byte
			time.Sleep(time.Millisecond)
		}
		_ = run.cmd.Process.Signal(syscall.SIGTERM)
		_, err := run.wait()
		if migExitCode(err) == ExitInterrupted {
			return dir
		}
		if err != nil {
			t.Fatalf("interrupted run: %v, want exit %d\n%s", err, ExitInterrupted, run.stderr)
		}
	}
	t.Fatal("the migration finished before every SIGTERM")
	return ""
}

func migRunJSON(t *testing.T, bin string, args ...string) migrateResult {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("ankusa-store %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var res migrateResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("ankusa-store %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return res
}
