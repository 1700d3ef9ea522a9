package inspect

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// ScanOptions select the keys ScanKeys reads.
type ScanOptions struct {
	// Target is a key family (due, dead, counters, ...: format.Family names),
	// or a column family (hooks, deliveries, ...), or "cf:NAME" for a column
	// family whose name is also a key family's (cf:archive, cf:counters).
	Target string
	// From (inclusive) and To (exclusive) narrow the target's range.
	From, To []byte
	// After continues a listing after this key (exclusive): the NextCursor of
	// the page before.
	After []byte
	// Limit is the most rows returned; 0 is all.
	Limit int
}

// ScanRow is one key and its value, both decoded.
type ScanRow struct {
	Key      string `json:"key"` // hex
	Family   string `json:"family"`
	Sentinel string `json:"sentinel,omitempty"` // "lo" or "hi": not a row
	// Fields are the key's fields by name; FieldList has them in key order.
	Fields    map[string]any `json:"fields"`
	FieldList KeyFields      `json:"-"`
	KeyText   string         `json:"key_text"`
	Value     string         `json:"value"`
	ValueHex  string         `json:"value_hex"`
	// Error is what is wrong with the key or value (it does not decode, or
	// the counter's merge failed); the row is shown anyway.
	Error string `json:"error,omitempty"`
}

// ScanResult is the result of ScanKeys; its JSON is the stable output of
// `scan -o json`.
type ScanResult struct {
	CF     string    `json:"cf"`
	Family string    `json:"family,omitempty"` // the key family scanned, if one was
	Rows   []ScanRow `json:"rows"`
	// NextCursor is the hex key of the last row listed, to continue after with
	// --after (as dlq scan's next_cursor); "" at the end.
	NextCursor string `json:"next_cursor"`
	// NextFrom is the first key not listed (what --from took to continue).
	NextFrom string     `json:"next_from" jsondoc:"deprecated: use next_cursor with --after; removed in a later release"`
	Notes    []ViewNote `json:"notes"`
}

// ScanTargets lists the names ScanKeys accepts as Target, key families first.
func ScanTargets() []string {
	var names []string
	for _, f := range format.AllFamilies() {
		names = append(names, f.Name)
	}
	for _, cf := range format.FamiliesV3 {
		if _, isFam := format.FamilyByName(cf); isFam {
			cf = "cf:" + cf
		}
		names = append(names, cf)
	}
	return names
}

// ScanTargetsOf is what ScanKeys reads in st and finds there, in ScanTargets' order: the key
// families of its format (of both, mid-migration) and the column families it has. A family
// of the other format, or one whose column family the store lacks (counters, tenants on
// format 2), is left out: a scan of it is a warning or exit 2, never what was meant. The
// column families are those the store lists, open or not (rocks.Options.Families).
func ScanTargetsOf(st *rocks.Store) []string {
	fams := format.FamiliesOf(st.Format)
	if st.Migrating {
		fams = format.AllFamilies()
	}
	listed := st.DB.Listed()
	var names []string
	for _, t := range ScanTargets() {
		cf, fam, err := scanTarget(t)
		if err != nil || !slices.Contains(listed, cf) {
			continue
		}
		if fam != nil && !slices.ContainsFunc(fams, func(f format.Family) bool { return f.Name == fam.Name }) {
			continue
		}
		names = append(names, t)
	}
	return names
}

// CheckScanTarget reports whether ScanKeys accepts target, without a store.
func CheckScanTarget(target string) error {
	_, _, err := scanTarget(target)
	return err
}

// scanTarget resolves a Target to its column family and bounds.
func scanTarget(target string) (cf string, fam *format.Family, err error) {
	name, explicitCF := strings.CutPrefix(target, "cf:")
	if !explicitCF {
		if f, ok := format.FamilyByName(name); ok {
			return f.CF, &f, nil
		}
	}
	if slices.Contains(format.FamiliesV3, name) {
		return name, nil, nil
	}
	return "", nil, fmt.Errorf("unknown family %q (want one of %s)", target, strings.Join(ScanTargets(), ", "))
}

