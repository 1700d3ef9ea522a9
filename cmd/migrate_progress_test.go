package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A bulk run shows each of its stages on stderr, piped and on a terminal: the pass over the
// index's keys in keys read, the join in rows answered, the reads in rows by the steps' phases, then the sort, the write of the table files and the ingest in bytes,
// each with its count out of its own total and, once it ran, its rate; a stage's line as
// it ends, then the next one's as it starts. None with -q or --progress=none.
func TestMigrateBulkProgressByStage(t *testing.T) {
	t.Setenv(progress.IntervalEnv, "1ms")
	src := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, src, 6000, 50, 3)
	namesPhase := regexp.MustCompile(`migrate .*?: read: phase (due|inflight|dead|archive|finish) +[0-9,]+/[0-9,]+ rows`)
	stages := []*regexp.Regexp{
		// The pass over the index's keys counts them against the rows the space check
		// counted or, as here, bounded ("of ~N": the bound is above the keys).
		regexp.MustCompile(`migrate .*?: keys +[1-9][0-9,]*(?:/| of ~)[1-9][0-9,]* rows`),
		// The join counts the rows it answers of those its key pass counted, the reads every
		// key of the phases (strays too), which that pass counted as well.
		regexp.MustCompile(`migrate .*?: join +0/[1-9][0-9,]* rows \(0%\)`),
		regexp.MustCompile(`migrate .*?: join +([1-9][0-9,]*)/([1-9][0-9,]*) rows \(100%\)`),
		// The reads' lines name the phase they are in: at least one does (when the phases
		// pass within one interval, the first so named may be the finish's own, the next).
		namesPhase,
		regexp.MustCompile(`migrate .*?: read: phase finish +([1-9][0-9,]*)/([1-9][0-9,]*) rows \(100%\)`),
		regexp.MustCompile(`migrate .*: sort +0/[1-9][0-9,]* bytes \(0%\)`),
		regexp.MustCompile(`migrate .*: sort +([1-9][0-9,]*)/([1-9][0-9,]*) bytes \(100%\) +[0-9,]+ bytes/s`),
		regexp.MustCompile(`migrate .*: write +0/[1-9][0-9,]* bytes \(0%\)`),
		regexp.MustCompile(`migrate .*: write +([1-9][0-9,]*)/([1-9][0-9,]*) bytes \(100%\) +[0-9,]+ bytes/s`),
		regexp.MustCompile(`migrate .*: ingest +0/[1-9][0-9,]* bytes \(0%\)`),
		regexp.MustCompile(`migrate .*: ingest +([1-9][0-9,]*)/([1-9][0-9,]*) bytes \(100%\)`),
	}
	for _, tc := range []struct {
		name     string
		args     []string
		terminal bool
		shown    bool
	}{
		{"piped", nil, false, true},
		{"terminal", nil, true, true},
		{"quiet", []string{"-q"}, true, false},
		{"none", []string{"--progress=none"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := storetest.CopyStore(t, src)
			var out, errb bytes.Buffer
			streams := iostreams.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, ErrIsTerminal: tc.terminal}
			args := append(append([]string{"migrate", "--no-backup", "--method", "bulk", "--now", migrateNow}, tc.args...), dir)
			if code := Execute(context.Background(), streams, BuildInfo{Version: "test"}, args); code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, code, errb.String())
			}
			text := errb.String()
			if !tc.shown {
				if strings.Contains(text, "bytes") || strings.Contains(text, "progress:") {
					t.Fatalf("%v: progress shown:\n%q", args, text)
				}
				return
			}
			at := 0
			for _, re := range stages {
				loc := re.FindStringIndex(text[at:])
				if loc == nil {
					t.Fatalf("%v: no %s after offset %d:\n%s", args, re, at, text)
				}
				if m := re.FindStringSubmatch(text[at:]); len(m) == 3 && m[1] != m[2] {
					t.Errorf("%v: a stage ended at %s of %s", args, m[1], m[2])
				}
				if re == namesPhase {
					// Found; the line may be the next one's too.
					at += loc[0]
					continue
				}
				at += loc[1]
			}
		})
	}
}

// The progress line's total is the rows the space check counted, shown from the line the
// run starts with, piped as on a terminal, by either method: no second pass over the keys
// counts them again (at 10^8 rows some 20 s of CPU beside the run, or before it). The bulk
// method's check counts none on a store whose index family holds few deletions: its total is
// the bound it read from the table files (migration.EstimateBulkSpace), shown as about so many.
func TestMigrateProgressTotalFromTheSpaceCheck(t *testing.T) {
	t.Setenv(progress.IntervalEnv, "1ms")
	src := filepath.Join(t.TempDir(), "store")
	// 6,000 rows asked for; the last seq's second sink makes 6,001.
	migWriteV2Store(t, src, 6000, 50, 3)
	st, err := rocks.OpenStore(src, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := st.TableRows(format.CFIndex)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The first count a progress line shows: "(from the start): 6,001 rows" when piped,
	// "0/6,001 rows" on a terminal; "0 rows" or none before its total is known. A bound:
	// "(from the start): about N rows (RocksDB's estimate)", "0 of ~N rows".
	first := regexp.MustCompile(`migrate [^\r\n]*?([ :] (?:[0-9,]+/)?|: about | of ~)([0-9,]+) rows`)
	for _, tc := range []struct {
		method string
		total  string
		about  bool // shown as a bound: "about N", "of ~N"
	}{
		{"steps", "6,001", false},
		{"bulk", words.Group(tr.Rows()), true},
	} {
		for _, terminal := range []bool{false, true} {
			dir := storetest.CopyStore(t, src)
			var out, errb bytes.Buffer
			streams := iostreams.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb, ErrIsTerminal: terminal}
			args := []string{"migrate", "--no-backup", "--method", tc.method, "--now", migrateNow, dir}
			if code := Execute(context.Background(), streams, BuildInfo{Version: "test"}, args); code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, code, errb.String())
			}
			m := first.FindStringSubmatch(errb.String())
			if m == nil || m[2] != tc.total || (m[1] == ": about " || m[1] == " of ~") != tc.about {
				t.Errorf("%s, terminal %v: the first count shown is %q, want the total, %s rows (a bound: %v)\n%s", tc.method, terminal, m, tc.total, tc.about, errb.String())
			}
		}
	}
}
