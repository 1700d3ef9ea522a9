package format

import (
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format/etf"
)

// EncodeSize is <<size::32>>: the value of d, f, F and of a format 2 a.
func EncodeSize(size uint32) []byte { return EncodeU32(size) }

// DecodeSize decodes <<size::32>>.
func DecodeSize(b []byte) (uint32, error) {
	if len(b) != 4 {
		return 0, valueErr("size", "want 4 bytes, got %d", len(b))
	}
	return be.Uint32(b), nil
}

// DueValue is a format 3 due value <<size::32, kind::8>>; Kind says whether the
// row counts as pending (first attempt) or scheduled (retry).
type DueValue struct {
	Size uint32
	Kind uint8
}

// Append appends the value's bytes to dst.
func (v DueValue) Append(dst []byte) []byte { return append(be.AppendUint32(dst, v.Size), v.Kind) }

// Encode returns <<size::32, kind::8>>.
func (v DueValue) Encode() []byte { return v.Append(make([]byte, 0, 5)) }

// Field is the counter the row counts under.
func (v DueValue) Field() Field {
	if v.Kind == KindRetry {
		return FieldScheduled
	}
	return FieldPending
}

func (v DueValue) String() string { return fmt.Sprintf("size=%d kind=%s", v.Size, kindName(v.Kind)) }

func kindName(k uint8) string {
	switch k {
	case KindFirstAttempt:
		return "first_attempt(0)"
	case KindRetry:
		return "retry(1)"
	}
	return fmt.Sprintf("kind?(%d)", k)
}

// DecodeDueValue decodes a format 3 due value; a kind other than 0 or 1 is an
// error because no counter would account for the row.
func DecodeDueValue(b []byte) (DueValue, error) {
	if len(b) != 5 {
		return DueValue{}, valueErr("due value", "want 5 bytes, got %d", len(b))
	}
	v := DueValue{Size: be.Uint32(b), Kind: b[4]}
	if v.Kind != KindFirstAttempt && v.Kind != KindRetry {
		return v, valueErr("due value", "kind %d is neither 0 (first attempt) nor 1 (retry)", v.Kind)
	}
	return v, nil
}

// ArchiveValue is an archive obligation value: <<size::32>> in format 2,
// <<size::32, ord::32>> in format 3.
type ArchiveValue struct {
	Size, Ord uint32
	HasOrd    bool
}

// Append appends the value's bytes to dst.
func (v ArchiveValue) Append(dst []byte) []byte {
	dst = be.AppendUint32(dst, v.Size)
	if v.HasOrd {
		dst = be.AppendUint32(dst, v.Ord)
	}
	return dst
}

// Encode returns the value's bytes (4 or 8).
func (v ArchiveValue) Encode() []byte { return v.Append(make([]byte, 0, 8)) }

func (v ArchiveValue) String() string {
	if v.HasOrd {
		return fmt.Sprintf("size=%d ord=%d", v.Size, v.Ord)
	}
	return fmt.Sprintf("size=%d", v.Size)
}

// DecodeArchiveValue decodes either format's archive value by its length.
func DecodeArchiveValue(b []byte) (ArchiveValue, error) {
	switch len(b) {
	case 4:
		return ArchiveValue{Size: be.Uint32(b)}, nil
	case 8:
		return ArchiveValue{Size: be.Uint32(b), Ord: be.Uint32(b[4:]), HasOrd: true}, nil
	}
	return ArchiveValue{}, valueErr("archive value", "want 4 or 8 bytes, got %d", len(b))
}

// DeadValue is a dead row's value: ETF {source_id, id} in format 2 and
// {source_id, id, ord} in format 3.
type DeadValue struct {
	SourceID, ID []byte
	Ord          uint32
	HasOrd       bool
}

// Term is the value as an Erlang term.
func (v DeadValue) Term() etf.Term {
	t := etf.Tuple{etf.Binary(v.SourceID), etf.Binary(v.ID)}
	if v.HasOrd {
		t = append(t, int64(v.Ord))
	}
	return t
}

// Encode returns term_to_binary of the tuple.
func (v DeadValue) Encode() []byte { return v.AppendEncode(nil) }