// ScanKeys reads a key family or column family in key order, like ldb scan,
// with every key and value decoded and sentinels marked. Counters come out of
// the store merged; a counter whose merge fails is a row with an error, and
// the scan goes on past it.
func ScanKeys(ctx context.Context, st *rocks.Store, opt ScanOptions) (*ScanResult, error) {
	cf, fam, err := scanTarget(opt.Target)
	if err != nil {
		return nil, err
	}
	if opt.Limit < 0 {
		return nil, fmt.Errorf("limit must be >= 0, got %d", opt.Limit)
	}
	if !st.HasFamily(cf) {
		if t := otherFormatText(fam, st.Format, st.Migrating); t != "" {
			return nil, fmt.Errorf("%w: %s (not even its column family %s)", ErrOtherFormat, t, cf)
		}
		if t := otherFormatCF(cf, st.Format); t != "" && fam == nil {
			return nil, fmt.Errorf("%w: %s", ErrOtherFormat, t)
		}
		return nil, fmt.Errorf("%s: this format %d store has no column family %s", st.Dir, st.Format, cf)
	}
	res := &ScanResult{CF: cf, Rows: []ScanRow{}}
	var notes viewNotes
	if st.Migrating {
		notes.warn("the store is mid-migration (m:migrating:3 is present): its rows are half moved between the format 2 and format 3 families")
	}
	// A family of the other format has no sentinels in this store: say whose it is and
	// what to scan instead, not that a fold of it fails.
	other := otherFormatText(fam, st.Format, st.Migrating)
	if other != "" {
		notes.warn("%s; a key listed here is a stray", other)
	}
	var lo, hi []byte
	if fam != nil {
		res.Family = fam.Name
		lo, hi = fam.Lo, format.Successor(fam.Hi)
	}
	if opt.From != nil && (lo == nil || bytes.Compare(opt.From, lo) > 0) {
		lo = opt.From
	}
	if opt.After != nil {
		if next := format.Successor(opt.After); lo == nil || bytes.Compare(next, lo) > 0 {
			lo = next
		}
	}
	if opt.To != nil && (hi == nil || bytes.Compare(opt.To, hi) < 0) {
		hi = opt.To
	}
	if lo != nil && hi != nil && bytes.Compare(lo, hi) >= 0 {
		res.Notes = notes
		return res, nil
	}
	first := walk.FirstChunk
	if opt.Limit > 0 {
		first = min(opt.Limit+1, walk.MaxChunk)
	}
	var sawLo, sawHi bool
	var next []byte
	ended, err := walk.Chunks(st.DB, walk.Range{CF: cf, Lo: lo, Hi: hi, First: first}, func(chunk []walk.Entry) (bool, error) {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		for _, e := range chunk {
			if opt.Limit > 0 && len(res.Rows) == opt.Limit {
				next = bytes.Clone(e.K)
				return true, nil
			}
			row := scanRow(cf, e)
			switch row.Sentinel {
			case format.SentinelLo:
				sawLo = true
			case format.SentinelHi:
				sawHi = true
			}
			res.Rows = append(res.Rows, row)
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if next != nil {
		res.NextFrom = hex.EncodeToString(next)
		res.NextCursor = res.Rows[len(res.Rows)-1].Key
	}
	// A whole family read from end to end must show both its sentinels; one
	// that is missing means a fold of it fails (or was cut short here).
	if fam != nil && other == "" && ended && opt.From == nil && opt.To == nil && opt.After == nil {
		if !sawLo {
			notes.warn("the %s family's lo sentinel (0x%x) is missing: a fold of it fails", fam.Name, fam.Lo)
		}
		if !sawHi {
			notes.warn("the %s family's hi sentinel (0x%x) is missing: a fold of it fails", fam.Name, fam.Hi)
		}
	}
	var bad int64
	for _, r := range res.Rows {
		if r.Error != "" {
			bad++
		}
	}
	if bad > 0 {
		notes.warn("%d %s could not be decoded or read (see the error column)", bad, words.Plural(bad, "row", "rows"))
	}
	res.Notes = notes
	if res.Notes == nil {
		res.Notes = []ViewNote{}
	}
	return res, nil
}

func scanRow(cf string, e walk.Entry) ScanRow {
	d := format.DecodeKey(cf, e.K)
	r := ScanRow{Key: hex.EncodeToString(e.K), Family: d.Family, Sentinel: d.Sentinel,
		Fields: map[string]any{}, FieldList: KeyFields{}, KeyText: d.String()}
	if d.Key != nil {
		r.FieldList = KeyFieldsOf(d.Key)
		r.Fields = r.FieldList.Map()
	}
	var errs []string
	if d.Err != nil {
		errs = append(errs, d.Err.Error())
	}
	if e.Err != nil {
		errs = append(errs, e.Err.Error())
	} else {
		r.ValueHex = hex.EncodeToString(e.V)
		text, err := format.DecodeValue(cf, e.K, e.V)
		r.Value = text
		if err != nil && d.Err == nil {
			errs = append(errs, err.Error())
		}
	}
	r.Error = strings.Join(errs, "; ")
	return r
}
