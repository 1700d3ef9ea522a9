package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Which stores the tool reads and writes is said once, in docs/format.md's compatibility
// table, and that table is the code's (rocks.BindingReleases, rocks.MaxTableFormatVersion):
// an operator of a 3.x node who read "format_version 7 is refused" in the runbook decided the
// tool could not touch a store it reads well, and the table named a release that was never
// published. These tests hold every doc to the code.

const (
	compatBegin = "<!-- the compatibility table: cmd TestCompatibilityTableIsTheCode writes it (-update) from rocks.BindingReleases -->\n"
	compatEnd   = "<!-- end of the compatibility table -->\n"
)

// compatTable is docs/format.md's table, from the code.
func compatTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "| erlang-rocksdb | RocksDB it vendors | compression its build has | table format_version it writes (default) | newest it reads | this tool (RocksDB %s) |\n", rocks.LibraryVersion())
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range rocks.BindingReleases {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | reads; writes what the node configured (%d by default), format_version at most %d |\n",
			r.Name(), r.RocksDB, r.CodecNames(), r.WritesTableFormat, r.ReadsTableFormat(), r.WritesTableFormat, min(r.ReadsTableFormat(), rocks.MaxTableFormatVersion))
	}
	fmt.Fprintf(&b, "| a later release | a later RocksDB | | | | reads a store whose tables are all of format_version %d or older; refuses one holding a newer table (exit 3, nothing written) |\n", rocks.MaxTableFormatVersion)
	return b.String()
}

