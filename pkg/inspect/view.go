package inspect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// What the on-call views share: their notes, the key references of the detail views, a
// dead letter's row (dlq scan, dlq export, tenants show), the tenant of a hook by its seq
// (format 2), the refusal of a store mid-migration.

// ViewNote is something a view has to say besides its rows: what a read cost,
// why a result is empty, or a finding met on the way (a hook filed under
// "default", a missing delivery row). Warnings are findings and are never
// suppressed; plain notes are context an operator may silence.
type ViewNote struct {
	Warning bool   `json:"warning"`
	Text    string `json:"text"`
}

type viewNotes []ViewNote

func (n *viewNotes) note(format string, args ...any) {
	*n = append(*n, ViewNote{Text: fmt.Sprintf(format, args...)})
}

func (n *viewNotes) warn(format string, args ...any) {
	*n = append(*n, ViewNote{Warning: true, Text: fmt.Sprintf(format, args...)})
}

// refuseMidMigration stops a view on a store the 2 -> 3 migration has not
// finished: its rows are half moved, and the contract forbids reporting them
// as facts.
func refuseMidMigration(st *rocks.Store) error {
	if !st.Migrating {
		return nil
	}
	return fmt.Errorf("%w: %s: m:migrating:3 is present, so its rows are half moved between the format 2 and format 3 families "+
		"and this view would misreport them; finish the migration first (ankusa-store migrate)", rocks.ErrMidMigration, st.Dir)
}

// viewTime is a store time (milliseconds since the epoch) as a UTC time.
func viewTime(ms uint64) time.Time { return time.UnixMilli(int64(ms)).UTC() }

// KeyRef is a key a detail view points at, decoded for people and in hex for
// tools: format.KeyRef, the same shape as the health check's key references.
type KeyRef = format.KeyRef

func keyRef(cf string, key []byte) KeyRef { return format.RefTo(cf, key) }

// DLQRow is one dead letter.
type DLQRow struct {
	DeadAt time.Time `json:"dead_at"`
	// AtMS is DeadAt in milliseconds, as in the key (received_at_ms's style); At the same
	// under its first name.
	AtMS     uint64  `json:"at_ms"`
	At       uint64  `json:"at" jsondoc:"deprecated: the same as at_ms; removed in a later release"`
	Tenant   string  `json:"tenant"`
	Ord      *uint32 `json:"ord"` // null on format 2
	SourceID string  `json:"source_id"`
	HookID   string  `json:"hook_id"`
	Seq      uint64  `json:"seq"`
	Sink     uint16  `json:"sink"`
	// Size, Attempts and LastError come from the delivery row; a row that is
	// missing or does not decode leaves them zero and says so in Problems.
	Size      uint64  `json:"size"`
	Attempts  int64   `json:"attempts"`
	LastError *string `json:"last_error"`
	// Ref is SEQ:SINK, what dlq show takes.
	Ref string `json:"ref"`
	// Problems are findings about this row (a missing delivery row, an `X`
	// key without its `x` row, ...); the row is shown anyway.
	Problems []string `json:"problems,omitempty"`
}

// tenantHookCacheMax bounds the seq -> tenant cache; when full it is cleared
// whole, as the node's writer cache is. Rows of one hook are mostly close
// together (inflight and archive are in seq order), so hits survive that.
const tenantHookCacheMax = 1 << 20

// hookTenants resolves the tenant of hooks by seq with batched multi-gets,
// counting the hooks filed under "default" for a reason that is a finding.
type hookTenants struct {
	db        *rocks.DB
	cache     map[uint64]string
	read      int64
	defaulted map[string]int64
}

func newHookTenants(db *rocks.DB) *hookTenants {
	return &hookTenants{db: db, cache: map[uint64]string{}, defaulted: map[string]int64{}}
}

// resolve makes sure every seq is in the cache, reading the missing hooks in
// one multi-get; call tenant after it.
func (h *hookTenants) resolve(seqs []uint64) error {
	var keys [][]byte
	var want []uint64
	for _, s := range seqs {
		if _, ok := h.cache[s]; ok {
			continue
		}
		want = append(want, s)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	if len(h.cache)+len(want) > tenantHookCacheMax {
		clear(h.cache)
	}
	for _, s := range want {
		keys = append(keys, format.HookKey{Seq: s}.Encode())
	}
	if len(keys) == 0 {
		return nil
	}
	vals, found, err := h.db.MultiGet(format.CFHooks, keys)
	if err != nil {
		return err
	}
	h.read += int64(len(keys))
	for i, s := range want {
		t, reason := format.TenantOf(vals[i], found[i])
		if reason.IsFinding() {
			h.defaulted[reason.String()]++
		}
		h.cache[s] = t
	}
	return nil
}

func (h *hookTenants) tenant(seq uint64) string { return h.cache[seq] }

// defaultedNote reports the hooks filed under "default" by a finding.
func (h *hookTenants) defaultedNote(notes *viewNotes) {
	if len(h.defaulted) == 0 {
		return
	}
	var total int64
	var parts []string
	for _, r := range []format.DefaultReason{format.ReasonMissingHook, format.ReasonUndecodable, format.ReasonNotMap, format.ReasonBadTenant} {
		if n := h.defaulted[r.String()]; n > 0 {
			total += n
			parts = append(parts, r.String()+" "+strconv.FormatInt(n, 10))
		}
	}
	notes.warn("%d %s filed under %q because the hook is missing, does not decode or has an invalid tenant_id (%s)",
		total, words.Plural(total, "hook", "hooks"), format.DefaultTenant, strings.Join(parts, ", "))
}
