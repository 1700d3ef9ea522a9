package faults

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// startNode starts the "node" role on dir: a node's own RocksDB (roles_node_test.go). It
// returns whether the node got the store ("ready"), and stops it at the test's end.
func startNode(t *testing.T, dir string) bool {
	t.Helper()
	c, in, out := startRole(t, "node", dir)
	t.Cleanup(func() { in.Close(); c.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	go io.Copy(io.Discard, out)
	return strings.TrimSpace(line) == "ready"
}

// A node that starts while migrate has stashed its OPTIONS files (issue 44, item 5): the
// tool holds the store's LOCK from before the stash through RocksDB's open, so the node is
// refused as by any running tool, and the migration goes on and leaves the node's two files.
// Without the lock held through the open, the node got the store, migrate's open was refused
// (exit 4) and its restore removed the node's new OPTIONS file and wrote the stashed one back
// under the running node.
func TestNodeStartsAtTheStash(t *testing.T) {
	store := extract(t, "store-v2", t.TempDir())
	want := nodeOptions(t, store)
	c, done, res := startedStopped(t, rocks.OptionsPauseEnv+"="+rocks.OptionsPauseStashed, "at the stash",
		"migrate", "--no-backup", "--now", migNow, store)
	if startNode(t, store) {
		t.Fatal("a node opened the store while migrate held it at its stash")
	}
	if err := c.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-done
	expect(t, *res, 0)
	// The node's two files, the newer with the migration's families described: only the
	// older is compared whole; the newer keeps its prefix.
	got := nodeOptions(t, store)
	first := want[:strings.Index(want[3:], "== ")+3]
	if !strings.HasPrefix(got, first) || strings.Count(got, "== OPTIONS-") != 2 || strings.Contains(got, "rocksdb_version="+rocks.LibraryVersion()) {
		t.Fatalf("the store's OPTIONS files after the run are\n%.600s\nwant the node's two", got)
	}
}

// A node that starts after migrate's RocksDB closed the store and before the tool put the
// node's OPTIONS files back (RocksDB's close drops the LOCK): the tool takes the LOCK again
// before it writes, finds it held, and writes nothing into the node's store; its stash is
// the next run's, after the node stopped. Without the lock taken again, the put-back removed
// the OPTIONS file the node had just written.
func TestNodeStartsAtTheClose(t *testing.T) {
	store := extract(t, "store-v2", t.TempDir())
	c, done, res := startedStopped(t, rocks.OptionsPauseEnv+"="+rocks.OptionsPauseClosed, "at the close",
		"migrate", "--no-backup", "--now", migNow, store)
	if !startNode(t, store) {
		t.Fatal("the node did not get the store once migrate's RocksDB had closed it")
	}
	before := storetest.TreeOf(t, store)
	if err := c.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-done
	if res.Signaled {
		t.Fatalf("migrate: %s", res)
	}
	storetest.SameTree(t, before, storetest.TreeOf(t, store))
}

// A planted, a garbage and an empty ANKUSA-NODE-OPTIONS (issue 44, friction): migrate
// refuses (exit 3, the directory named) and changes nothing, so no format_version 7 table is
// written into a 7.8.3 store and the node's OPTIONS files stay; status does not take the
// planted file's RocksDB for the store's writer.
func TestPlantedStashIsRefused(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"planted 11.1.2 format_version 7": nil, // made from the store's own file below
		"garbage":                         {"OPTIONS-000099": "\x00\xff not an options file", "ANKUSA-STASH": "ankusa-store stash\n"},
		"empty":                           {},
	} {
		t.Run(name, func(t *testing.T) {
			store := extract(t, "store-v2", t.TempDir())
			stash := filepath.Join(store, rocks.NodeOptionsStash)
			if files == nil {
				b, err := os.ReadFile(filepath.Join(store, "OPTIONS-000019"))
				if err != nil {
					t.Fatal(err)
				}
				s := strings.Replace(string(b), "rocksdb_version=7.8.3", "rocksdb_version=11.1.2", 1)
				files = map[string]string{"OPTIONS-000099": strings.ReplaceAll(s, "format_version=5", "format_version=7")}
			}
			if err := os.Mkdir(stash, 0o755); err != nil {
				t.Fatal(err)
			}
			for n, b := range files {
				if err := os.WriteFile(filepath.Join(stash, n), []byte(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := storetest.TreeOf(t, store)
			st := run(t, "status", "-o", "tsv", store)
			expectOut(t, st, 0, "store written by 7.8.3")
			expect(t, st, 0, stash+" is not a stash of the node's OPTIONS files that this tool made")
			expect(t, run(t, "migrate", "--no-backup", "--now", migNow, store), 3, stash, "not a stash of the node's OPTIONS files that this tool made")
			storetest.SameTree(t, before, storetest.TreeOf(t, store))
		})
	}
}
