package inspect

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// ErrNoDeadLetter: no dead letter matches what ShowDLQ was asked for.
var ErrNoDeadLetter = errors.New("no such dead letter")

// DLQRef is SEQ[:SINK], the reference dlq scan prints for each row.
type DLQRef struct {
	Seq  uint64
	Sink *uint16
}

func (r DLQRef) String() string {
	if r.Sink == nil {
		return strconv.FormatUint(r.Seq, 10)
	}
	return fmt.Sprintf("%d:%d", r.Seq, *r.Sink)
}

// dlqRefOf is the SEQ:SINK of one dead letter.
func dlqRefOf(seq uint64, sink uint16) string { return fmt.Sprintf("%d:%d", seq, sink) }

// ParseDLQRef reads SEQ or SEQ:SINK (decimal; seq below 2^63, sink 16 bits).
func ParseDLQRef(s string) (DLQRef, error) {
	seqS, sinkS, hasSink := strings.Cut(strings.TrimSpace(s), ":")
	seq, err := strconv.ParseUint(seqS, 10, 63)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return DLQRef{}, fmt.Errorf("%q: seq %s is out of range (a seq is below 2^63)", s, seqS)
	case err != nil && !hasSink:
		// Not a number at all: most likely the hook id a log line gave.
		return DLQRef{}, fmt.Errorf("%q is not SEQ or SEQ:SINK (a seq is a decimal number below 2^63); to find dead letters by hook id: dlq show --id %s STORE", s, strings.TrimSpace(s))
	case err != nil:
		return DLQRef{}, fmt.Errorf("%q is not SEQ:SINK (a seq is a decimal number below 2^63)", s)
	}
	r := DLQRef{Seq: seq}
	if hasSink {
		sink, err := strconv.ParseUint(sinkS, 10, 16)
		if errors.Is(err, strconv.ErrRange) {
			return DLQRef{}, fmt.Errorf("%q: sink %s is out of range (a sink is in 0..65535)", s, sinkS)
		}
		if err != nil {
			return DLQRef{}, fmt.Errorf("%q is not SEQ:SINK (a sink is a decimal number in 0..65535)", s)
		}
		v := uint16(sink)
		r.Sink = &v
	}
	return r, nil
}

// DLQShowOptions selects the dead letters ShowDLQ shows: by Ref, or by the
// hook id (HookID, from a dead row's value).
type DLQShowOptions struct {
	Ref    DLQRef
	HookID string
	// Values reads the dead values, delivery rows and hooks (the zero value,
	// the tool's own, reads them in place; a test chooses the whole decode to
	// compare the two).
	Values format.ValueReader
}

// DLQDetail is the output of ShowDLQ; its JSON is `dlq show -o json`.
type DLQDetail struct {
	Format      uint32       `json:"format"`
	DeadLetters []DeadLetter `json:"dead_letters"`
	Notes       []ViewNote   `json:"notes"`
}

// DeadLetter is one dead letter in full: its dead row, delivery row, hook and
// every index key that points at it.
type DeadLetter struct {
	Ref    string    `json:"ref"` // SEQ:SINK
	Seq    uint64    `json:"seq"`
	Sink   uint16    `json:"sink"`
	DeadAt time.Time `json:"dead_at"`
	AtMS   uint64    `json:"at_ms"`
	At     uint64    `json:"at" jsondoc:"deprecated: the same as at_ms; removed in a later release"`
	// Tenant is from the dead row's ordinal (format 3) or the hook (format 2).
	Tenant string `json:"tenant"`
	// TenantHex and the other _hex twins are there only when the text is not UTF-8:
	// its bytes, in hex (dlq_exact_bytes.go).
	TenantHex   string          `json:"tenant_hex,omitempty"`
	Ord         *uint32         `json:"ord"`
	SourceID    string          `json:"source_id"`
	SourceIDHex string          `json:"source_id_hex,omitempty"`
	HookID      string          `json:"hook_id"`
	HookIDHex   string          `json:"hook_id_hex,omitempty"`
	Delivery    *DeliveryDetail `json:"delivery"`
	Hook        *HookDetail     `json:"hook"`
	// IndexKeys are the keys that point at this delivery or its hook: the
	// dead row, its dead-by-tenant key, an inflight key (a finding) and the
	// hook's archive obligation.
	IndexKeys []KeyRef `json:"index_keys"`
	Problems  []string `json:"problems"`
}

