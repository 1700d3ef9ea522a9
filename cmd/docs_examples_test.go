package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/archive"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The documentation's example commands run here, through the real command tree, so that a
// renamed flag, a changed exit code or a command that moved fails CI instead of an operator.
// The convention (`$ ankusa-store ...` lines in ```sh blocks, `# exit N`, one fresh store per
// page, the placeholder paths) is documented at the top of docs/testing.md.

// docExampleFiles are the files whose examples run: the README and every page of docs/.
func docExampleFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"../README.md"}
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, docs...)
}

func TestDocExamples(t *testing.T) {
	stores := newDocStores(t, t.TempDir())
	total := 0
	for _, path := range docExampleFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		doc, err := parseDocExamples(name, src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(doc.Examples) == 0 {
			continue
		}
		total += len(doc.Examples)
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			for _, r := range runDocExamples(t.Context(), doc, dir, stores) {
				if r.Problem != "" {
					t.Errorf("%s\n%s", r.Problem, r.Transcript())
				} else if testing.Verbose() {
					t.Logf("%s:%d: exit %d: ankusa-store %s", r.Example.File, r.Example.Line, r.Code, strings.Join(r.Example.Args, " "))
				}
			}
		})
	}
	if total == 0 {
		t.Fatal("no `$ ankusa-store` example found in README.md or docs/*.md: the extraction is broken")
	}
}

// The runner must be able to fail: a typo'd flag (exit 2), a check that finds nothing when
// the doc says it finds something, and a path outside the placeholders are all reported;
// an `# exit 4` example really meets a locked store.
func TestDocExamplesCanFail(t *testing.T) {
	md := "<!-- examples: format 3 -->\n" +
		"```sh\n" +
		"$ ankusa-store counters verify --repiar /var/lib/ankusa/store\n" +
		"$ ankusa-store counters verify /var/lib/ankusa/store   # exit 1\n" +
		"$ ankusa-store counters verify --repair --yes --backup /backups/pre-repair /var/lib/ankusa/store   # exit 4 while the node runs\n" +
		"$ ankusa-store tenants ls /srv/store\n" +
		"$ ankusa-store migrate --dry-run /var/lib/ankusa/interrupted\n" +
		"$ ankusa-store fixture --format 2 --dir new-store\n" +
		"$ ankusa-store tenants ls new-store\n" +
		"```\n"
	doc, err := parseDocExamples("bad.md", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	stores := newDocStores(t, t.TempDir())
	dir := t.TempDir()
	t.Chdir(dir)
	res := runDocExamples(t.Context(), doc, dir, stores)
	want := []string{
		"bad.md:3: exited 2, want 0",
		"bad.md:4: exited 0, want 1",
		"",
		"bad.md:6: absolute path \"/srv/store\" is not a placeholder",
		"",
		"",
		"",
	}
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d", len(res), len(want))
	}
	for i, r := range res {
		if !strings.HasPrefix(r.Problem, want[i]) || (want[i] == "") != (r.Problem == "") {
			t.Errorf("example %d: problem %q, want one starting with %q\n%s", i+1, r.Problem, want[i], r.Transcript())
		}
	}
	if !strings.Contains(res[2].Stderr, "store is locked") {
		t.Errorf("the # exit 4 example did not meet a locked store:\n%s", res[2].Transcript())
	}
	if !strings.Contains(res[4].Stdout, "mid-migration") {
		t.Errorf("/var/lib/ankusa/interrupted is not a store mid-migration:\n%s", res[4].Transcript())
	}
	if _, err := os.Stat(filepath.Join(dir, "new-store", "CURRENT")); err != nil {
		t.Errorf("a relative path was not resolved in the examples' directory: %v", err)
	}
}