func TestCompatibilityTableIsTheCode(t *testing.T) {
	path := "../docs/format.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := bytes.Cut(doc, []byte(compatBegin))
	_, after, ok2 := bytes.Cut(rest, []byte(compatEnd))
	if !ok || !ok2 {
		t.Fatalf("%s lacks the compatibility table's markers %q and %q", path, compatBegin, compatEnd)
	}
	want := compatTable()
	if *updateGolden {
		out := slices.Concat(before, []byte(compatBegin), []byte(want), []byte(compatEnd), after)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, _, _ := bytes.Cut(rest, []byte(compatEnd)); string(got) != want {
		t.Errorf("%s's compatibility table is not the code's (go test ./cmd -run TestCompatibilityTableIsTheCode -update rewrites it):\n%s\nwant\n%s", path, got, want)
	}
}

// compatDocs is every page an operator reads: the README and docs/.
func compatDocs(t *testing.T) map[string]string {
	t.Helper()
	files := docExampleFiles(t)
	out := map[string]string{}
	for _, f := range append(files, "../DEVELOPERS.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

var (
	// A release named after the binding: "erlang-rocksdb 2.6.2", "erlang-rocksdb 1.8", a run
	// "erlang-rocksdb 2.0.0 - 2.6.2", or a series "erlang-rocksdb 3.x".
	bindingRelease = regexp.MustCompile(`erlang-rocksdb (\d+(?:\.\d+){0,2}|\d+\.x)(?: - (\d+\.\d+\.\d+))?`)
	// A table row of releases: "| 2.0.0 - 2.5.0 |" at the start of a line.
	releaseRow = regexp.MustCompile(`(?m)^\| (\d+\.\d+\.\d+)(?: - (\d+\.\d+\.\d+))? \|`)
	// Claims of what the tool reads: "reads up to N", "reads format_version 2 to N",
	// "format_version N or older".
	readsUpTo = regexp.MustCompile(`reads (?:table format_version )?(?:up to|format_version 2 to) (\d+)|format_version (\d+) or older`)
	// A format_version said to be refused: "a format_version N table ... is refused",
	// "format_version above N ... refused", "a table newer than N".
	refusedVersion = regexp.MustCompile(`format_version (\d+) (?:table|tables)(?:[^.|]|\.\w)*\brefused|format_version above (\d+)|(?:table|tables) newer than (\d+)`)
)

// releaseExists says whether a release named in a doc was published: a whole version is in the
// code's table; "1.8" or "3.x" is a series of which one is.
func releaseExists(v string) bool {
	for _, r := range rocks.BindingReleases {
		for _, rel := range r.Releases {
			switch {
			case rel == v, strings.HasSuffix(v, ".x") && strings.HasPrefix(rel, strings.TrimSuffix(v, "x")),
				strings.Count(v, ".") < 2 && strings.HasPrefix(rel, v+"."):
				return true
			}
		}
	}
	return false
}

func TestDocsNameOnlyPublishedReleases(t *testing.T) {
	for name, doc := range compatDocs(t) {
		for _, m := range bindingRelease.FindAllStringSubmatch(doc, -1) {
			for _, v := range m[1:] {
				if v != "" && !releaseExists(v) {
					t.Errorf("%s: %q names erlang-rocksdb %s, which is no release (rocks.BindingReleases)", name, m[0], v)
				}
			}
		}
		for _, m := range releaseRow.FindAllStringSubmatch(doc, -1) {
			// Only rows of release numbers: a table of other versions (RocksDB's) names one
			// the binding never published in its first column, and is not this table.
			if _, ok := rocks.FindRelease(m[1]); !ok && !strings.Contains(name, "format") {
				continue
			}
			for _, v := range m[1:] {
				if v != "" && !releaseExists(v) {
					t.Errorf("%s: row %q names erlang-rocksdb %s, which is no release", name, m[0], v)
				}
			}
		}
	}
}

// The compatibility table is in docs/format.md alone: another page that repeats a row would
// drift from it (the README's did: it named 3.1.2 as vendoring a RocksDB it did not).
func TestCompatibilityTableOnce(t *testing.T) {
	for name, doc := range compatDocs(t) {
		if name == "format.md" {
			continue
		}
		if m := releaseRow.FindString(doc); m != "" {
			t.Errorf("%s repeats a row of the compatibility table (%q): point to docs/format.md instead", name, m)
		}
	}
}

func TestDocsSayWhatIsRead(t *testing.T) {
	for name, doc := range compatDocs(t) {
		for _, m := range readsUpTo.FindAllStringSubmatch(doc, -1) {
			for _, v := range m[1:] {
				if n, err := strconv.Atoi(v); err == nil && n != rocks.MaxTableFormatVersion && !ofAnotherReader(doc, m[0]) {
					t.Errorf("%s: %q, but the tool reads table format_version up to %d", name, m[0], rocks.MaxTableFormatVersion)
				}
			}
		}
		for _, m := range refusedVersion.FindAllStringSubmatch(doc, -1) {
			for _, v := range m[1:] {
				if n, err := strconv.Atoi(v); err == nil && n < rocks.MaxTableFormatVersion {
					t.Errorf("%s: %q: the tool refuses no table of format_version %d or older, only newer than %d", name, m[0], rocks.MaxTableFormatVersion, rocks.MaxTableFormatVersion)
				} else if err == nil && n == rocks.MaxTableFormatVersion && strings.HasPrefix(m[0], "format_version "+v+" ") {
					t.Errorf("%s: %q: a format_version %d table is read, not refused", name, m[0], n)
				}
			}
		}
	}
}

// ofAnotherReader says whether a "reads up to N" in doc is said of another RocksDB than the
// tool's (the oldest node's 7.8.3, "whose RocksDB reads ..."): the sentence names it.
func ofAnotherReader(doc, claim string) bool {
	i := strings.Index(doc, claim)
	start := max(strings.LastIndexAny(doc[:i], ".\n|"), 0)
	s := doc[start:i]
	return strings.Contains(s, "7.8.3") || strings.Contains(s, "7.7.3") || strings.Contains(s, "node")
}

// `ankusa-store version` says what it reads and which nodes' stores, from the same constants,
// and the runbook's copy of its output says the same.
func TestVersionSaysWhatIsRead(t *testing.T) {
	code, out, _ := runCLI(t.Context(), []string{"version"})
	if code != 0 {
		t.Fatalf("version exited %d", code)
	}
	readsLine := fmt.Sprintf("table format_version: reads up to %d;", rocks.MaxTableFormatVersion)
	nodesLine := "nodes: " + rocks.SupportedReleases().String()
	for _, want := range []string{readsLine, nodesLine} {
		if !strings.Contains(out, want) {
			t.Errorf("version says\n%s\nwithout %q", out, want)
		}
	}
	mig := compatDocs(t)["migration.md"]
	for _, want := range []string{readsLine, nodesLine} {
		if !strings.Contains(mig, want) {
			t.Errorf("docs/migration.md's copy of version's output lacks %q", want)
		}
	}
}
