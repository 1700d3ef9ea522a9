package inspect

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// KeyField is one decoded field of a key.
type KeyField struct {
	Name  string
	Value any // uint64, int, or string
}

// KeyFields are a key's fields in key order, for text; JSON has them as an
// object (Map), which is what its documented schema can say.
type KeyFields []KeyField

// Map is the fields by name.
func (fs KeyFields) Map() map[string]any {
	m := make(map[string]any, len(fs))
	for _, f := range fs {
		m[f.Name] = f.Value
	}
	return m
}

// String renders the fields as name=value pairs.
func (fs KeyFields) String() string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%s=%v", f.Name, f.Value)
	}
	return strings.Join(parts, " ")
}

const keyTimeLayout = "2006-01-02T15:04:05.000Z"

// KeyFieldsOf lists the fields of one of package format's key types. Times
// appear twice, raw and as UTC, so that either can be pasted into a query.
// Exported for pkg/storediff, whose differing keys read as scan's do.
func KeyFieldsOf(k any) KeyFields {
	at := func(ms uint64) []KeyField {
		if ms > format.MaxAtSeq {
			return []KeyField{{"at", ms}}
		}
		return []KeyField{{"at", ms}, {"at_time", viewTime(ms).Format(keyTimeLayout)}}
	}
	var fs KeyFields
	switch k := k.(type) {
	case format.DueV2Key:
		fs = append(append(fs, at(k.At)...), KeyField{"seq", k.Seq}, KeyField{"sink", k.Sink})
	case format.InflightV2Key:
		fs = KeyFields{{"seq", k.Seq}, {"sink", k.Sink}}
	case format.DueKey:
		fs = append(append(KeyFields{{"ord", k.Ord}}, at(k.At)...), KeyField{"seq", k.Seq}, KeyField{"sink", k.Sink})
	case format.InflightKey:
		fs = KeyFields{{"ord", k.Ord}, {"seq", k.Seq}, {"sink", k.Sink}}
	case format.DeadKey:
		fs = append(append(fs, at(k.At)...), KeyField{"seq", k.Seq}, KeyField{"sink", k.Sink})
	case format.DeadByTenantKey:
		fs = append(append(KeyFields{{"ord", k.Ord}}, at(k.At)...), KeyField{"seq", k.Seq}, KeyField{"sink", k.Sink})
	case format.ArchiveKey:
		fs = KeyFields{{"seq", k.Seq}}
	case format.ActiveKey:
		fs = KeyFields{{"bucket", k.Bucket}}
		if k.Bucket <= format.MaxAtSeq/format.BucketMillis {
			fs = append(fs, KeyField{"bucket_time", time.Unix(int64(k.Bucket), 0).UTC().Format(time.RFC3339)})
		}
		fs = append(fs, KeyField{"ord", k.Ord})
	case format.TenantByOrdKey:
		fs = KeyFields{{"ord", k.Ord}}
	case format.OrdByTenantKey:
		fs = KeyFields{{"tenant", k.Tenant}}
	case format.CounterKey:
		fs = KeyFields{{"ord", k.Ord}, {"field", k.Field.String()}}
		if k.Shard != format.Unsharded {
			fs = append(fs, KeyField{"shard", k.Shard})
		}
	case format.HookKey:
		fs = KeyFields{{"seq", k.Seq}}
	case format.DeliveryKey:
		fs = KeyFields{{"seq", k.Seq}, {"sink", k.Sink}}
	case format.MetaKey:
		fs = KeyFields{{"name", k.Name}}
	case format.OtherKey:
		fs = KeyFields{{"prefix", string(rune(k.Prefix))}, {"rest", scanQuote(k.Rest)}}
	}
	if fs == nil {
		fs = KeyFields{}
	}
	return fs
}

// scanQuote shows bytes as a quoted string when they are printable, else hex.
func scanQuote(b []byte) string {
	for _, r := range string(b) {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			return "0x" + hex.EncodeToString(b)
		}
	}
	return strconv.Quote(string(b))
}

