package cmd

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/safetext"
	"github.com/ankusa/ankusa-store/pkg/archive"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	onestore "github.com/ankusa/ankusa-store/pkg/store"
)

// A completion from the store is bounded: a read that takes longer than the budget offers
// nothing, in about the budget, and says that it gave up; a scan stops at its few values
// for an empty word, its max for one typed in part, and says how to reach the
// others.
func TestCompletionIsBounded(t *testing.T) {
	store := filepath.Join(t.TempDir(), "s3")
	if err := archive.ExtractArchive("../testdata/store-v3.tar.zst", store); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	c := &cobra.Command{}
	c.SetErr(&stderr)
	// The bounds as a command line's Env sets them (Env.completion, the root's pre-run).
	bound := func(set func(b *completionBounds)) {
		b := defaultCompletionBounds()
		set(&b)
		c.SetContext(withCompletionBounds(context.Background(), b))
	}

	bound(func(b *completionBounds) { b.budget = 200 * time.Millisecond })
	start := time.Now()
	got, _ := fromStore(c, store, tenantFamilies, func(ctx context.Context, _ *rocks.Store, _ func(string)) []cobra.Completion {
		<-ctx.Done()
		time.Sleep(5 * time.Second) // a read that does not look at its context
		return []cobra.Completion{"late"}
	})
	if took := time.Since(start); len(got) != 1 || !strings.HasPrefix(got[0], "_activeHelp_ completion gave up: ") || took > 2*time.Second {
		t.Errorf("a slow completion offered %q after %s; want only its active help after about %s", got, took, boundsOf(c).budget)
	}
	if !strings.Contains(stderr.String(), "completion gave up: opening and reading "+store+" took longer than 200ms: nothing offered") {
		t.Errorf("a slow completion said %q on stderr", stderr.String())
	}

	tenants := func(typed string) []cobra.Completion {
		got, _ := fromStore(c, store, tenantFamilies, func(ctx context.Context, st *rocks.Store, say func(string)) []cobra.Completion {
			return tenantCompletions(ctx, st, boundsOf(c), typed, say)
		})
		return got
	}
	for _, tc := range []struct {
		typed    string
		few, max int
		want     []string
		hint     string
	}{
		// The sample store's tenants by ordinal: acme @1, zürich @2, default @3, initech @4, ...
		{"", 3, 100, []string{"acme\t@1", "zürich-東京-🚀\t@2", "default\t@3"}, "the first 3 tenants by ordinal: type the start of an id, or @ and an ordinal, for the others"},
		{"", 6, 1, nil, ""},
		// A word cut short is offered too, so that the shell inserts nothing the others lack.
		{"@", 2, 100, []string{"@1\tacme", "@2\tzürich-東京-🚀", "@\t" + moreDesc}, "the first 2 ordinals: type more digits for the others"},
		{"'#", 2, 100, []string{"'#1\tacme", "'#2\tzürich-東京-🚀", "'#\t" + moreDesc}, "the first 2 ordinals: type more digits for the others"},
		{"@1", 1, 100, []string{"@1\tacme"}, ""},
		{"a", 1, 100, []string{"acme\t@1"}, ""},
	} {
		bound(func(b *completionBounds) { b.few, b.max = tc.few, tc.max })
		got := tenants(tc.typed)
		var values []string
		hint := ""
		for _, v := range got {
			if h, ok := strings.CutPrefix(v, "_activeHelp_ "); ok {
				hint = h
			} else {
				values = append(values, v)
			}
		}
		want := tc.want
		if want == nil {
			want = values[:min(len(values), 6)] // all the store has, below the limit
			if len(values) != 6 {
				t.Errorf("%q (few %d, max %d): offered %d tenants of 6: %q", tc.typed, tc.few, tc.max, len(values), got)
			}
		}
		if !slices.Equal(values, want) || hint != tc.hint {
			t.Errorf("%q (few %d, max %d): offered %q with the hint %q; want %q and %q", tc.typed, tc.few, tc.max, values, hint, want, tc.hint)
		}
	}
	bound(func(*completionBounds) {})

	// It opens the families it reads, and no more of the WAL than its walMax
	// (issue 31): past it, the store's tables alone, and it says so.
	for _, tc := range []struct {
		fams func([]string) []string
		want []string
	}{
		{tenantFamilies, []string{format.CFDefault, format.CFTenants}},
		{refFamilies, []string{format.CFDefault, format.CFIndex, format.CFTenants}},
		{func([]string) []string { return []string{} }, []string{format.CFDefault}},
	} {
		var opened []string
		fromStore(c, store, tc.fams, func(_ context.Context, st *rocks.Store, _ func(string)) []cobra.Completion {
			opened = st.DB.Families()
			return nil
		})
		slices.Sort(opened)
		if slices.Sort(tc.want); !slices.Equal(opened, tc.want) {
			t.Errorf("a completion opened %q, want %q", opened, tc.want)
		}
	}
	if onestore.WALBytes(store) == 0 {
		t.Fatal("the sample store has no WAL")
	}
	bound(func(b *completionBounds) { b.walMax = onestore.WALBytes(store) - 1 })
	stderr.Reset()
	got, _ = fromStore(c, store, tenantFamilies, func(ctx context.Context, st *rocks.Store, say func(string)) []cobra.Completion {
		return tenantCompletions(ctx, st, boundsOf(c), "", say)
	})
	if !strings.Contains(stderr.String(), "of WAL, more than completion reads: offered from its tables alone") ||
		len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "_activeHelp_ completion: ") {
		t.Errorf("with more WAL than it reads, a completion offered %q and said %q", got, stderr.String())
	}
}

