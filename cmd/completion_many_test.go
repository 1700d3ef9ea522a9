package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/shellcomp"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Completion on a store of many tenants, as an operator meets it (issue 46, items 2 and 3):
// in a real bash, zsh and fish on a pseudo-terminal, TAB on an empty tenant, a bare @ and a
// prefix that thousands of ids share answers within completionBound with a few values and a
// hint to type more (zsh took 30 s to show the 2,000 an empty word was offered); the store
// typed first (tenants show STORE <TAB>) is the store, not a tenant; with no store the line
// gets a hint to name one, never a value. The bound is measured from the keys sent to the
// shell to the line it then holds, the shell's own work and the process's start included,
// in CPU time always and in wall time where the machine's load did not hold the TAB back
// (completion_cost_test.go): a regression past it fails, it is no benchmark.

// completionBound is what one TAB may take.
const completionBound = time.Second

// manyTenants is the tenants of the store these tests make once per run: 10^5 tenants, the
// fixture's ids (tenant-00005 to tenant-99999 beside the five named ones).
const manyTenants = "100000"

func manyTenantsStore(t *testing.T) string {
	t.Helper()
	store := filepath.Join(t.TempDir(), "many")
	start := time.Now()
	args := []string{"fixture", "--format", "3", "--seed", "1", "--now", "2026-11-30T10:00:00Z",
		"--tenants", manyTenants, "--hooks", manyTenants, "--dir", store}
	if code, _, errOut := runCLI(context.Background(), args); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	// Its rows in tables, as a node's store at rest: the fixture leaves them all in 23 MB of
	// WAL, which a completion replays (up to its walMax) at a cost the budget's own
	// test holds (TestCompletionIsBounded), not this one.
	st, err := rocks.OpenStore(store, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	for _, cf := range st.DB.Families() {
		if err := st.DB.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	t.Logf("fixture of %s tenants: %s", manyTenants, time.Since(start).Round(time.Millisecond))
	return store
}

func TestCompletionOnAStoreOfManyTenants(t *testing.T) {
	store := manyTenantsStore(t)
	emptyHint := "the first 20 tenants by ordinal: type the start of an id, or @ and an ordinal, for the others"
	prefixHint := "the first 50 tenants that start tenant-0: type more of the id for the others"
	type tabCase struct {
		typed string
		tabs  int    // TABs until the shell lists the values
		line  string // the word on the line after them
		list  []string
		not   []string
	}
	// The first 20 by ordinal are offered: the tenant of @1, not the tenant of @21.
	first, past := idOfOrd(t, store, 1), idOfOrd(t, store, 21)
	cases := func(listTabs int, hints bool) []tabCase {
		cs := []tabCase{
			{"", listTabs, "", []string{first}, []string{past, "possibilities"}},
			{"@", listTabs, "@", []string{"@1", "@20"}, []string{"@21", "possibilities"}},
			// A prefix of 10^4 ids: the first 50, and the word as typed (no "tenant-000"
			// inserted that the others lack).
			{"tenant-0", listTabs, "tenant-0", []string{"tenant-00005", "tenant-00054"}, []string{"tenant-00055", "possibilities"}},
			{"tenant-0999", 1, "tenant-0999", nil, nil},
			{"tenant-09999", 1, "tenant-09999 ", nil, nil},
		}
		if hints {
			cs[0].list = append(cs[0].list, emptyHint)
			cs[2].list = append(cs[2].list, prefixHint)
		}
		return cs
	}
	check := func(t *testing.T, sh *bashShell, shell string, cs []tabCase) {
		t.Helper()
		for _, pre := range []string{
			"ankusa-store tenants show --store " + store + " ",
			// The store typed first: its tenants, as with --store.
			"ankusa-store tenants show " + store + " ",
		} {
			for _, tc := range cs {
				line, printed, took := sh.timed(pre+tc.typed, tc.tabs)
				bound := time.Duration(tc.tabs) * completionBound
				// The CPU time, the completion's own work, holds the bound whatever the
				// machine's load (completion_cost_test.go).
				if took.cpu > bound {
					t.Errorf("%s: %s<TAB x%d> took %s: over %s of CPU a TAB", shell, pre+tc.typed, tc.tabs, took, completionBound)
				}
				// The wall time too, but where a CPU was measurably waited for during the
				// TAB: then tried again, up to three times, and, still over while contended,
				// said rather than failed (its CPU time held above). A completion that
				// lists thousands or blocks is over on an idle machine, and fails there.
				for try := 1; try < 3 && took.wall > bound && took.contended(); try++ {
					t.Logf("%s: %s<TAB x%d> took %s on a contended machine: again", shell, pre+tc.typed, tc.tabs, took)
					_, _, again := sh.timed(pre+tc.typed, tc.tabs)
					if again.wall < took.wall {
						took = again
					}
				}
				switch {
				case took.wall <= bound:
				case took.contended():
					t.Logf("%s: %s<TAB x%d> took %s at best of 3, over %s a TAB while other work held the CPUs", shell, pre+tc.typed, tc.tabs, took, completionBound)
				default:
					t.Errorf("%s: %s<TAB x%d> took %s, over %s a TAB on a machine not contended", shell, pre+tc.typed, tc.tabs, took, completionBound)
				}
				if line != pre+tc.line {
					t.Errorf("%s: %s<TAB x%d>: the word is %q, want %q", shell, pre+tc.typed, tc.tabs, strings.TrimPrefix(line, pre), tc.line)
				}
				for _, w := range tc.list {
					if !strings.Contains(printed, w) {
						t.Errorf("%s: %s<TAB x%d> listed\n%s\nwithout %q", shell, pre+tc.typed, tc.tabs, printed, w)
					}
				}
				for _, w := range tc.not {
					if strings.Contains(printed, w) {
						t.Errorf("%s: %s<TAB x%d> listed\n%s\nwith %q", shell, pre+tc.typed, tc.tabs, printed, w)
					}
				}
			}
		}
		// No store on the line nor in $ANKUSA_STORE (the shells start with it empty): the
		// hint, and the word as typed.
		line, printed := sh.complete("ankusa-store tenants show ", cs[0].tabs)
		if line != "ankusa-store tenants show " || (shell != "fish" && !strings.Contains(printed, noStoreHint)) {
			t.Errorf("%s: tenants show <TAB x%d> without a store: the line is %q, and it printed\n%s", shell, cs[0].tabs, line, printed)
		}
	}

	t.Run("bash", func(t *testing.T) {
		check(t, startBash(t), "bash", cases(2, true))
	})
	t.Run("zsh", func(t *testing.T) {
		check(t, startZsh(t), "zsh", cases(1, true))
	})
	t.Run("fish", func(t *testing.T) {
		// fish has no active help (cobra turns it off there): the word cut short carries
		// the hint as its description.
		cs := cases(1, false)
		cs[2].list = append(cs[2].list, moreDesc)
		check(t, startFish(t), "fish", cs)
	})
}

// idOfOrd is the id of the tenant of ordinal ord in store (tenants show @N).
func idOfOrd(t *testing.T, store string, ord int) string {
	t.Helper()
	code, out, errOut := runCLI(context.Background(), []string{"tenants", "show", "-o", "json", fmt.Sprintf("@%d", ord), store})
	var shown struct{ Tenant string }
	if err := json.Unmarshal([]byte(out), &shown); code != 0 || err != nil || shown.Tenant == "" {
		t.Fatalf("tenants show @%d: exit %d, %v: %s%s", ord, code, err, out, errOut)
	}
	return shown.Tenant
}

// startFish is startBash for fish, with `ankusa-store completion fish | source` as cobra's
// help says.
func startFish(t *testing.T) *bashShell {
	t.Helper()
	if _, err := exec.LookPath("fish"); err != nil {
		t.Fatalf("fish: %v (scripts/setup.sh installs fish)", err)
	}
	home := t.TempDir()
	b := startShell(t, []string{"env", "HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "TERM=xterm", "fish", "--no-config", "-i"})
	b.send(`function fish_prompt; echo -n '$ '; end; ankusa-store completion fish | source; ` +
		`bind \cx 'echo; echo "LINE<"(commandline)">"; commandline -f repaint'; printf 'RE%sDY\n' A` + "\n")
	b.await(regexp.MustCompile(`READY`))
	return b
}

// The loop of the zsh script that runs once for every value offered starts no process:
// cobra's took its tab from a command substitution, a fork of the interactive zsh per value,
// which held the prompt 30 s for 2,000 tenants (issue 46).
func TestZshScriptForksNoMorePerValue(t *testing.T) {
	code, script, errOut := runCLI(context.Background(), []string{"completion", "zsh"})
	if code != 0 {
		t.Fatalf("completion zsh: exit %d: %s", code, errOut)
	}
	loop := regexp.MustCompile(`(?s)\n\s*while IFS='\\n' read -r comp; do\n(.*?)\n\s*done < <`).FindStringSubmatch(script)
	if loop == nil {
		t.Fatalf("completion zsh has no loop over the values (cobra's script changed?):\n%s", script)
	}
	if strings.Contains(loop[1], "$(") || strings.Contains(loop[1], "`") {
		t.Errorf("completion zsh forks for every value offered:\n%s", loop[1])
	}
	if !strings.Contains(loop[1], shellcomp.ZshTab) {
		t.Errorf("completion zsh's loop lacks %s:\n%s", shellcomp.ZshTab, loop[1])
	}
}