// DeliveryDetail is the delivery row; Error says why it is missing or unreadable.
type DeliveryDetail struct {
	Key       KeyRef  `json:"key"`
	Status    string  `json:"status"`
	Attempts  int64   `json:"attempts"`
	Size      uint64  `json:"size"`
	LastError *string `json:"last_error"`
	// LastErrorHex is there only when LastError is not UTF-8: its bytes, in hex.
	LastErrorHex string `json:"last_error_hex,omitempty"`
	Error        string `json:"error,omitempty"`
}

// HookDetail is the hook envelope. The body is text when it is valid UTF-8
// (BodyText), else hex (BodyHex); BodyBytes is its length either way.
type HookDetail struct {
	Key            KeyRef      `json:"key"`
	ID             string      `json:"id"`
	SourceID       string      `json:"source_id"`
	TenantID       *string     `json:"tenant_id"`
	IdempotencyKey *string     `json:"idempotency_key"`
	ReceivedAt     time.Time   `json:"received_at"`
	ReceivedAtMS   int64       `json:"received_at_ms"`
	Headers        [][2]string `json:"headers"`
	BodyBytes      int         `json:"body_bytes"`
	BodyText       *string     `json:"body_text"`
	BodyHex        *string     `json:"body_hex"`
	Error          string      `json:"error,omitempty"`
	// IDHex and the other _hex twins are there only when the text is not UTF-8: its
	// bytes, in hex (dlq_exact_bytes.go); HeadersHex, when a header name or value is not,
	// is every header in hex (name, value), in order.
	IDHex             string      `json:"id_hex,omitempty"`
	SourceIDHex       string      `json:"source_id_hex,omitempty"`
	TenantIDHex       string      `json:"tenant_id_hex,omitempty"`
	IdempotencyKeyHex string      `json:"idempotency_key_hex,omitempty"`
	HeadersHex        [][2]string `json:"headers_hex,omitempty"`
}

