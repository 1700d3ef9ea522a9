package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/archive"
)

// Every command, interrupted (its context cancelled, as main's SIGINT, SIGTERM and SIGHUP
// handling does) before its work is done, says so in one sentence: what it left and what to
// do, "interrupted" once, never Go's "context canceled" (issue 21, item 18: "Error:
// interrupted; the store is untouched (it was opened read-only): interrupted: the store is
// untouched (format 2): run the same command again: context canceled"; fixture said only
// "Error: context canceled"). A command that finishes before it looks at its context exits
// as it would have: its answer is whole.
func TestInterruptSaysItOnce(t *testing.T) {
	work := t.TempDir()
	v2 := filepath.Join(work, "v2")
	v3 := filepath.Join(work, "v3")
	for _, p := range []struct{ archive, dir string }{{"store-v2.tar.zst", v2}, {"store-v3.tar.zst", v3}} {
		if err := archive.ExtractArchive(filepath.Join(storetest.Testdata(), p.archive), p.dir); err != nil {
			t.Fatal(err)
		}
	}
	// What each interrupt must say; "" is the read-only commands' sentence.
	const readOnly = "Error: interrupted: nothing was written, the store is as it was; run the command again for its answer\n"
	cases := []struct {
		args []string
		want string // the whole of stderr when the run was interrupted
	}{
		{[]string{"migrate", "--method", "steps", "--no-backup", v2}, "Error: interrupted: the store is untouched (format 2); run the same command again\n"},
		{[]string{"migrate", "--no-backup", v2}, "Error: interrupted: nothing was changed: the store is as it was (a new empty family at most); run the same command again\n"},
		{[]string{"migrate", "--dry-run", v2}, readOnly},
		{[]string{"fixture", "--hooks", "400", filepath.Join(work, "f.tar.zst")}, "Error: interrupted: nothing was written at " + filepath.Join(work, "f.tar.zst") + " (the partial store was removed); run the same command again\n"},
		{[]string{"fixture", "--hooks", "400", "--dir", filepath.Join(work, "f")}, "Error: interrupted: nothing was written at " + filepath.Join(work, "f") + " (the partial store was removed); run the same command again\n"},
		{[]string{"counters", "verify", v3}, readOnly},
		{[]string{"counters", "verify", "--secondary", v3}, readOnly},
		{[]string{"counters", "verify", "--repair", "--yes", "--backup", filepath.Join(work, "cp"), v3}, "Error: interrupted: nothing was written, the store is as it was; run the same command again\n"},
		{[]string{"status", v3}, readOnly},
		{[]string{"status", v2}, readOnly},
		{[]string{"tenants", "ls", v3}, readOnly},
		{[]string{"tenants", "ls", v2}, readOnly},
		{[]string{"tenants", "show", "acme", v3}, readOnly},
		{[]string{"dlq", "scan", v3}, readOnly},
		{[]string{"dlq", "scan", v2}, readOnly},
		{[]string{"dlq", "show", "383:1", v3}, readOnly},
		{[]string{"scan", "due", v3}, readOnly},
		{[]string{"scan", "--tenant", "acme", "due", v3}, readOnly},
		{[]string{"keys", "decode", "--store", v3, "0x4400000001000001a22be2bd740000000000000001000a"}, readOnly},
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range cases {
		for _, output := range []string{"", "json"} {
			args := tc.args
			if output != "" {
				args = append([]string{"-o", output}, args...)
			}
			streams, _, out, errb := iostreams.Test()
			code := Execute(ctx, streams, BuildInfo{Version: "test"}, args)
			switch code {
			case exitcode.OK:
				t.Logf("%v: done before it looked at its context", args)
				continue
			case exitcode.Interrupted:
			default:
				t.Errorf("%v: exit %d, want 130 (or 0)\nstderr %s", args, code, errb.String())
				continue
			}
			// Progress and notes may come before it (migrate's start line); the error is the
			// last line, and the only one that says "interrupted".
			var kept []string
			for _, l := range strings.SplitAfter(errb.String(), "\n") {
				if !strings.HasPrefix(l, "progress: ") && !strings.HasPrefix(l, "note: ") {
					kept = append(kept, l)
				}
			}
			if got := strings.Join(kept, ""); got != tc.want || strings.Count(errb.String(), "interrupted") != 1 {
				t.Errorf("%v:\n got %q\nwant %q", args, errb.String(), tc.want)
			}
			if output == "json" && !strings.Contains(out.String(), `"message": "`+strings.TrimSuffix(strings.TrimPrefix(tc.want, "Error: "), "\n")+`"`) {
				t.Errorf("%v: the JSON error is not the sentence:\n%s", args, out.String())
			}
		}
	}
}
