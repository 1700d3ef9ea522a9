package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
)

// The completion an operator meets: bash's own, in a pseudo-terminal, with the script of
// `ankusa-store completion bash` loaded as the README says, typing and pressing TAB. What
// __complete answers is tested in testdata/script/completion_values.txtar; this is whether
// the shell then puts it on the line.

// bashCompletion is bash-completion's loader, which cobra's bash script runs on (a Debian
// bash sources it for every interactive shell).
const bashCompletion = "/usr/share/bash-completion/bash_completion"

// bashShell is an interactive bash on a pseudo-terminal with the tool's completion loaded,
// the tool being this test binary as the CLI.
type bashShell struct {
	t   *testing.T
	pid int // the shell's process, whose CPU time (its own and its children's) a TAB costs
	pty *os.File
	mu  sync.Mutex
	out bytes.Buffer
}

func startBash(t *testing.T) *bashShell {
	t.Helper()
	if _, err := os.Stat(bashCompletion); err != nil {
		t.Fatalf("%s: %v (scripts/setup.sh installs bash-completion)", bashCompletion, err)
	}
	b := startShell(t, []string{"bash", "--norc", "--noprofile", "-i"})
	b.send("source " + bashCompletion + "; source <(ankusa-store completion bash); " +
		`bind -x '"\C-x": printf "\nLINE<%s>\n" "$READLINE_LINE"'; printf 'RE%sDY\n' A` + "\n")
	b.await(regexp.MustCompile(`READY`))
	return b
}

// startZsh is startBash for zsh, with compinit and `source <(ankusa-store completion zsh)`
// as cobra's help says.
func startZsh(t *testing.T) *bashShell {
	t.Helper()
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Fatalf("zsh: %v (scripts/setup.sh installs zsh)", err)
	}
	b := startShell(t, []string{"zsh", "-f", "-i"})
	b.send(`bindkey -e; autoload -U compinit; compinit -u; source <(ankusa-store completion zsh); ` +
		`pl() { print -r -- "LINE<$BUFFER>" }; zle -N pl; bindkey '^X' pl; printf 'RE%sDY\n' A` + "\n")
	b.await(regexp.MustCompile(`READY`))
	return b
}

// startShell starts argv, an interactive shell, on a pseudo-terminal, with this test binary
// on its PATH as ankusa-store.
func startShell(t *testing.T, argv []string) *bashShell {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "ankusa-store")); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), asCLIEnv+"=1", "PATH="+bin+":"+os.Getenv("PATH"), "PS1=$ ", "HISTFILE=/dev/null",
		"INPUTRC=/dev/null", "TERM=dumb", "ANKUSA_STORE=", "LC_ALL=C.UTF-8", progress.Env+"=", "ZDOTDIR="+bin)
	f, err := pty.StartWithSize(c, &pty.Winsize{Cols: 200, Rows: 50})
	if err != nil {
		t.Fatal(err)
	}
	b := &bashShell{t: t, pid: c.Process.Pid, pty: f}
	t.Cleanup(func() {
		_ = c.Process.Kill()
		_ = c.Wait()
		f.Close()
	})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			b.mu.Lock()
			b.out.Write(buf[:n])
			b.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return b
}

func (b *bashShell) send(s string) {
	b.t.Helper()
	if _, err := b.pty.Write([]byte(s)); err != nil {
		b.t.Fatal(err)
	}
}

// await waits for re in what bash printed since the last await, and returns its match.
func (b *bashShell) await(re *regexp.Regexp) []string {
	b.t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b.mu.Lock()
		s := b.out.String()
		if m := re.FindStringSubmatchIndex(s); m != nil {
			sub := re.FindStringSubmatch(s)
			b.out.Next(m[1])
			b.mu.Unlock()
			return sub
		}
		b.mu.Unlock()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.t.Fatalf("bash did not print %v; it printed:\n%s", re, b.out.String())
	return nil
}