// ParseKeyHex reads a key given on a command line: hex with an optional 0x, or a binary
// as an Elixir (or Erlang) node prints it in its logs, <<88, 0, 0, 0, 1, ...>>; whitespace
// anywhere, line breaks included, so a dump or a log line can be pasted as it is.
func ParseKeyHex(s string) ([]byte, error) {
	t := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	if strings.HasPrefix(t, "<<") {
		return parseElixirBinary(s, t)
	}
	t = strings.TrimPrefix(strings.TrimPrefix(t, "0x"), "0X")
	if t == "" {
		return nil, errors.New("empty key (" + keyForms + ")")
	}
	if pos, r, ok := firstNonHex(s); ok {
		return nil, fmt.Errorf("%q is not a key: %q at position %d is not a hex digit (%s)", s, string(r), pos, keyForms)
	}
	if len(t)%2 != 0 {
		return nil, fmt.Errorf("%q is not a key: %d hex digits, an odd number (a byte is two digits; %s)", s, len(t), keyForms)
	}
	b, err := hex.DecodeString(t)
	if err != nil {
		// firstNonHex and the length checked all hex.DecodeString refuses.
		return nil, fmt.Errorf("%q is not a key (%s)", s, keyForms)
	}
	return b, nil
}

// keyForms is what a key argument may be, for the messages that refuse one.
const keyForms = "want hex, 44000000..., 0x-hex, 0x44000000..., or an Elixir binary as a node logs it, <<68, 0, 0, 0, 1, ...>>"

// firstNonHex finds the first character of s (a key in hex, 0x and whitespace allowed)
// that is not a hex digit, with its position in s counted in characters from 1, so that
// the message points at what the operator typed, not at Go's decoder's byte offset.
func firstNonHex(s string) (pos int, r rune, found bool) {
	i := 0
	prefix := true
	rs := []rune(s)
	for i < len(rs) {
		c := rs[i]
		switch {
		case unicode.IsSpace(c):
		case prefix && c == '0' && i+1 < len(rs) && (rs[i+1] == 'x' || rs[i+1] == 'X'):
			i++
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			prefix = false
		default:
			return i + 1, c, true
		}
		if !unicode.IsSpace(c) {
			prefix = false
		}
		i++
	}
	return 0, 0, false
}

// parseElixirBinary reads what inspect/1 prints for a binary that is not printable text:
// decimal bytes between << and >>, comma-separated (t is s without whitespace). A binary
// inspect cut at its :limit ends in "...": its bytes are not all there, so it is refused
// rather than decoded as a shorter key.
func parseElixirBinary(s, t string) ([]byte, error) {
	body, ok := strings.CutSuffix(strings.TrimPrefix(t, "<<"), ">>")
	if !ok {
		return nil, fmt.Errorf("%q: an Elixir binary ends with >> (was the log line cut?)", s)
	}
	if body == "" {
		return nil, errors.New("empty key: <<>> has no bytes")
	}
	parts := strings.Split(body, ",")
	out := make([]byte, 0, len(parts))
	for i, p := range parts {
		if p == "..." {
			return nil, fmt.Errorf("%q: inspect cut this binary after %d bytes (its :limit); log it with limit: :infinity, or give the key in hex", s, i)
		}
		n, err := strconv.ParseUint(p, 10, 8)
		if err != nil {
			return nil, fmt.Errorf("%q: element %d, %q, is not a byte in decimal (0 to 255), as inspect prints a binary", s, i+1, p)
		}
		out = append(out, byte(n))
	}
	return out, nil
}