// AppendEncode appends Encode's bytes to dst, the tuple written directly rather than built
// as a term and walked: a migration writes every dead row's value again (3*10^6 at 10^7
// rows), and the term built, walked and allocated for each was 0.7 s of a bulk run's CPU.
func (v DeadValue) AppendEncode(dst []byte) []byte {
	arity := byte(2)
	if v.HasOrd {
		arity = 3
	}
	n := len(dst)
	out := append(dst, etf.TagVersion, etf.TagSmallTuple, arity)
	out, ok1 := etf.AppendBinaryTerm(out, v.SourceID)
	out, ok2 := etf.AppendBinaryTerm(out, v.ID)
	if !ok1 || !ok2 {
		// Past what a binary term holds: the encoder's refusal, as the term would meet it.
		return append(dst[:n], mustEncode(v.Term())...)
	}
	if v.HasOrd {
		out = etf.AppendIntTerm(out, int64(v.Ord))
	}
	return out
}

func (v DeadValue) String() string {
	if v.HasOrd {
		return fmt.Sprintf("source_id=%q id=%q ord=%d", v.SourceID, v.ID, v.Ord)
	}
	return fmt.Sprintf("source_id=%q id=%q", v.SourceID, v.ID)
}

// DecodeDeadValue decodes either format's dead value.
func DecodeDeadValue(b []byte) (DeadValue, error) {
	if v, ok := decodeDeadValueSkim(b); ok {
		return v, nil
	}
	return decodeDeadValueTerm(b)
}

// decodeDeadValueSkim is DecodeDeadValue of a value of the node's shape
// ({binary, binary} or {binary, binary, small integer}), read in place (an
// export reads one a dead letter); any other is not answered (false).
func decodeDeadValueSkim(b []byte) (DeadValue, bool) {
	var e [3][]byte
	n, ok := etf.TupleElems(b, e[:])
	if !ok || n < 2 {
		return DeadValue{}, false
	}
	src, ok1 := etf.ReadBinary(e[0])
	id, ok2 := etf.ReadBinary(e[1])
	if !ok1 || !ok2 {
		return DeadValue{}, false
	}
	// One allocation for both, which are the value's own, as the decoder's.
	both := make([]byte, len(src)+len(id))
	copy(both, src)
	copy(both[len(src):], id)
	v := DeadValue{SourceID: both[:len(src):len(src)], ID: both[len(src):]}
	if n == 3 {
		ord, ok := etf.ReadInt64(e[2])
		if !ok || ord < 0 || ord > int64(MaxOrd) {
			return DeadValue{}, false
		}
		v.Ord, v.HasOrd = uint32(ord), true
	}
	return v, true
}

// decodeDeadValueTerm is DecodeDeadValue by the decoder.
func decodeDeadValueTerm(b []byte) (DeadValue, error) {
	t, err := decodeNodeTerm(b)
	if err != nil {
		return DeadValue{}, valueErr("dead value", "%v", err)
	}
	tup, ok := t.(etf.Tuple)
	if !ok || (len(tup) != 2 && len(tup) != 3) {
		return DeadValue{}, valueErr("dead value", "want {source_id, id} or {source_id, id, ord}, got %s", etf.Format(t))
	}
	src, ok1 := tup[0].(etf.Binary)
	id, ok2 := tup[1].(etf.Binary)
	if !ok1 || !ok2 {
		return DeadValue{}, valueErr("dead value", "source_id and id must be binaries, got %s", etf.Format(t))
	}
	v := DeadValue{SourceID: []byte(src), ID: []byte(id)}
	if len(tup) == 3 {
		ord, ok := tup[2].(int64)
		if !ok || ord < 0 || ord > int64(MaxOrd) {
			return DeadValue{}, valueErr("dead value", "ord must be an integer in 0..%d, got %s", MaxOrd, etf.Format(tup[2]))
		}
		v.Ord, v.HasOrd = uint32(ord), true
	}
	return v, nil
}

// mustEncode encodes terms this package builds from Go values; etf.Encode can
// only refuse types we never construct, so an error here is a bug in this package.
func mustEncode(t etf.Term) []byte {
	b, err := etf.Encode(t)
	if err != nil {
		panic(fmt.Sprintf("format: encoding a term we built: %v", err))
	}
	return b
}