// complete types line, presses TAB tabs times and returns the line as readline then holds
// it (C-x prints it) and what bash printed meanwhile (a list of candidates), then clears the
// line for the next.
func (b *bashShell) complete(line string, tabs int) (string, string) {
	b.t.Helper()
	b.send(line + strings.Repeat("\t", tabs) + "\x18")
	m := b.await(regexp.MustCompile(`(?s)^(.*?)LINE<([^>]*)>`))
	b.send("\x15") // C-u: an empty line for the next
	return m[2], m[1]
}

// run runs line in the shell and returns what it printed and its exit status.
func (b *bashShell) run(line string) (string, string) {
	b.t.Helper()
	b.send(line + "\n" + `printf 'EX%sIT<%d>\n' '' "$?"` + "\n")
	m := b.await(regexp.MustCompile(`(?s)^(.*?)EXIT<(\d+)>`))
	return m[1], m[2]
}

// A tenant by its ordinal (issue 29, item 1): @N typed bare completes and runs; #N bare is a
// comment in bash, so it is typed quoted or escaped, and completes so.
func TestBashCompletesTenantOrdinals(t *testing.T) {
	store := storetest.Extract(t, "store-v3.tar.zst")
	b := startBash(t)
	pre := "ankusa-store tenants show --store " + store + " "
	for _, tc := range []struct {
		typed string
		tabs  int
		want  string // the word on the line after TAB
		list  string // in the candidates bash lists, when it lists them
	}{
		{"@2", 1, "@2 ", ""},
		{"@", 2, "@", "zürich-東京-🚀"},
		{"'#2", 1, "'#2' ", ""},
		{`"#2`, 1, `"#2" `, ""},
		{`\#2`, 1, `\#2 `, ""},
		// Several candidates: the word stays as typed (cobra's script alone left a bare #,
		// the rest of the line a comment).
		{`\#`, 2, `\#`, `\#2`},
		{"'#", 2, "'#", "#2"},
		{"ac", 1, "acme ", ""},
	} {
		line, printed := b.complete(pre+tc.typed, tc.tabs)
		if line != pre+tc.want {
			t.Errorf("%s<TAB x%d>: the line is %q, want %q", tc.typed, tc.tabs, strings.TrimPrefix(line, pre), tc.want)
		}
		if tc.list != "" && !strings.Contains(printed, tc.list) {
			t.Errorf("%s<TAB x%d>: bash listed\n%s\nwithout %q", tc.typed, tc.tabs, printed, tc.list)
		}
	}
	// --tenant of every command that takes one, the store from the line.
	for _, c := range []string{"dlq scan", "dlq export", "counters verify", "scan due"} {
		pre := "ankusa-store " + c + " --store " + store + " --tenant "
		if line, _ := b.complete(pre+"@4", 1); line != pre+"@4 " {
			t.Errorf("%s --tenant @4<TAB>: the line is %q", c, strings.TrimPrefix(line, pre))
		}
	}
	// And typed bare, @2 reaches the tool; #2 does not (bash drops it and all after it).
	out, code := b.run("ankusa-store tenants show -q @2 " + store)
	if code != "0" || !strings.Contains(out, "zürich-東京-🚀") {
		t.Errorf("tenants show @2: exit %s\n%s", code, out)
	}
	out, code = b.run("ankusa-store tenants show #2 " + store)
	if code != "2" || !strings.Contains(out, "TENANT") {
		t.Errorf("tenants show #2 bare: exit %s, want 2 (a comment: the tool sees no TENANT)\n%s", code, out)
	}
}