// ShowDLQ finds the dead letters of a seq (one sink, or all of them) or of a
// hook id and reads each in full. It walks the dead family once (the dead
// key leads with the time it went dead, which neither a seq nor an id
// gives), then reads point keys: the delivery row, the hook, the dead-by-
// tenant key, the inflight key and the archive obligation. None found is
// ErrNoDeadLetter.
func ShowDLQ(ctx context.Context, st *rocks.Store, o DLQShowOptions) (*DLQDetail, error) {
	if err := refuseMidMigration(st); err != nil {
		return nil, err
	}
	d := &DLQDetail{Format: st.Format, DeadLetters: []DeadLetter{}, Notes: []ViewNote{}}
	type found struct {
		k format.DeadKey
		v []byte
	}
	var hits []found
	err := walk.Family(st.DB, format.FamDead, nil, false, walk.MaxChunk, func(chunk []walk.Entry) (bool, error) {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		for _, e := range chunk {
			k, err := format.DecodeDeadKey(e.K)
			if err != nil {
				continue
			}
			if o.HookID != "" {
				v, err := o.Values.DecodeDeadValue(e.V)
				if err != nil || string(v.ID) != o.HookID {
					continue
				}
			} else if k.Seq != o.Ref.Seq || (o.Ref.Sink != nil && k.Sink != *o.Ref.Sink) {
				continue
			}
			hits = append(hits, found{k, append([]byte(nil), e.V...)})
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if len(hits) == 0 {
		if o.HookID != "" {
			return nil, fmt.Errorf("%w: no dead row carries hook id %q", ErrNoDeadLetter, o.HookID)
		}
		return nil, fmt.Errorf("%w: no dead row for %s%s", ErrNoDeadLetter, o.Ref, dlqShowWhy(st.DB, o.Ref, o.Values))
	}
	for _, h := range hits {
		dl, err := showDeadLetter(st, h.k, h.v, o.Values)
		if err != nil {
			return nil, err
		}
		d.DeadLetters = append(d.DeadLetters, dl)
	}
	return d, nil
}

// dlqShowWhy says what a seq with no dead row is, when its delivery row says.
func dlqShowWhy(db *rocks.DB, r DLQRef, vr format.ValueReader) string {
	if r.Sink == nil {
		if _, ok, err := db.Get(format.CFHooks, format.HookKey{Seq: r.Seq}.Encode()); err == nil && !ok {
			return " (and no hook has that seq)"
		}
		return ""
	}
	v, ok, err := db.Get(format.CFDeliveries, format.DeliveryKey{Seq: r.Seq, Sink: *r.Sink}.Encode())
	if err != nil || !ok {
		return " (and there is no delivery row seq=" + strconv.FormatUint(r.Seq, 10) + " sink=" + strconv.Itoa(int(*r.Sink)) + ")"
	}
	if dv, err := vr.DecodeDelivery(v); err == nil {
		return " (its delivery row has status " + dv.Status + ")"
	}
	return ""
}

func showDeadLetter(st *rocks.Store, k format.DeadKey, v []byte, vr format.ValueReader) (DeadLetter, error) {
	db := st.DB
	dl := DeadLetter{Ref: dlqRefOf(k.Seq, k.Sink), Seq: k.Seq, Sink: k.Sink, DeadAt: viewTime(k.At), AtMS: k.At, At: k.At,
		IndexKeys: []KeyRef{keyRef(format.CFIndex, k.Encode())}, Problems: []string{}}
	problem := func(f string, args ...any) { dl.Problems = append(dl.Problems, fmt.Sprintf(f, args...)) }
	dv, err := vr.DecodeDeadValue(v)
	if err != nil {
		problem("the dead row's value does not decode: %v", err)
	} else {
		dl.SourceID, dl.HookID = string(dv.SourceID), string(dv.ID)
		if dv.HasOrd {
			o := dv.Ord
			dl.Ord = &o
		} else if st.Format == format.Format3 {
			problem("the dead row's value carries no ordinal (a format 2 value in a format 3 store)")
		}
	}

	// The delivery row.
	dk := format.DeliveryKey{Seq: k.Seq, Sink: k.Sink}.Encode()
	dd := &DeliveryDetail{Key: keyRef(format.CFDeliveries, dk)}
	dl.Delivery = dd
	switch raw, ok, err := db.Get(format.CFDeliveries, dk); {
	case err != nil:
		dd.Error = err.Error()
		problem("the delivery row cannot be read: %v", err)
	case !ok:
		dd.Error = "missing"
		problem("the delivery row is missing")
	default:
		row, err := vr.DecodeDelivery(raw)
		if err != nil {
			dd.Error = err.Error()
			problem("the delivery row does not decode: %v", err)
			break
		}
		dd.Status, dd.Attempts, dd.Size = row.Status, row.Attempts, row.Size
		if !row.LastErrorNil {
			s := string(row.LastError)
			dd.LastError = &s
		}
		if row.Status != format.StatusDead {
			problem("the delivery row has status %s, not dead (invariant 5: one index key per delivery row)", row.Status)
		}
	}

	// The hook.
	hk := format.HookKey{Seq: k.Seq}.Encode()
	raw, hookFound, err := db.Get(format.CFHooks, hk)
	hd, hookProblems := hookDetailOf(vr, hk, raw, hookFound, err, dl.HookID)
	dl.Hook = hd
	dl.Problems = append(dl.Problems, hookProblems...)

	// The tenant: from the ordinal on format 3, from the hook on format 2.
	if dl.Ord != nil {
		dl.Tenant = tenantName(db, *dl.Ord)
		xk := k.ByTenant(*dl.Ord).Encode()
		if _, ok, err := db.Get(format.CFIndex, xk); err != nil {
			return dl, err
		} else if ok {
			dl.IndexKeys = append(dl.IndexKeys, keyRef(format.CFIndex, xk))
		} else {
			problem("the dead-by-tenant key %s is missing (invariant 3)", keyRef(format.CFIndex, xk).Key)
		}
		fk := format.InflightKey{Ord: *dl.Ord, Seq: k.Seq, Sink: k.Sink}.Encode()
		if _, ok, err := db.Get(format.CFIndex, fk); err != nil {
			return dl, err
		} else if ok {
			dl.IndexKeys = append(dl.IndexKeys, keyRef(format.CFIndex, fk))
			problem("an inflight key points at the same delivery (invariant 5)")
		}
	} else {
		t, _ := format.TenantOf(raw, hookFound)
		dl.Tenant = t
		fk := format.InflightV2Key{Seq: k.Seq, Sink: k.Sink}.Encode()
		if _, ok, err := db.Get(format.CFIndex, fk); err != nil {
			return dl, err
		} else if ok {
			dl.IndexKeys = append(dl.IndexKeys, keyRef(format.CFIndex, fk))
			problem("an inflight key points at the same delivery (invariant 5)")
		}
	}
	ak := format.ArchiveKey{Seq: k.Seq}.Encode()
	if _, ok, err := db.Get(format.CFIndex, ak); err != nil {
		return dl, err
	} else if ok {
		dl.IndexKeys = append(dl.IndexKeys, keyRef(format.CFIndex, ak))
	}
	dl.exactBytes()
	return dl, nil
}

// tenantName is the id of ord from its t row, or what stands for it.
func tenantName(db *rocks.DB, ord uint32) string {
	v, ok, err := db.Get(format.CFTenants, format.TenantByOrdKey{Ord: ord}.Encode())
	switch {
	case err != nil || !ok:
		return "(no t row)"
	case len(v) == 0:
		return "(erased)"
	}
	return string(v)
}

// hookDetailOf decodes the hook read under key hk (found, or the read's err),
// with the problems it shows: missing, unreadable, undecodable, or carrying
// another id than the dead row's hookID ("" when unknown).
func hookDetailOf(vr format.ValueReader, hk, raw []byte, found bool, err error, hookID string) (*HookDetail, []string) {
	hd := &HookDetail{Key: keyRef(format.CFHooks, hk), Headers: [][2]string{}}
	switch {
	case err != nil:
		hd.Error = err.Error()
		return hd, []string{fmt.Sprintf("the hook cannot be read: %v", err)}
	case !found:
		hd.Error = "missing"
		return hd, []string{"the hook is missing"}
	}
	env, err := vr.DecodeEnvelope(raw)
	if err != nil {
		hd.Error = err.Error()
		return hd, []string{fmt.Sprintf("the hook does not decode: %v", err)}
	}
	hd.ID, hd.SourceID = string(env.ID), string(env.SourceID)
	if !env.TenantNil {
		s := string(env.TenantID)
		hd.TenantID = &s
	}
	if env.IdempotencyKey != nil {
		s := string(env.IdempotencyKey)
		hd.IdempotencyKey = &s
	}
	hd.ReceivedAtMS = env.ReceivedAt
	hd.ReceivedAt = time.UnixMilli(env.ReceivedAt).UTC()
	for _, h := range env.Headers {
		hd.Headers = append(hd.Headers, [2]string{string(h[0]), string(h[1])})
	}
	hd.BodyBytes = len(env.Body)
	if utf8.Valid(env.Body) {
		s := string(env.Body)
		hd.BodyText = &s
	} else {
		s := fmt.Sprintf("%x", env.Body)
		hd.BodyHex = &s
	}
	if hookID != "" && hd.ID != hookID {
		return hd, []string{fmt.Sprintf("the dead row names hook id %q, the hook says %q", hookID, hd.ID)}
	}
	return hd, nil
}
