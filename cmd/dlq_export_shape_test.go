package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/timearg"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/tenant"
)

// dlq export's progress line has a total (issue 29 item 7): the dead letters the
// selection holds, counted from the index keys beside the export, is exactly the number of
// lines the export writes, for every selection (every tenant, a tenant on format 3, a
// window, a sink, --limit). On format 2 with --tenant, where counting would read every
// hook, there is no total rather than a wrong one.
func TestDLQExportProgressTotalIsTheLines(t *testing.T) {
	v3 := storetest.Extract(t, "store-v3.tar.zst")
	v2 := storetest.Extract(t, "store-v2.tar.zst")
	sink := uint16(2)
	for _, tc := range []struct {
		store  string
		args   []string
		tenant string
		o      inspect.DLQOptions
		limit  int
		known  bool
	}{
		{v3, nil, "", inspect.DLQOptions{}, 0, true},
		{v3, []string{"--tenant", "acme"}, "acme", inspect.DLQOptions{}, 0, true},
		{v3, []string{"--tenant", "initech", "--sink", "2", "--since", "2026-11-30T09:58:00Z", "--until", "1796032740000"}, "initech",
			inspect.DLQOptions{Sink: &sink, Since: mustTime(t, "2026-11-30T09:58:00Z"), Until: mustTime(t, "2026-11-30T09:59:00Z")}, 0, true},
		{v3, []string{"--limit", "3"}, "", inspect.DLQOptions{}, 3, true},
		{v2, nil, "", inspect.DLQOptions{}, 0, true},
		{v2, []string{"--tenant", "acme"}, "acme", inspect.DLQOptions{}, 0, false},
	} {
		streams, _, out, errb := iostreams.Test()
		args := append(append([]string{"dlq", "export"}, tc.args...), tc.store)
		if code := Execute(context.Background(), streams, BuildInfo{Version: "test"}, args); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errb.String())
		}
		lines := int64(strings.Count(out.String(), "\n"))
		st, err := rocks.OpenStore(tc.store, rocks.Options{Mode: rocks.ReadOnly})
		if err != nil {
			t.Fatal(err)
		}
		if tc.tenant != "" {
			a, err := tenant.ParseArg(tc.tenant)
			if err != nil {
				t.Fatal(err)
			}
			if tc.o.Tenant, err = tenant.Resolve(context.Background(), st, a); err != nil {
				t.Fatal(err)
			}
		}
		total, known := exportTotal(context.Background(), st, tc.o, tc.limit)
		st.Close()
		switch {
		case known != tc.known:
			t.Errorf("%v: the progress total is known: %v, want %v", args, known, tc.known)
		case tc.known && total != lines:
			t.Errorf("%v: the progress total is %d, the export wrote %d lines", args, total, lines)
		case tc.known && lines == 0:
			t.Errorf("%v: the case selects nothing: it proves nothing", args)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := timearg.Instant(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// dlq export on a terminal is refused, exit 2 and nothing written, unless -o json asks
// for the lines there (issue 29 item 8: it was raw JSON); with -o json its failure is one
// line of JSON, as every line of a JSON Lines stream is (it was an indented document).
func TestDLQExportOutputShapes(t *testing.T) {
	v3 := storetest.Extract(t, "store-v3.tar.zst")
	out, code := runOnTerminal(t, 80, nil, "dlq", "export", "--limit", "1", v3)
	if code != exitcode.Usage || !strings.Contains(out, "stdout is a terminal: dlq export writes JSON Lines") || strings.Contains(out, `{"schema"`) {
		t.Errorf("on a terminal: exit %d\n%s", code, out)
	}
	out, code = runOnTerminal(t, 80, nil, "dlq", "export", "-o", "json", "--limit", "1", v3)
	if code != 0 || !strings.Contains(out, `{"schema":1,"ref":`) {
		t.Errorf("on a terminal with -o json: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"dlq", "export", "-o", "json", "nothing-here"},
		{"dlq", "export", "-o", "json", "--limit", "-1", v3},
		{"dlq", "export", "-o", "json", "--no-such-flag", v3},
	} {
		streams, _, stdout, _ := iostreams.Test()
		code := Execute(context.Background(), streams, BuildInfo{Version: "test"}, args)
		s := stdout.String()
		if code == 0 || strings.Count(s, "\n") != 1 || !strings.HasPrefix(s, `{"schema":1,"error":{`) || !strings.HasSuffix(s, "}\n") {
			t.Errorf("%v: exit %d, stdout %q: want one line of JSON, the error", args, code, s)
		}
	}
}

// The total reaches the progress line the export draws (countExportAsync, beside the
// export): in a log, a line every interval (1ms here) while the export runs; once the count
// is in, the lines read "N/TOTAL dead letters", TOTAL the lines the export writes.
func TestDLQExportProgressLineHasTheTotal(t *testing.T) {
	t.Setenv(progress.IntervalEnv, "1ms")
	src := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, src, 20000, 50, 4)
	streams, _, out, errb := iostreams.Test()
	if code := Execute(context.Background(), streams, BuildInfo{Version: "test"},
		[]string{"dlq", "export", "--progress", "plain", src}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	lines := strings.Count(out.String(), "\n")
	want := fmt.Sprintf("/%s dead letters (", words.Group(int64(lines)))
	if lines < 1000 || !strings.Contains(errb.String(), want) {
		t.Errorf("%d lines exported; no progress line with %q:\n%.2000s", lines, want, errb.String())
	}
}