func TestParseDocExamples(t *testing.T) {
	tests := []struct {
		name   string
		md     string
		format uint32
		want   []docExample // File is always "t.md"
		err    string
	}{{
		name:   "sh block, output lines and other programs are not run",
		md:     "text $ ankusa-store no\n```sh\n$ ankusa-store version\nankusa-store dev\n$ mv a b\n```\n",
		format: 2,
		want:   []docExample{{Line: 3, Args: []string{"version"}}},
	}, {
		name: "exit annotation, other comments, quotes",
		md: "```sh\n" +
			"$ ankusa-store counters verify /var/lib/ankusa/store   # exit 1: findings\n" +
			"$ ankusa-store tenants ls --prefix 'acme corp' \"/var/lib/ankusa/store\"  # the table\n" +
			"$ ankusa-store keys decode 74\\ 00000003#not-a-comment\n" +
			"```\n",
		format: 2,
		want: []docExample{
			{Line: 2, Args: []string{"counters", "verify", "/var/lib/ankusa/store"}, Exit: 1},
			{Line: 3, Args: []string{"tenants", "ls", "--prefix", "acme corp", "/var/lib/ankusa/store"}},
			{Line: 4, Args: []string{"keys", "decode", "74 00000003#not-a-comment"}},
		},
	}, {
		name:   "continuation lines and the format directive",
		md:     "<!-- examples: format 3 -->\n```sh\n$ ankusa-store migrate \\\n    --dry-run \\\n    /var/lib/ankusa/store\n```\n",
		format: 3,
		want:   []docExample{{Line: 3, Args: []string{"migrate", "--dry-run", "/var/lib/ankusa/store"}}},
	}, {
		name: "other fences are not examples",
		md:   "```console\n$ ankusa-store version\n```\n",
		err:  "t.md:2: `$ ankusa-store` outside a ```sh block",
	}, {
		name: "a command without its $ would silently not run",
		md:   "```sh\nankusa-store version\n```\n",
		err:  "t.md:2: an ankusa-store command without `$ `",
	}, {
		name: "pipes are refused",
		md:   "```sh\n$ ankusa-store counters verify -o json /var/lib/ankusa/store | jq .verdict\n```\n",
		err:  "t.md:2: shell operator '|'",
	}, {
		name: "variables are refused",
		md:   "```sh\n$ ankusa-store migrate \"$STORE\"\n```\n",
		err:  "t.md:2: expansion",
	}, {
		name: "an unterminated block",
		md:   "```sh\n$ ankusa-store version\n",
		err:  "t.md:1: unterminated ```sh block",
	}, {
		name: "a bad exit annotation",
		md:   "```sh\n$ ankusa-store version # exit one\n```\n",
		err:  "t.md:2: comment \"exit one\"",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parseDocExamples("t.md", []byte(tt.md))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if doc.Format != tt.format {
				t.Errorf("format %d, want %d", doc.Format, tt.format)
			}
			if len(doc.Examples) != len(tt.want) {
				t.Fatalf("%d examples, want %d: %+v", len(doc.Examples), len(tt.want), doc.Examples)
			}
			for i, w := range tt.want {
				g := doc.Examples[i]
				if g.File != "t.md" || g.Line != w.Line || g.Exit != w.Exit || strings.Join(g.Args, "\x00") != strings.Join(w.Args, "\x00") {
					t.Errorf("example %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestMapDocArg(t *testing.T) {
	tests := []struct{ arg, want, err string }{
		{"/var/lib/ankusa/store", "/w/store", ""},
		{"/var/lib/ankusa/store.backup-20261130T100000.000Z", "/w/store.backup-20261130T100000.000Z", ""},
		{"--backup=/backups/pre-v3", "--backup=/w/backups/pre-v3", ""},
		{"store-v3.tar.zst", "store-v3.tar.zst", ""},
		{"2026-11-30T10:00:00Z", "2026-11-30T10:00:00Z", ""},
		{"/srv/copy-of-store", "", "absolute path \"/srv/copy-of-store\""},
		{"--backup=/tmp/x", "", "absolute path \"/tmp/x\""},
		{"~/store", "", "absolute path \"~/store\""},
	}
	for _, tt := range tests {
		got, err := mapDocArg(tt.arg, "/w")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("mapDocArg(%q): error %v, want %q", tt.arg, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("mapDocArg(%q) = %q, %v; want %q", tt.arg, got, err, tt.want)
		}
	}
}

// docExample is one `$ ankusa-store ...` line of a page.
type docExample struct {
	File string
	Line int
	Args []string // after "ankusa-store", placeholders not yet mapped
	Exit int      // the exit code the page promises
}

// docPage is a page's examples and the store they start from.
type docPage struct {
	File     string
	Format   uint32
	Examples []docExample
}

const (
	docStorePlaceholder       = "/var/lib/ankusa/"
	docBackupsPlaceholder     = "/backups/"
	docInterruptedPlaceholder = "/var/lib/ankusa/interrupted"
	// docMidwayArchive is the store the 2 -> 3 migration stopped in after its first step,
	// which pkg/migration keeps (TestMidwayArchive).
	docMidwayArchive = "../testdata/migration/midway.tar.zst"
)

var (
	docFormatDirective = regexp.MustCompile(`<!--\s*examples:\s*format\s+(\d+)\s*-->`)
	docExitWord        = regexp.MustCompile(`^exit\b`)
	docExitComment     = regexp.MustCompile(`^exit\s+(\d{1,3})\b`)
	docFence           = regexp.MustCompile("^\\s*(```+)\\s*([^`\\s]*)")
)

// parseDocExamples finds a page's examples. Its errors are the page's mistakes, each with its
// line: an example that would silently not run is as wrong as one that fails.
func parseDocExamples(file string, src []byte) (docPage, error) {
	page := docPage{File: file, Format: 2}
	if m := docFormatDirective.FindSubmatch(src); m != nil {
		f, err := strconv.ParseUint(string(m[1]), 10, 32)
		if err != nil || (f != 2 && f != 3) {
			return page, fmt.Errorf("%s: <!-- examples: format %s -->: the format is 2 or 3", file, m[1])
		}
		page.Format = uint32(f)
	}
	var errs []error
	bad := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...)))
	}
	lines := strings.Split(string(src), "\n")
	fence, info, fenceLine := "", "", 0
	for i := 0; i < len(lines); i++ {
		n, line := i+1, lines[i]
		trimmed := strings.TrimLeft(line, " \t")
		if m := docFence.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence, info, fenceLine = m[1], m[2], n
			case len(m[1]) >= len(fence) && strings.TrimSpace(line) == m[1]:
				fence = ""
			}
			continue
		}
		isExample := trimmed == "$ ankusa-store" || strings.HasPrefix(trimmed, "$ ankusa-store ")
		switch {
		case fence == "" || info != "sh":
			if isExample {
				bad(n, "`$ ankusa-store` outside a ```sh block is never run: put it in one")
			}
			continue
		case !isExample:
			// Output may start with the program's name (version does); a subcommand after it
			// makes it a command someone forgot to mark.
			if w := strings.Fields(trimmed); len(w) > 1 && w[0] == "ankusa-store" && docCommandNames()[w[1]] {
				bad(n, "an ankusa-store command without `$ ` in a ```sh block is never run: write `$ ankusa-store ...`")
			}
			continue
		}
		text := strings.TrimPrefix(trimmed, "$ ankusa-store")
		for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
			i++
			text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[i])
		}
		words, comment, err := splitShellWords(text)
		if err != nil {
			bad(n, "%v", err)
			continue
		}
		ex := docExample{File: file, Line: n, Args: words}
		if docExitWord.MatchString(comment) {
			m := docExitComment.FindStringSubmatch(comment)
			code := -1
			if m != nil {
				code, _ = strconv.Atoi(m[1])
			}
			if code < 0 || code > 255 {
				bad(n, "comment %q: the exit annotation is `# exit N`, N in 0..255", comment)
				continue
			}
			ex.Exit = code
		}
		page.Examples = append(page.Examples, ex)
	}
	if fence != "" {
		bad(fenceLine, "unterminated ```%s block", info)
	}
	return page, errors.Join(errs...)
}

