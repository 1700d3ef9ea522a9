package storediff

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// Options say how much of a difference Stores keeps.
type Options struct {
	// Limit is the most differing keys kept per family (their counts are
	// always whole); 0 keeps them all.
	Limit int
	// Progress, if set, counts the keys compared.
	Progress reporting.Reporter
	// Key, if set, is given each kept key as it is found, in key order,
	// instead of the result keeping it: the result's Families then hold the
	// counts only, and memory no longer grows with the difference (460k
	// differing keys cost gigabytes kept). run is the run of the key's family
	// it belongs to so far (see Run).
	Key func(run *Family, k *Key) error
	// Run, if set with Key, is told when a run of one family's differing keys
	// ends (the next differing key is of another family, or the comparison
	// ended), with the run's own counts, shown keys and omitted ones
	// included. A family's keys are one run, except a column family's keys
	// that fit no family (unknown prefixes) when a family lies between them:
	// each stretch is a run. Families in the result are whole.
	Run func(run *Family) error
}

// Changes of one key, as Key.Change names them.
const (
	KeyOnlyInA = "only_in_a"
	KeyOnlyInB = "only_in_b"
	KeyChanged = "changed"
	// KeyUnreadable: a read of the key failed in A, B or both (a counter
	// whose merge fails, a damaged block), so its values cannot be compared.
	// Never equal, whatever the failures say: RocksDB writes the same text for
	// every failed merge, so two different bad counters would read alike.
	KeyUnreadable = "unreadable"
)

// Result is the logical difference of two stores: every key of every
// column family, with its value as a reader sees it (counters merged). Its
// JSON is the stable output of `diff -o json` (which writes it as the keys are
// found, Options.Key: the same members, each family's counts after its
// keys and the totals after the families).
type Result struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// Equal: every column family holds the same keys with the same values,
	// every one of them read (a key that could not be read is unreadable,
	// never equal).
	Equal bool `json:"equal"`
	// OnlyA, OnlyB, Changed and Unreadable sum the families'.
	OnlyA      int64 `json:"only_in_a"`
	OnlyB      int64 `json:"only_in_b"`
	Changed    int64 `json:"changed"`
	Unreadable int64 `json:"unreadable"`
	// Families are the families that differ, by column family (in the
	// order of format.FamiliesV3), then in key order; [] when Equal.
	Families []Family           `json:"families"`
	Notes    []inspect.ViewNote `json:"notes"`
	// FirstUnreadable is the first failed read, for the caller's verdict
	// (its class is RocksDB's status: corruption for a failed merge).
	FirstUnreadable error `json:"-"`
}

// Side is one of the two stores.
type Side struct {
	// Store is the path the caller named (Stores leaves it to the caller:
	// an archive is opened from a temporary directory).
	Store  string `json:"store"`
	Format uint32 `json:"format"`
	// Keys is how many keys were read from it, sentinels included.
	Keys int64 `json:"keys"`
}

// Family is the difference within one key family (or, for a key that
// decodes in none, its column family).
type Family struct {
	CF         string `json:"cf"`
	Family     string `json:"family"`
	OnlyA      int64  `json:"only_in_a"`
	OnlyB      int64  `json:"only_in_b"`
	Changed    int64  `json:"changed"`
	Unreadable int64  `json:"unreadable"`
	// Keys are the first differing keys in key order, at most the limit;
	// Omitted is how many more there are. Streamed (Options.Key), Keys
	// stays empty and Shown counts the keys given.
	Keys    []Key `json:"keys"`
	Omitted int64 `json:"omitted"`
	shown   int64
}

// Shown is how many of the family's keys were kept (or given to
// Options.Key).
func (f *Family) Shown() int64 { return f.shown }

// Key is one key that differs, decoded as scan decodes it.
type Key struct {
	Change string `json:"change"` // only_in_a, only_in_b, changed or unreadable
	Key    string `json:"key"`    // hex
	// Unreadable says where a read of the key failed: "a", "b" or "both"
	// (set with change unreadable only). A side absent from a store is null.
	Unreadable string `json:"unreadable,omitempty"`
	Sentinel   string `json:"sentinel,omitempty"`
	// Fields are the key's fields by name; FieldList has them in key order.
	Fields    map[string]any    `json:"fields"`
	FieldList inspect.KeyFields `json:"-"`
	KeyText   string            `json:"key_text"`
	// KeyError is what is wrong with the key, when it does not decode.
	KeyError string `json:"key_error,omitempty"`
	// A and B are the values in each store; null where the key is absent.
	A *Value `json:"a"`
	B *Value `json:"b"`
}

// Value is a value as scan shows it.
type Value struct {
	Value    string `json:"value"`
	ValueHex string `json:"value_hex"`
	// Error is what is wrong with the value: it does not decode, or (a
	// counter) its merge failed, and then it has no bytes.
	Error string `json:"error,omitempty"`
}

// diffProgressEvery is how many keys Stores compares between calls to
// Progress.
const diffProgressEvery = 4096