// What the store has (issue 29, item 2): scan offers only the families the store has, and
// dlq show finds a ref by its seq over the whole dead-letter set, not the newest 2,000.
func TestBashCompletesWhatTheStoreHas(t *testing.T) {
	dir := t.TempDir()
	s2, big := filepath.Join(dir, "s2"), filepath.Join(dir, "big")
	for _, args := range [][]string{
		{"fixture", "--format", "2", "--seed", "1", "--now", "2026-11-30T10:00:00Z", "--dir", s2},
		{"fixture", "--format", "3", "--seed", "1", "--now", "2026-11-30T10:00:00Z", "--tenants", "50", "--hooks", "12000", "--dir", big},
		{"fixture", "--format", "3", "--seed", "1", "--now", "2026-11-30T10:00:00Z", "--dir", filepath.Join(dir, "s3")},
	} {
		if code, _, errOut := runCLI(context.Background(), args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	code, out, errOut := runCLI(context.Background(), []string{"dlq", "scan", "--limit", "0", "-o", "json", big})
	if code != 0 {
		t.Fatalf("dlq scan: %d %s", code, errOut)
	}
	var page struct{ Rows []struct{ Ref string } }
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatal(err)
	}
	if max := defaultCompletionBounds().max; len(page.Rows) <= max {
		t.Fatalf("the store has %d dead letters: not more than the %d a page of the newest held", len(page.Rows), max)
	}
	oldest := page.Rows[len(page.Rows)-1].Ref

	b := startBash(t)
	for _, tc := range []struct{ line, want string }{
		// tenants (a column family) and counters (a family and a column family) are format
		// 3's: on format 2 there is nothing to complete.
		{"ankusa-store scan --store " + s2 + " ten", "ten"},
		{"ankusa-store scan --store " + s2 + " cf:co", "cf:co"},
		{"ankusa-store scan --store " + s2 + " co", "co"},
		{"ankusa-store scan --store " + filepath.Join(dir, "s3") + " co", "counters "},
		{"ankusa-store scan --store " + s2 + " due", "due_v2 "},
		{"ankusa-store dlq show --store " + big + " " + oldest, oldest + " "},
	} {
		line, _ := b.complete(tc.line, 1)
		i := strings.LastIndexByte(tc.line, ' ')
		if got := line[min(i+1, len(line)):]; got != tc.want {
			t.Errorf("%s<TAB>: the word is %q, want %q", tc.line, got, tc.want)
		}
	}
}

// zsh passes the word as typed too: an open quote reached cobra's eval and asked for
// nothing; @N, '#N, "#N and \#N complete.
func TestZshCompletesTenantOrdinals(t *testing.T) {
	store := storetest.Extract(t, "store-v3.tar.zst")
	z := startZsh(t)
	pre := "ankusa-store tenants show --store " + store + " "
	for _, tc := range []struct{ typed, want string }{
		{"@2", "@2 "},
		{"'#2", "'#2' "},
		{`"#2`, `"#2" `},
		{`\#2`, `\#2 `},
		{"ac", "acme "},
	} {
		if line, _ := z.complete(pre+tc.typed, 1); line != pre+tc.want {
			t.Errorf("zsh: %s<TAB>: the line is %q, want %q", tc.typed, strings.TrimPrefix(line, pre), tc.want)
		}
	}
	// Several candidates: zsh lists them and leaves the word as typed (no bare #, which
	// would make the rest of the line a comment once run).
	for _, tc := range []struct{ typed, list string }{
		{"@", "zürich-東京-🚀"},
		{"'#", "#2"},
		{`"#`, "#2"},
		{`\#`, "#2"},
	} {
		line, printed := z.complete(pre+tc.typed, 1)
		if line != pre+tc.typed {
			t.Errorf("zsh: %s<TAB>: the line is %q, want it as typed", tc.typed, strings.TrimPrefix(line, pre))
		}
		if !strings.Contains(printed, tc.list) {
			t.Errorf("zsh: %s<TAB>: zsh listed\n%s\nwithout %q", tc.typed, printed, tc.list)
		}
	}
	out, code := z.run("ankusa-store tenants show -q @2 " + store)
	if code != "0" || !strings.Contains(out, "zürich-東京-🚀") {
		t.Errorf("zsh: tenants show @2: exit %s\n%s", code, out)
	}
}