// docCommandNames are the top-level commands of the tree.
var docCommandNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, c := range docRoot().Commands() {
		names[c.Name()] = true
	}
	return names
})

// splitShellWords splits a command line as sh would, for the quoting an example needs: words
// separated by blanks, '...' and "..." quotes, backslash escapes, and a # comment. Anything a
// shell would expand or redirect is refused: the test runs one command, not a shell.
func splitShellWords(s string) (words []string, comment string, err error) {
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '#' && !inWord:
			return words, strings.TrimSpace(s[i+1:]), nil
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, "", errors.New("unterminated ' quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch s[i] {
				case '$', '`':
					return nil, "", fmt.Errorf("expansion %q in an example: the test runs no shell", s[i])
				case '\\':
					if i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
						i++
					}
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, "", errors.New("unterminated \" quote")
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, "", errors.New("a trailing backslash")
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == '$':
			return nil, "", errors.New("expansion '$' in an example: the test runs no shell")
		case strings.IndexByte("|&;<>()`*?", c) >= 0:
			return nil, "", fmt.Errorf("shell operator %q: an example is one command, with no pipes, redirections, globs or expansions", c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, "", nil
}

// mapDocArg turns the placeholders of an argument into paths under dir, and refuses every
// other absolute path.
func mapDocArg(arg, dir string) (string, error) {
	out := strings.ReplaceAll(arg, docStorePlaceholder, dir+"/")
	out = strings.ReplaceAll(out, docBackupsPlaceholder, dir+"/backups/")
	// A path is absolute at the start of the argument or after a flag's "=".
	for _, p := range []string{out, out[strings.IndexByte(out, '=')+1:]} {
		if (strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~")) && !strings.HasPrefix(p, dir+"/") {
			return "", fmt.Errorf("absolute path %q is not a placeholder (%s..., %s...): an example must not touch the machine running the test",
				p, docStorePlaceholder, docBackupsPlaceholder)
		}
	}
	return out, nil
}

// docStores makes the fresh stores pages start from, once per format, with the fixture
// command itself, and hands out copies.
type docStores struct {
	dir      string
	midway   string // absolute: the examples run in another working directory
	template map[uint32]string
}

// newDocStores must be called before the test changes its working directory.
func newDocStores(t *testing.T, dir string) *docStores {
	t.Helper()
	midway, err := filepath.Abs(docMidwayArchive)
	if err != nil {
		t.Fatal(err)
	}
	return &docStores{dir: dir, midway: midway, template: map[uint32]string{}}
}

func (s *docStores) copyTo(ctx context.Context, format uint32, dst string) error {
	src, ok := s.template[format]
	if !ok {
		src = filepath.Join(s.dir, fmt.Sprintf("format%d", format))
		args := []string{"fixture", "--format", strconv.Itoa(int(format)), "--seed", "1", "--now", "2026-11-30T10:00:00Z", "-q", "--dir", src}
		if code, _, stderr := runCLI(ctx, args); code != 0 {
			return fmt.Errorf("ankusa-store %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		s.template[format] = src
	}
	return storetest.CopyTree(src, dst)
}

// docResult is what one example did; Problem is empty when it kept the page's promise.
type docResult struct {
	Example        docExample
	Args           []string // as run, placeholders mapped
	Code           int
	Stdout, Stderr string
	Problem        string
}

func (r docResult) Transcript() string {
	return fmt.Sprintf("$ ankusa-store %s\n--- stdout\n%s--- stderr\n%s", strings.Join(r.Args, " "), r.Stdout, r.Stderr)
}

// runDocExamples sets up the page's stores under dir (the caller's working directory) and
// runs its examples in order through the real command tree.
func runDocExamples(ctx context.Context, page docPage, dir string, stores *docStores) []docResult {
	res := make([]docResult, len(page.Examples))
	setup := func() error {
		if err := stores.copyTo(ctx, page.Format, filepath.Join(dir, "store")); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, "backups"), 0o755); err != nil {
			return err
		}
		for _, ex := range page.Examples {
			for _, a := range ex.Args {
				if strings.Contains(a, docInterruptedPlaceholder) {
					return archive.ExtractArchive(stores.midway, filepath.Join(dir, "interrupted"))
				}
			}
		}
		return nil
	}
	if err := setup(); err != nil {
		for i, ex := range page.Examples {
			res[i] = docResult{Example: ex, Problem: fmt.Sprintf("%s: setting up the stores: %v", page.File, err)}
		}
		return res
	}
	for i, ex := range page.Examples {
		res[i] = runDocExample(ctx, ex, dir)
	}
	return res
}

func runDocExample(ctx context.Context, ex docExample, dir string) docResult {
	r := docResult{Example: ex, Args: make([]string, len(ex.Args))}
	where := fmt.Sprintf("%s:%d", ex.File, ex.Line)
	for i, a := range ex.Args {
		m, err := mapDocArg(a, dir)
		if err != nil {
			r.Problem = fmt.Sprintf("%s: %v", where, err)
			return r
		}
		r.Args[i] = m
	}
	if ex.Exit == exitcode.Locked {
		// What a running node does to the store: hold it open for writing.
		st, err := rocks.OpenStore(filepath.Join(dir, "store"), rocks.Options{Mode: rocks.ReadWrite})
		if err != nil {
			r.Problem = fmt.Sprintf("%s: holding /var/lib/ankusa/store open for a `# exit 4` example: %v", where, err)
			return r
		}
		defer st.Close()
	}
	r.Code, r.Stdout, r.Stderr = runCLI(ctx, r.Args)
	if r.Code != ex.Exit {
		r.Problem = fmt.Sprintf("%s: exited %d, want %d", where, r.Code, ex.Exit)
	}
	return r
}