// Stores compares two stores key by key, every column family of either,
// reading both in key order side by side (a merge-join of one iterator each),
// so that memory is a few chunks of each store and the kept keys, whatever
// their size. Values are compared as a reader sees them: counters merged by
// the store's merge operator, and compared as integers (two encodings of one
// count are the same count). A key whose read fails (a counter whose merge
// fails) on either side is unreadable, never equal: a failure carries no
// value to compare (RocksDB's text is the same for every failed merge). The
// file layout
// (tables, levels, WAL, unmerged operands, RocksDB's own files) is not
// compared: two runs of the same writes differ in it byte for byte.
func Stores(ctx context.Context, a, b *rocks.Store, opt Options) (*Result, error) {
	if opt.Limit < 0 {
		return nil, fmt.Errorf("limit must be >= 0, got %d", opt.Limit)
	}
	res := &Result{A: Side{Format: a.Format}, B: Side{Format: b.Format}, Families: []Family{}}
	notes := []inspect.ViewNote{}
	for _, side := range []struct {
		name string
		st   *rocks.Store
	}{{"A", a}, {"B", b}} {
		if side.st.Migrating {
			notes = append(notes, inspect.ViewNote{Warning: true, Text: fmt.Sprintf("%s is mid-migration (m:migrating:3 is present): its rows are half moved between the format 2 and format 3 families", side.name)})
		}
	}
	d := &storeDiff{res: res, opt: opt, fam: -1, stream: opt.Key != nil}
	for _, cf := range format.FamiliesV3 {
		inA, inB := a.HasFamily(cf), b.HasFamily(cf)
		switch {
		case !inA && !inB:
			continue
		case inA != inB:
			has := "A"
			if inB {
				has = "B"
			}
			notes = append(notes, inspect.ViewNote{Text: fmt.Sprintf("column family %s is only in %s: every key of it is only in %s", cf, has, has)})
		}
		if err := d.column(ctx, cf, a, b, inA, inB); err != nil {
			return nil, err
		}
	}
	if err := d.endRun(); err != nil {
		return nil, err
	}
	if opt.Progress != nil && d.unreported > 0 {
		opt.Progress.Add(d.unreported)
	}
	res.Equal = res.OnlyA == 0 && res.OnlyB == 0 && res.Changed == 0 && res.Unreadable == 0
	res.Notes = notes
	return res, nil
}

// storeDiff is one Stores call in progress.
type storeDiff struct {
	res        *Result
	opt        Options
	fam        int // index in res.Families of the family the last difference was in; -1 none
	unreported int64
	// stream: kept keys go to opt.Key, not into the result; run is the
	// current run of res.Families[fam], its counts since it began.
	stream bool
	run    Family
	err    error // the first error opt.Key returned: the comparison stops
}

// endRun tells opt.Run that the current run of a family ended.
func (d *storeDiff) endRun() error {
	if !d.stream || d.fam < 0 || d.run.CF == "" {
		return d.err
	}
	run := d.run
	d.run = Family{}
	if d.err == nil && d.opt.Run != nil {
		d.err = d.opt.Run(&run)
	}
	return d.err
}

