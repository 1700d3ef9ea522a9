package format

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// Decoded is what DecodeKey makes of a key of any column family, for the
// on-call views (keys decode, scan).
type Decoded struct {
	CF, Family string
	// Key is one of this package's key types (RawKey for the families without
	// a pinned layout: audit, quarantine, archive), or nil for a sentinel or
	// an error.
	Key      any
	Sentinel string // SentinelLo, SentinelHi or ""
	Err      error
}

func (d Decoded) String() string {
	fam := d.Family
	if fam == "" {
		fam = "?"
	}
	switch {
	case d.Err != nil:
		return fmt.Sprintf("%s/%s error: %v", d.CF, fam, d.Err)
	case d.Sentinel != "":
		return fmt.Sprintf("%s/%s sentinel %s", d.CF, fam, d.Sentinel)
	}
	return fmt.Sprintf("%s/%s %v", d.CF, fam, d.Key)
}

// OtherKey is an index key of a family both formats carry through untouched
// (c cleared, k claim, u dedupe, e expiry): the tool names it but does not
// interpret it.
type OtherKey struct {
	Prefix byte
	Rest   []byte
}

func (k OtherKey) String() string { return fmt.Sprintf("%c %s", k.Prefix, quoteBytes(k.Rest)) }

// Encode returns the key's bytes.
func (k OtherKey) Encode() []byte { return append([]byte{k.Prefix}, k.Rest...) }

// RawKey is a key of a column family whose layout the contract does not pin.
type RawKey []byte

func (k RawKey) String() string { return quoteBytes(k) }

// Encode returns the key's bytes.
func (k RawKey) Encode() []byte { return append([]byte(nil), k...) }

// quoteBytes shows printable bytes as a Go string and anything else as hex.
func quoteBytes(b []byte) string {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return "0x" + hex.EncodeToString(b)
		}
	}
	return strconv.Quote(string(b))
}

var indexFamilies = map[byte]Family{
	PrefixDueV2: FamDueV2, PrefixInflightV2: FamInflightV2, PrefixDue: FamDue, PrefixInflight: FamInflight,
	PrefixDead: FamDead, PrefixDeadByTenant: FamDeadByTenant, PrefixArchive: FamArchive, PrefixActive: FamActive,
}

var otherIndexFamilies = map[byte]string{
	PrefixCleared: FamilyNameCleared, PrefixClaim: FamilyNameClaim,
	PrefixDedupe: FamilyNameDedupe, PrefixExpiry: FamilyNameExpiry,
}

// DecodeKey classifies and decodes a key of column family cf. It never fails
// outright: a key that does not decode comes back with its family (when the
// prefix says which) and Err, because a stray key is something to show.
func DecodeKey(cf string, key []byte) Decoded {
	d := Decoded{CF: cf}
	fam := func(f Family) Decoded {
		d.Family = f.Name
		if d.Sentinel = f.Sentinel(key); d.Sentinel != "" {
			return d
		}
		d.Key, d.Err = f.DecodeKey(key)
		if d.Err != nil {
			d.Key = nil
		}
		return d
	}
	switch cf {
	case CFIndex:
		if len(key) == 0 {
			d.Err = keyErr(cf, "empty key")
			return d
		}
		if f, ok := indexFamilies[key[0]]; ok {
			return fam(f)
		}
		if name, ok := otherIndexFamilies[key[0]]; ok {
			d.Family, d.Key = name, OtherKey{Prefix: key[0], Rest: append([]byte(nil), key[1:]...)}
			return d
		}
		d.Err = keyErr(cf, "unknown prefix 0x%02x", key[0])
	case CFTenants:
		switch {
		case len(key) > 0 && key[0] == PrefixTenantByOrd:
			return fam(FamTenantByOrd)
		case len(key) > 0 && key[0] == PrefixOrdByTenant:
			return fam(FamOrdByTenant)
		case len(key) == 0:
			d.Err = keyErr(cf, "empty key")
		default:
			d.Err = keyErr(cf, "unknown prefix 0x%02x", key[0])
		}
	case CFCounters:
		return fam(FamCounters)
	case CFHooks:
		d.Family = FamilyNameHooks
		k, err := DecodeHookKey(key)
		if d.Err = err; err == nil {
			d.Key = k
		}
	case CFDeliveries:
		d.Family = FamilyNameDeliveries
		k, err := DecodeDeliveryKey(key)
		if d.Err = err; err == nil {
			d.Key = k
		}
	case CFDefault:
		d.Family = FamilyNameMeta
		for _, name := range MetaKeys {
			if string(key) == name {
				d.Key = MetaKey{Name: name}
				return d
			}
		}
		d.Err = keyErr(cf, "unknown metadata key %s", quoteBytes(key))
	case CFAudit, CFQuarantine, CFArchive:
		d.Family, d.Key = cf, RawKey(append([]byte(nil), key...))
	default:
		d.Err = keyErr(cf, "unknown column family %q", cf)
	}
	return d
}

