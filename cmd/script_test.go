package cmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ankusa/ankusa-store/internal/storetest"
)

// The end-to-end tests run the real command tree as the program `ankusa-store` inside
// testscript scripts (testdata/script/*.txtar).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ankusa-store": func() {
			os.Exit(Execute(context.Background(), SystemStreams(), BuildInfo{Version: "test", Commit: "none"}, os.Args[1:]))
		},
	})
}

func TestScripts(t *testing.T) {
	testdata, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join(testdata, "script"),
		Setup: func(e *testscript.Env) error {
			e.Setenv("TESTDATA", testdata)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"snapshot":  cmdSnapshot,
			"unchanged": cmdUnchanged,
			"exitcode":  cmdExitCode,
		},
	})
}

// exitcode N PROG ARGS... runs PROG like exec and fails unless it exits with status N;
// stdout and stderr are then checked as after exec. The exit codes are part of the interface.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// snapshot DIR NAME records the path, mode and content hash of every file below DIR.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: snapshot DIR NAME")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(treeDigest(ts, args[0])), 0o644))
}

// unchanged DIR NAME fails unless every file below DIR is byte-identical to the snapshot
// NAME, with none added or removed: what read-only commands promise.
func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: unchanged DIR NAME")
	}
	want, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	got := treeDigest(ts, args[0])
	if (got == string(want)) == neg {
		if neg {
			ts.Fatalf("%s is unchanged", args[0])
		}
		ts.Fatalf("%s changed:\nbefore:\n%s\nafter:\n%s", args[0], want, got)
	}
}

// treeDigest is the snapshot of a directory's files that unchanged compares.
func treeDigest(ts *testscript.TestScript, dir string) string {
	tr, err := storetest.ReadTree(ts.MkAbs(dir))
	ts.Check(err)
	return tr.String()
}