// KeyReport is what DecodeAnyKey makes of a key; its JSON is the stable
// output of `keys decode -o json`.
type KeyReport struct {
	Key string `json:"key"` // hex
	CF  string `json:"cf"`
	// Assumed is set when the column family was guessed from the key's shape;
	// AlsoFits lists the other families the key would decode in.
	Assumed  bool     `json:"assumed"`
	AlsoFits []string `json:"also_fits,omitempty"`
	Family   string   `json:"family"`
	Sentinel string   `json:"sentinel,omitempty"` // "lo" or "hi": not a row
	// Fields are the key's fields by name (times both as milliseconds and as
	// *_time in UTC); FieldList has them in key order.
	Fields    map[string]any `json:"fields"`
	FieldList KeyFields      `json:"-"`
	Text      string         `json:"text"`
	// Ref is SEQ:SINK for a dead letter's key (dead, dead_by_tenant), what dlq show takes.
	Ref   string `json:"ref,omitempty"`
	Error string `json:"error,omitempty"`
	// Value is set when a value was given to decode along with the key.
	Value *ValueReport `json:"value,omitempty"`
}

// ValueReport is a decoded value.
type ValueReport struct {
	Hex   string `json:"hex"`
	Text  string `json:"text"`
	Error string `json:"error,omitempty"`
}

// guessOrder is the order in which DecodeAnyKey tries column families: the
// index and tenants families are recognised by their prefix byte, the others
// only by length, so they come last.
var guessOrder = []string{format.CFIndex, format.CFTenants, format.CFCounters, format.CFDefault, format.CFHooks, format.CFDeliveries}

// KeyColumnFamilies lists the column families DecodeAnyKey accepts.
var KeyColumnFamilies = format.FamiliesV3

// DecodeAnyKey decodes key as a key of column family cf, or, when cf is "",
// of the first family whose layout it fits (index, tenants, counters,
// default, hooks, deliveries), saying that it guessed and what else would
// fit. value, if not nil, is decoded as the value stored under the key.
func DecodeAnyKey(key []byte, cf string, value []byte) (KeyReport, error) {
	r := KeyReport{Key: hex.EncodeToString(key), Fields: map[string]any{}, FieldList: KeyFields{}}
	var d format.Decoded
	if cf != "" {
		if !slices.Contains(KeyColumnFamilies, cf) {
			return r, fmt.Errorf("unknown column family %q (want one of %s)", cf, strings.Join(KeyColumnFamilies, ", "))
		}
		d = format.DecodeKey(cf, key)
	} else {
		r.Assumed = true
		var fits []format.Decoded
		var firstByPrefix *format.Decoded
		for _, c := range guessOrder {
			dd := format.DecodeKey(c, key)
			if dd.Err == nil {
				fits = append(fits, dd)
			} else if firstByPrefix == nil && dd.Family != "" && (c == format.CFIndex || c == format.CFTenants) {
				firstByPrefix = &dd
			}
		}
		switch {
		case len(fits) > 0:
			d = fits[0]
			for _, f := range fits[1:] {
				r.AlsoFits = append(r.AlsoFits, f.CF)
			}
		case firstByPrefix != nil:
			// Its prefix names a family, but it does not decode: a stray of
			// that family, which is worth showing as one.
			d = *firstByPrefix
		default:
			r.Error = fmt.Sprintf("the key fits the layout of no column family (tried %s)", strings.Join(guessOrder, ", "))
			r.Text = r.Error
			return r, nil
		}
	}
	r.CF, r.Family, r.Sentinel = d.CF, d.Family, d.Sentinel
	if d.Err != nil {
		r.Error = d.Err.Error()
	}
	if d.Key != nil {
		r.FieldList = KeyFieldsOf(d.Key)
		r.Fields = r.FieldList.Map()
		switch k := d.Key.(type) {
		case format.DeadKey:
			r.Ref = dlqRefOf(k.Seq, k.Sink)
		case format.DeadByTenantKey:
			r.Ref = dlqRefOf(k.Seq, k.Sink)
		}
	}
	r.Text = d.String()
	if value != nil {
		text, err := format.DecodeValue(d.CF, key, value)
		r.Value = &ValueReport{Hex: hex.EncodeToString(value), Text: text}
		if err != nil {
			r.Value.Error = err.Error()
		}
	}
	return r, nil
}