// column merge-joins one column family of both stores (a side without it is
// empty).
func (d *storeDiff) column(ctx context.Context, cf string, a, b *rocks.Store, inA, inB bool) error {
	var ca, cb *walk.Cursor
	if inA {
		ca = walk.PullColumn(ctx, a.DB, cf)
		defer ca.Close()
	}
	if inB {
		cb = walk.PullColumn(ctx, b.DB, cf)
		defer cb.Close()
	}
	peek := func(c *walk.Cursor) *walk.Entry {
		if c == nil {
			return nil
		}
		return c.Peek()
	}
	for {
		ea, eb := peek(ca), peek(cb)
		// A side that failed has not ended: the rest of the other is not only in it.
		if ea == nil && ca != nil && ca.Err() != nil {
			return ca.Err()
		}
		if eb == nil && cb != nil && cb.Err() != nil {
			return cb.Err()
		}
		if ea == nil && eb == nil {
			break
		}
		c := 0
		switch {
		case ea == nil:
			c = 1
		case eb == nil:
			c = -1
		default:
			c = bytes.Compare(ea.K, eb.K)
		}
		switch {
		case c < 0:
			d.res.A.Keys++
			d.differ(cf, diffChange(KeyOnlyInA, ea, nil), ea, nil)
			ca.Advance()
		case c > 0:
			d.res.B.Keys++
			d.differ(cf, diffChange(KeyOnlyInB, nil, eb), nil, eb)
			cb.Advance()
		default:
			d.res.A.Keys++
			d.res.B.Keys++
			if change := diffChange(KeyChanged, ea, eb); change == KeyUnreadable || !diffSameValue(cf, ea, eb) {
				d.differ(cf, change, ea, eb)
			}
			ca.Advance()
			cb.Advance()
		}
		if d.err != nil {
			return d.err
		}
		if d.unreported++; d.unreported == diffProgressEvery {
			if d.opt.Progress != nil {
				d.opt.Progress.Add(d.unreported)
			}
			d.unreported = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// diffChange is a key's change: unreadable where a read of it failed (on
// either side, whether or not the other store has it), else change.
func diffChange(change string, a, b *walk.Entry) string {
	if (a != nil && a.Err != nil) || (b != nil && b.Err != nil) {
		return KeyUnreadable
	}
	return change
}

// diffUnreadableIn says which side's read failed: "a", "b" or "both".
func diffUnreadableIn(a, b *walk.Entry) string {
	fa, fb := a != nil && a.Err != nil, b != nil && b.Err != nil
	switch {
	case fa && fb:
		return "both"
	case fa:
		return "a"
	}
	return "b"
}

// diffSameValue reports whether two reads of one key agree; two reads of
// which one failed never do (diffChange has made them unreadable).
func diffSameValue(cf string, a, b *walk.Entry) bool {
	if a.Err != nil || b.Err != nil {
		return false
	}
	if bytes.Equal(a.V, b.V) {
		return true
	}
	if cf == format.CFCounters {
		va, errA := format.DecodeCounterValue(a.V)
		vb, errB := format.DecodeCounterValue(b.V)
		return errA == nil && errB == nil && va == vb
	}
	return false
}

// differ counts a differing key in its family, and keeps it while the
// family is under the limit.
func (d *storeDiff) differ(cf, change string, a, b *walk.Entry) {
	e := a
	if e == nil {
		e = b
	}
	dec := format.DecodeKey(cf, e.K)
	name := dec.Family
	if name == "" {
		name = cf
	}
	fs := d.res.Families
	if d.fam < 0 || fs[d.fam].CF != cf || fs[d.fam].Family != name {
		if d.endRun() != nil {
			return
		}
		d.fam = d.family(cf, name)
		d.run = Family{CF: cf, Family: name, Keys: []Key{}}
	}
	f := &d.res.Families[d.fam]
	run := &d.run
	switch change {
	case KeyOnlyInA:
		f.OnlyA++
		run.OnlyA++
		d.res.OnlyA++
	case KeyOnlyInB:
		f.OnlyB++
		run.OnlyB++
		d.res.OnlyB++
	case KeyUnreadable:
		f.Unreadable++
		run.Unreadable++
		d.res.Unreadable++
		if d.res.FirstUnreadable == nil {
			d.res.FirstUnreadable = diffFirstFailure(a, b)
		}
	default:
		f.Changed++
		run.Changed++
		d.res.Changed++
	}
	if d.opt.Limit > 0 && f.shown >= int64(d.opt.Limit) {
		f.Omitted++
		run.Omitted++
		return
	}
	f.shown++
	k := Key{Change: change, Key: hex.EncodeToString(e.K), Sentinel: dec.Sentinel, Fields: map[string]any{},
		FieldList: inspect.KeyFields{}, KeyText: dec.String()}
	if dec.Key != nil {
		k.FieldList = inspect.KeyFieldsOf(dec.Key)
		k.Fields = k.FieldList.Map()
	}
	if dec.Err != nil {
		k.KeyError = dec.Err.Error()
	}
	if change == KeyUnreadable {
		k.Unreadable = diffUnreadableIn(a, b)
	}
	if a != nil {
		k.A = diffValueOf(cf, dec, *a)
	}
	if b != nil {
		k.B = diffValueOf(cf, dec, *b)
	}
	if d.stream {
		run.shown++
		if d.err == nil {
			d.err = d.opt.Key(run, &k)
		}
		return
	}
	f.Keys = append(f.Keys, k)
}

// family finds or adds the entry of a family and returns its index.
// Families of one column family come out in key order; a family met again
// after another (a stray key between two prefixes) is found where it was.
func (d *storeDiff) family(cf, name string) int {
	if i := slices.IndexFunc(d.res.Families, func(f Family) bool { return f.CF == cf && f.Family == name }); i >= 0 {
		return i
	}
	d.res.Families = append(d.res.Families, Family{CF: cf, Family: name, Keys: []Key{}})
	return len(d.res.Families) - 1
}

// diffValueOf is one side's value, decoded as scan decodes it (inspect.ScanKeys):
// the value of a key that does not decode is shown, its problem being the
// key's.
func diffValueOf(cf string, dec format.Decoded, e walk.Entry) *Value {
	if e.Err != nil {
		return &Value{Error: e.Err.Error()}
	}
	text, err := format.DecodeValue(cf, e.K, e.V)
	v := &Value{Value: text, ValueHex: hex.EncodeToString(e.V)}
	if err != nil && dec.Err == nil {
		v.Error = err.Error()
	}
	return v
}

// diffFirstFailure is a key's failed read, naming its store (A's first).
func diffFirstFailure(a, b *walk.Entry) error {
	if a != nil && a.Err != nil {
		return fmt.Errorf("in A: %w", a.Err)
	}
	return fmt.Errorf("in B: %w", b.Err)
}
