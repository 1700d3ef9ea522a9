package inspect

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// ErrOtherFormat is a scan of a family the store's format does not have, in a column
// family the store does not have either (counters on a format 2 store): nothing can be
// read, and the message names the family to scan instead.
var ErrOtherFormat = errors.New("a family of the other format")

// familyFormat is the format whose stores have the key family, and the family that
// holds the same rows in the other format ("" when that format has none). Families
// both formats have (dead, archive) are 0.
func familyFormat(name string) (of uint32, counterpart string) {
	for _, f := range []uint32{format.Format2, format.Format3} {
		in := slices.ContainsFunc(format.FamiliesOf(f), func(x format.Family) bool { return x.Name == name })
		other := format.Format3
		if f == format.Format3 {
			other = format.Format2
		}
		if in && !slices.ContainsFunc(format.FamiliesOf(other), func(x format.Family) bool { return x.Name == name }) {
			of = f
		}
	}
	switch name {
	case format.FamilyNameDue:
		counterpart = format.FamilyNameDueV2
	case format.FamilyNameDueV2:
		counterpart = format.FamilyNameDue
	case format.FamilyNameInflight:
		counterpart = format.FamilyNameInflightV2
	case format.FamilyNameInflightV2:
		counterpart = format.FamilyNameInflight
	case format.FamilyNameDeadByTenant:
		counterpart = format.FamilyNameDead
	}
	return of, counterpart
}

// otherFormatText says that a key family belongs to the other format than the store's,
// and which family to scan instead; "" when the store's format has the family (or the
// store is mid-migration, when it has both formats' families).
func otherFormatText(fam *format.Family, storeFormat uint32, migrating bool) string {
	if fam == nil || migrating {
		return ""
	}
	of, counterpart := familyFormat(fam.Name)
	if of == 0 || of == storeFormat {
		return ""
	}
	s := fmt.Sprintf("%s is a format %d family and this store is format %d", fam.Name, of, storeFormat)
	switch {
	case counterpart != "" && fam.Name == format.FamilyNameDeadByTenant:
		s += fmt.Sprintf(", which has no tenant index of its dead rows: scan %s (or dlq scan --tenant T)", counterpart)
	case counterpart != "":
		s += fmt.Sprintf(", which keeps these rows in %s: scan %s", counterpart, counterpart)
	default:
		s += fmt.Sprintf(", which has no %s family", fam.Name)
	}
	return s
}

// otherFormatCF is otherFormatText for a column family the store does not have.
func otherFormatCF(cf string, storeFormat uint32) string {
	if storeFormat == format.Format2 && slices.Contains(format.FamiliesV3, cf) && !slices.Contains(format.FamiliesV2, cf) {
		return fmt.Sprintf("the %s column family is a format 3 one and this store is format 2, which has none", cf)
	}
	return ""
}
