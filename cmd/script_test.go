package cmd

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ankusa/ankusa-store/internal/testkit/lockholder"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// asCLIEnv makes the test binary the CLI (see TestMain).
const asCLIEnv = "ANKUSA_STORE_TEST_AS_CLI"

// The end-to-end tests run the real command tree as the program `ankusa-store` inside
// testscript scripts (testdata/script/*.txtar).
func TestMain(m *testing.M) {
	// The terminal tests run this binary as the CLI under a pseudo-terminal.
	if os.Getenv(asCLIEnv) == "1" {
		os.Exit(Execute(context.Background(), iostreams.System(), BuildInfo{Version: "test", Commit: "none"}, os.Args[1:]))
	}
	// A node holding a store, for the tests of a locked store.
	lockholder.Main()
	testscript.Main(m, map[string]func(){
		"ankusa-store": func() {
			os.Exit(Execute(context.Background(), iostreams.System(), BuildInfo{Version: "test", Commit: "none"}, os.Args[1:]))
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
			// Plain progress starts after a second of work: whether a script's stderr holds
			// a progress line must not depend on the machine's load. The progress tests
			// (progress_test.go, terminal_test.go) set the mode themselves.
			e.Setenv(progress.Env, progress.None)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"snapshot":      cmdSnapshot,
			"unchanged":     cmdUnchanged,
			"exitcode":      cmdExitCode,
			"jsondrop":      cmdJSONDrop,
			"footerversion": cmdFooterVersion,
			"footerbyte":    cmdFooterByte,
			"putvalue":      cmdPutValue,
		},
	})
}

// footerversion DIR N turns the newest table file of the store in DIR (format_version 6,
// crc32c) into a real table of format_version N (storetest.SetFooterVersion).
func cmdFooterVersion(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: footerversion DIR N")
	}
	v, err := strconv.ParseUint(args[1], 10, 32)
	ts.Check(err)
	table, err := storetest.NewestTable(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(storetest.SetFooterVersion(table, uint32(v)))
}

// footerbyte DIR I V sets byte I of the footer of the newest table file of the store in DIR
// (format_version 6, crc32c) to V, its checksum computed again (storetest.SetFooterByte).
func cmdFooterByte(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: footerbyte DIR I V")
	}
	i, err := strconv.Atoi(args[1])
	ts.Check(err)
	v, err := strconv.ParseUint(args[2], 10, 8)
	ts.Check(err)
	table, err := storetest.NewestTable(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(storetest.SetFooterByte(table, i, byte(v)))
}

// putvalue DIR CF KEYHEX VALUEHEX writes one value into the store in DIR as a node's Put
// would (read-write, synced, through pkg/rocks with the counters merge operator): a value the
// contract forbids, such as a counter that is not an integer, planted where a view reads it.
// (Debian's ldb would replay the store's WAL without the merge operator.)
func cmdPutValue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: putvalue DIR CF KEYHEX VALUEHEX")
	}
	k, err := hex.DecodeString(args[2])
	ts.Check(err)
	v, err := hex.DecodeString(args[3])
	ts.Check(err)
	st, err := rocks.OpenStore(ts.MkAbs(args[0]), rocks.Options{Mode: rocks.ReadWrite})
	ts.Check(err)
	b := rocks.NewBatch()
	b.Put(args[1], k, v)
	werr := st.Write(b, true)
	b.Destroy()
	ts.Check(errors.Join(werr, st.Close()))
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

// jsondrop FILE FIELD... rewrites the JSON object in FILE without the named top-level
// fields (those that differ from run to run: a path, a time, a duration), so that two
// documents can be compared with cmp. It fails if a field is missing: it drops, never hides.
func cmdJSONDrop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: jsondrop FILE FIELD...")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var m map[string]json.RawMessage
	ts.Check(json.Unmarshal(b, &m))
	for _, f := range args[1:] {
		if _, ok := m[f]; !ok {
			ts.Fatalf("%s has no field %q", args[0], f)
		}
		delete(m, f)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), append(out, '\n'), 0o644))
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