// DecodeValue renders the value stored under key in cf for a human. On error
// the text is still useful (a hex dump) and err says what is wrong with it.
func DecodeValue(cf string, key, value []byte) (string, error) {
	d := DecodeKey(cf, key)
	if d.Sentinel != "" {
		if len(value) != 0 {
			return dump(value), valueErr("sentinel", "want an empty value, got %d bytes", len(value))
		}
		return "", nil
	}
	text, err := decodeValue(d, value)
	if err != nil {
		return dump(value), err
	}
	return text, nil
}

func decodeValue(d Decoded, v []byte) (string, error) {
	switch k := d.Key.(type) {
	case DueV2Key, InflightV2Key, InflightKey:
		n, err := DecodeSize(v)
		return "size=" + strconv.FormatUint(uint64(n), 10), err
	case DueKey:
		dv, err := DecodeDueValue(v)
		return dv.String(), err
	case DeadKey:
		dv, err := DecodeDeadValue(v)
		return dv.String(), err
	case ArchiveKey:
		av, err := DecodeArchiveValue(v)
		return av.String(), err
	case DeadByTenantKey, ActiveKey:
		if len(v) != 0 {
			return "", valueErr(d.Family, "want an empty value, got %d bytes", len(v))
		}
		return "", nil
	case TenantByOrdKey:
		if len(v) == 0 {
			return "(erased)", nil
		}
		return strconv.Quote(string(v)), nil
	case OrdByTenantKey:
		n, err := DecodeU32(v)
		return "ord=" + strconv.FormatUint(uint64(n), 10), err
	case CounterKey:
		n, err := DecodeCounterValue(v)
		return strconv.FormatInt(n, 10), err
	case HookKey, DeliveryKey:
		t, err := etf.Decode(v)
		if err != nil {
			return "", valueErr(d.Family, "%v", err)
		}
		return etf.Format(t), nil
	case OtherKey, RawKey:
		return termText(v), nil
	case MetaKey:
		return metaText(k.Name, v)
	}
	// Untyped families (audit, quarantine, archive) and keys that did not decode.
	return termText(v), nil
}

func metaText(name string, v []byte) (string, error) {
	switch name {
	case KeyFormat, KeyNextOrd:
		n, err := DecodeU32(v)
		return strconv.FormatUint(uint64(n), 10), err
	case KeyMigrating3:
		c, err := DecodeMigrationCursor(v)
		return c.String(), err
	case KeyMigrating3Now:
		n, err := DecodeU64(v)
		return fmtAt(n), err
	}
	return dump(v), nil
}

// termText shows an ETF value as a term when it is one, else as a dump: the
// untyped families hold ETF in practice, but nothing pins that.
func termText(v []byte) string {
	if t, err := etf.Decode(v); err == nil {
		return etf.Format(t)
	}
	return dump(v)
}

func dump(v []byte) string {
	if len(v) == 0 {
		return "(empty)"
	}
	const max = 64
	if len(v) > max {
		return fmt.Sprintf("0x%s... (%d bytes)", hex.EncodeToString(v[:max]), len(v))
	}
	return fmt.Sprintf("0x%s (%d bytes)", hex.EncodeToString(v), len(v))
}
