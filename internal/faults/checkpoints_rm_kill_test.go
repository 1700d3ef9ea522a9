package faults

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/checkpoint"
)

// A checkpoints rm killed (kill -9) at each step of a removal leaves either the checkpoint,
// whole (ls lists it, rm removes it), or nothing that checkpoints ls, status or completion
// count as a checkpoint; what it left set aside ls notes, and the same rm again finishes it.
// The store is never touched: it verifies healthy after every kill.
func TestCheckpointsRmKilledAtEachStep(t *testing.T) {
	base := t.TempDir()
	data := filepath.Join(base, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	src := genStoreV2(t, base, 3000)
	store := filepath.Join(data, "s")
	copyStore(t, src, store)
	cp := store + ".pre-v3"
	expect(t, run(t, "migrate", "--backup", cp, "--now", migNow, store), 0)

	for _, point := range []string{checkpoint.RemovePauseChecked, checkpoint.RemovePauseSetAside, checkpoint.RemovePauseForgotten, checkpoint.RemovePausePartlyRemoved, checkpoint.RemovePauseEmptied} {
		t.Run(point, func(t *testing.T) {
			root := t.TempDir()
			if out, err := exec.Command("cp", "-a", data, root).CombinedOutput(); err != nil {
				t.Fatalf("cp -a: %v\n%s", err, out)
			}
			store, cp := filepath.Join(root, "data", "s"), filepath.Join(root, "data", "s.pre-v3")
			// The marker names the store it was taken of; the copy's names the original.
			rewriteMarker(t, cp, filepath.Join(data, "s"), store)
			expectOut(t, run(t, "checkpoints", "ls", "-o", "tsv", store), 0, cp+"\t")

			c, done, res := startedStopped(t, checkpoint.RemovePauseEnv+"="+point, "at "+point, "checkpoints", "rm", "--yes", cp)
			if err := c.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-done
			if !res.Signaled {
				t.Fatalf("rm was not killed: %s", res)
			}
			ls := run(t, "checkpoints", "ls", "-o", "tsv", store)
			if point == checkpoint.RemovePauseChecked {
				// Nothing touched: the checkpoint is whole, listed, and opens.
				expectOut(t, ls, 0, cp+"\t", "\tyes format=2\n")
				expect(t, run(t, "counters", "verify", "-q", cp), 0)
			} else {
				expect(t, ls, 0, "note: the removal of "+cp+" did not finish (process ", "checkpoints rm --yes "+cp+" finishes it")
				if strings.Contains(ls.Stdout, cp) {
					t.Fatalf("ls lists the half-removed checkpoint:\n%s", ls)
				}
				// status counts it as no checkpoint, and says what is left set aside.
				st := run(t, "status", "-o", "json", store)
				var sj struct {
					Checkpoints []struct {
						Path string `json:"path"`
					} `json:"checkpoints"`
					Unfinished []struct {
						Dir string `json:"dir"`
					} `json:"unfinished_removals"`
				}
				if err := json.Unmarshal([]byte(st.Stdout), &sj); st.Code != 0 || err != nil || len(sj.Checkpoints) != 0 || len(sj.Unfinished) != 1 || sj.Unfinished[0].Dir != cp {
					t.Fatalf("status counts the half-removed checkpoint, or does not say it is left set aside (%v):\n%s", err, st)
				}
				if _, err := os.Lstat(cp); !os.IsNotExist(err) {
					t.Fatalf("%s is still there after a kill at %s: %v", cp, point, err)
				}
				// What a kill leaves aside still says what it was: its marker goes last.
				if m, _ := filepath.Glob(filepath.Join(root, "data", ".s.pre-v3.ankusa-removing-*", checkpoint.MigrationMark)); len(m) != 1 {
					t.Fatalf("killed at %s, the set-aside directory holds no marker: %v", point, m)
				}
			}
			expect(t, run(t, "counters", "verify", "-q", store), 0)

			// The same command again finishes (or does) the removal; nothing is left.
			r := run(t, "checkpoints", "rm", "--yes", cp)
			if point == checkpoint.RemovePauseChecked {
				expect(t, r, 0)
			} else {
				expect(t, r, 0, "finished removing "+cp)
			}
			left, _ := filepath.Glob(filepath.Join(root, "data", ".*"))
			if len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
			ls = run(t, "checkpoints", "ls", "-o", "tsv", store)
			expect(t, ls, 0)
			if strings.Contains(ls.Stdout+ls.Stderr, "s.pre-v3") {
				t.Fatalf("ls still names the checkpoint after rm finished:\n%s", ls)
			}
			if rec, err := os.ReadFile(filepath.Join(store, "ANKUSA-CHECKPOINTS")); err == nil && strings.Contains(string(rec), "s.pre-v3") {
				t.Fatalf("the store's record still names the checkpoint:\n%s", rec)
			}
			expect(t, run(t, "counters", "verify", "-q", store), 0)
		})
	}
}

// A removal that fails half-way (as uid 65534, a root-owned directory inside the checkpoint
// that it may not empty) says what was removed and what is left, and where; the checkpoint is
// no longer listed, and the same command, once the cause is fixed, finishes it.
func TestCheckpointsRmFailsHalfWay(t *testing.T) {
	nobodyBin, data, store := migratedForNobody(t, 2000)
	cp := store + ".pre-v3"
	// The operator left notes in the checkpoint, as root, in a directory of their own.
	notes := filepath.Join(cp, "notes")
	if err := os.Mkdir(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notes, "why.txt"), []byte("taken before the v3 upgrade\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chown", "-R", "65534:65534", data).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
	if err := os.Chown(notes, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(notes, "why.txt"), 0, 0); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, asNobody(nobodyBin, "checkpoints", "rm", "--yes", cp))
	expect(t, r, 3, "removing "+cp+": it was set aside as "+filepath.Join(data, ".s.pre-v3.ankusa-removing-"),
		"files (", "removed, 2 files (", "left there", "permission denied", "checkpoints rm --yes "+cp+" finishes it")
	if strings.Contains(r.Stderr, "unlinkat") || strings.Contains(r.Stderr, "openfdat") {
		t.Fatalf("a raw system call error:\n%s", r)
	}
	ls := run(t, "checkpoints", "ls", "-o", "tsv", store)
	expect(t, ls, 0, "note: the removal of "+cp+" did not finish")
	if strings.Contains(ls.Stdout, cp) {
		t.Fatalf("ls lists the half-removed checkpoint:\n%s", ls)
	}
	// Fixed (the notes' directory given to the user that removes): the same command finishes it.
	if out, err := exec.Command("chown", "-R", "65534:65534", data).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
	expect(t, runCmd(t, asNobody(nobodyBin, "checkpoints", "rm", "--yes", cp)), 0, "finished removing "+cp)
	if left, _ := filepath.Glob(filepath.Join(data, ".*")); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// migratedForNobody is a store data/s of hooks hooks, migrated with its checkpoint at
// data/s.pre-v3, in a directory every user can enter, and a copy of the binary nobody
// (uid 65534) can run.
func migratedForNobody(t *testing.T, hooks int) (nobodyBin, data, store string) {
	t.Helper()
	root := reachableDir(t)
	nobodyBin = copyExecutable(t, filepath.Join(root, "ankusa-store"))
	data = filepath.Join(root, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	store = filepath.Join(data, "s")
	copyStore(t, genStoreV2(t, root, hooks), store)
	expect(t, run(t, "migrate", "--backup", store+".pre-v3", "--now", migNow, store), 0)
	return nobodyBin, data, store
}

// rewriteMarker makes a copied checkpoint's marker name the copied store, as the original's
// names the original (the copy is a second, separate world).
func rewriteMarker(t *testing.T, cp, from, to string) {
	t.Helper()
	p := filepath.Join(cp, "ANKUSA-MIGRATION-CHECKPOINT")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), from, to)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The marker is written after the checkpoint's files; keep it the newest.
	rec := filepath.Join(to, "ANKUSA-CHECKPOINTS")
	if b, err := os.ReadFile(rec); err == nil {
		if err := os.WriteFile(rec, []byte(strings.ReplaceAll(string(b), from, to)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