// Issue 26 (10a): what a store holds reaches the shell's candidate list escaped as every
// other output is, through __complete as the completion scripts call it: no raw ESC, BEL,
// NUL, C1 or bidi control from a tenant id, a hook id or a @N's id, in either format. A
// hostile id is offered as its @N (which names the same tenant), its id escaped beside it;
// on format 2, which has no @N, it is not offered. Safe ids are offered as before.
func TestCompletionOfAHostileStore(t *testing.T) {
	for _, storeFormat := range []uint32{format.Format3, format.Format2} {
		dir, _ := hostileStoreOf(t, storeFormat)
		for _, args := range [][]string{
			{"tenants", "show", "--store", dir, ""},
			{"tenants", "show", "--store", dir, "#"},
			{"tenants", "show", "--store", dir, "@"},
			{"dlq", "scan", "--store", dir, "--tenant", ""},
			{"dlq", "show", "--store", dir, ""},
		} {
			if last := args[len(args)-1]; storeFormat == format.Format2 && (last == "#" || last == "@") {
				continue
			}
			code, out, errOut := runCLI(context.Background(), append([]string{"__complete"}, args...))
			if code != 0 {
				t.Fatalf("format %d: __complete %q: exit %d\n%s", storeFormat, args, code, errOut)
			}
			var offered int
			for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if strings.HasPrefix(line, ":") {
					continue
				}
				offered++
				for _, r := range line {
					if r != '\t' && safetext.Unsafe(r) {
						t.Errorf("format %d: __complete %q offers %q: raw %U", storeFormat, args, line, r)
						break
					}
				}
				if !utf8.ValidString(line) {
					t.Errorf("format %d: __complete %q offers %q: not UTF-8", storeFormat, args, line)
				}
			}
			if offered == 0 {
				t.Errorf("format %d: __complete %q offers nothing:\n%s", storeFormat, args, out)
			}
			if storeFormat == format.Format3 && args[len(args)-1] == "" && args[0] == "tenants" {
				// The id with ESC and BEL, as its @N with the id escaped; a safe id as itself.
				if !regexp.MustCompile(`(?m)^@[0-9]+\tevil\\x1b\]52;c;cHduZWQ=\\x07$`).MatchString(out) ||
					!regexp.MustCompile(`(?m)^acme\t@1$`).MatchString(out) {
					t.Errorf("__complete %q:\n%s", args, out)
				}
			}
		}
	}
}

// #N is offered for every real ordinal, to MaxOrd: the scan ends at the tenant-by-ord
// family's hi sentinel (it ended at t 0xFF, leaving out every ordinal from 0xFF000000 on).
func TestCompletionOfAHighOrdinal(t *testing.T) {
	store := filepath.Join(t.TempDir(), "s3")
	if err := archive.ExtractArchive("../testdata/store-v3.tar.zst", store); err != nil {
		t.Fatal(err)
	}
	st, err := rocks.OpenStore(store, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	b := rocks.NewBatch()
	for _, ord := range []uint32{0xFF000001, format.MaxOrd} {
		id := fmt.Sprintf("far%d", ord)
		b.Put(format.CFTenants, format.TenantByOrdKey{Ord: ord}.Encode(), []byte(id))
		b.Put(format.CFTenants, format.OrdByTenantKey{Tenant: id}.Encode(), binary.BigEndian.AppendUint32(nil, ord))
	}
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, errOut := runCLI(context.Background(), []string{"__complete", "tenants", "show", "--store", store, "#4"})
	if code != 0 {
		t.Fatalf("__complete #4: exit %d\n%s", code, errOut)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, want := range []string{"#4278190081\tfar4278190081", "#4294967294\tfar4294967294"} {
		if !slices.Contains(got, want) {
			t.Errorf("__complete #4 offers %q; want %q among them", got, want)
		}
	}
}
