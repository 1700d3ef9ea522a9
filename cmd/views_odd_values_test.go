package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/format/etf"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// oddValuesStore is a copy of a committed store whose values are each of
// the node's shape but one field: hooks whose source_id, id or body is nil
// or an integer, or whose headers are nil; dead values whose id or
// source_id is not a binary. The in-place readers (format.ValueReader)
// must leave every one of them to the decoder, which refuses them. dead
// lists the dead values' forms, each a {source_id, id} the ord is added to;
// none: one of each.
func oddValuesStore(t *testing.T, name string, dead ...etf.Tuple) string {
	t.Helper()
	dir := storetest.Extract(t, name)
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	whole := format.ValueReader{Whole: true}
	hookFields := []struct {
		key string
		val etf.Term
	}{
		{format.EnvKeySourceID, etf.AtomNil}, {format.EnvKeyID, etf.AtomNil}, {format.EnvKeyBody, etf.AtomNil},
		{format.EnvKeySourceID, int64(7)}, {format.EnvKeyHeaders, etf.AtomNil},
	}
	b := rocks.NewBatch()
	hooks := 0
	err = st.DB.Scan(format.CFHooks, nil, nil, rocks.ReadOpts{}, func(k, v []byte) error {
		e, err := whole.DecodeEnvelope(v)
		if err != nil {
			return nil // a sentinel, or a hook already damaged
		}
		if hooks++; hooks%3 == 0 {
			return nil
		}
		f := hookFields[(hooks/3)%len(hookFields)]
		m := e.Term()
		for i := range m {
			if m[i].Key == etf.Atom(f.key) {
				m[i].Value = f.val
			}
		}
		odd, err := etf.Encode(m)
		if err != nil {
			return err
		}
		b.Put(format.CFHooks, bytes.Clone(k), odd)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dead) == 0 {
		dead = []etf.Tuple{{etf.Binary("src"), etf.AtomNil}, {etf.AtomNil, etf.Binary("id")}, {etf.Binary("src"), int64(5)}}
	}
	n := 0
	err = st.DB.Scan(format.CFIndex, format.FamDead.Lo, format.FamDead.Hi, rocks.ReadOpts{}, func(k, v []byte) error {
		if _, err := format.DecodeDeadKey(k); err != nil {
			return nil
		}
		dv, err := whole.DecodeDeadValue(v)
		if err != nil {
			return nil
		}
		if n++; n%4 != 0 {
			return nil
		}
		tup := append(etf.Tuple{}, dead[(n/4)%len(dead)]...)
		if dv.HasOrd {
			tup = append(tup, int64(dv.Ord))
		}
		odd, err := etf.Encode(tup)
		if err != nil {
			return err
		}
		b.Put(format.CFIndex, bytes.Clone(k), odd)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if hooks < 30 || n < 20 {
		t.Fatalf("%s: %d hooks and %d dead rows to damage", name, hooks, n)
	}
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	return dir
}

// executeReading is Execute of args with the node's values read in place
// (inPlace) or each decoded whole (format.ValueReader.Whole), for this run
// alone.
func executeReading(io iostreams.IOStreams, inPlace bool, args []string) int {
	env := &Env{Build: BuildInfo{Version: "test", Commit: "none"}, Now: time.Now, values: format.ValueReader{Whole: !inPlace}}
	return execute(context.Background(), env, io, args)
}

// runBoth runs args with the values read in place and decoded whole, and
// says how each went: exit code, stdout and stderr, and how many more
// allocations the whole decode made. tenants show TENANT STORE runs at a
// fixed clock (its ages are the clock's).
func runBoth(t *testing.T, args ...string) (inPlace, decoded string, wholeMore int64) {
	t.Helper()
	var mallocs [2]int64
	run := func(skim bool) string {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		defer func() {
			runtime.ReadMemStats(&after)
			mallocs[btoi(skim)] = int64(after.Mallocs - before.Mallocs)
		}()
		io, _, out, errb := iostreams.Test()
		var code int
		if args[0] == "tenants" && args[1] == "show" {
			now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
			env := &Env{IO: io, Output: "json", Now: func() time.Time { return now }, values: format.ValueReader{Whole: !skim}}
			err := runTenantsShow(context.Background(), env, &tenantsShowOptions{tenant: args[2], limit: 50, store: args[3]})
			code = exitcode.Of(err)
		} else {
			code = executeReading(io, skim, args)
		}
		return strings.Join([]string{string(rune('0' + code)), out.String(), errb.String()}, "\n")
	}
	inPlace, decoded = run(true), run(false)
	return inPlace, decoded, mallocs[1] - mallocs[0]
}

// btoi is 0 for true, 1 for false: runBoth's order.
func btoi(b bool) int {
	if b {
		return 0
	}
	return 1
}

// The views that read a hook, a dead value or a delivery row show what the
// decoder makes of a value whose one field is not what a node writes (a nil
// source_id is a hook that does not decode, never a healthy hook with an
// empty source): dlq export (by key and joined), dlq scan, dlq show and
// tenants show, on stores of both formats; and migrate refuses a dead value
// whose id is not a binary as the decoder does, where reading it in place
// would have rewritten it {source_id, <<>>, ord}, the damaged id lost.
func TestViewsReadOddValuesAsTheDecoder(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, name := range []string{"store-v3.tar.zst", "store-v2.tar.zst"} {
		store := oddValuesStore(t, name)
		var page struct {
			Rows []struct {
				Ref    string `json:"ref"`
				Tenant string `json:"tenant"`
			} `json:"rows"`
		}
		cmds := [][]string{
			{"dlq", "export", "-q", "--join", "by-key", store},
			{"dlq", "scan", "--limit", "0", "-o", "json", store},
		}
		if name == "store-v3.tar.zst" {
			cmds = append(cmds, []string{"dlq", "export", "-q", "--join", "sorted", store})
		}
		_, scan, more := runBoth(t, "dlq", "scan", "--limit", "0", "-o", "json", store)
		if err := json.NewDecoder(strings.NewReader(strings.SplitN(scan, "\n", 2)[1])).Decode(&page); err != nil || len(page.Rows) < 20 {
			t.Fatalf("%s: dlq scan: %v, %d rows", name, err, len(page.Rows))
		}
		// The whole listing read its values both ways, or the comparisons
		// below compare one way with itself: the whole decode makes some
		// seven allocations more a row (a dead value and a delivery row).
		if more < int64(len(page.Rows)) {
			t.Errorf("%s: dlq scan of %d rows decoding whole made %d allocations more than reading in place: the runs did not read differently", name, len(page.Rows), more)
		}
		tenants := map[string]bool{}
		for i, r := range page.Rows {
			if i%5 == 0 {
				cmds = append(cmds, []string{"dlq", "show", "-o", "json", r.Ref, store})
			}
			if !tenants[r.Tenant] && len(tenants) < 4 && format.ValidTenantID([]byte(r.Tenant)) {
				tenants[r.Tenant] = true
				cmds = append(cmds, []string{"tenants", "show", r.Tenant, store})
			}
		}
		for _, args := range cmds {
			if got, want, _ := runBoth(t, args...); got != want {
				t.Errorf("%s: %q, read in place:\n%.2500s\nwant, decoded:\n%.2500s", name, args[:len(args)-1], got, want)
			}
		}
	}
	// Ids alone, which migrate reads in place: a source_id that is not a
	// binary is refused first either way.
	v2 := oddValuesStore(t, "store-v2.tar.zst", etf.Tuple{etf.Binary("src"), etf.AtomNil}, etf.Tuple{etf.Binary("src"), int64(5)})
	copies := [2]string{storetest.CopyStore(t, v2), storetest.CopyStore(t, v2)}
	var results [2]string
	for i, skim := range []bool{true, false} {
		func() {
			io, _, _, _ := iostreams.Test()
			code := executeReading(io, skim, []string{"migrate", "--no-backup", "--now", "1796032800000", "-q", copies[i]})
			results[i] = string(rune('0'+code)) + "\n" + fmt.Sprint(storetest.Dump(t, copies[i]))
		}()
	}
	if results[0] != results[1] {
		t.Errorf("migrate of odd dead values, read in place:\n%.1500s\nwant, decoded:\n%.1500s", results[0], results[1])
	}
}
