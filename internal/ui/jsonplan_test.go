package ui

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

type planInner struct {
	CF  string `json:"cf"`
	Hex string `json:"hex,omitempty"`
}

type planEmbedded struct {
	Ref  string `json:"ref"`
	Seq  uint64 `json:"seq"`
	Sink uint16 `json:"sink"`
}

type planRow struct {
	Schema int `json:"schema"`
	planEmbedded
	Name     string
	Skipped  string `json:"-"`
	hidden   string
	Text     *string       `json:"text"`
	TextOpt  *string       `json:"text_opt,omitempty"`
	Small    int8          `json:"small"`
	Mid      int16         `json:"mid"`
	Word     int32         `json:"word"`
	Big      int64         `json:"big"`
	Plain    int           `json:"plain"`
	Byte     uint8         `json:"byte"`
	Ord      *uint32       `json:"ord"`
	OK       bool          `json:"ok"`
	Zero     int           `json:"zero,omitempty"`
	At       time.Time     `json:"at"`
	List     []string      `json:"list"`
	Pairs    [][2]string   `json:"pairs"`
	PairsOpt [][2]string   `json:"pairs_opt,omitempty"`
	Inner    planInner     `json:"inner"`
	Ptr      *planInner    `json:"ptr"`
	Rows     []planInner   `json:"rows"`
	Fixed    [2]int64      `json:"fixed"`
	Nested   *[]*planInner `json:"nested"`
}

// A plan writes what encoding/json writes (HTML escaping off), byte for byte: every kind it
// knows, empty and full, nil and set, omitempty both ways, times of the store (UTC, whole
// milliseconds) and others.
func TestJSONPlanIsEncodingJSON(t *testing.T) {
	s := func(v string) *string { return &v }
	ord := uint32(4294967295)
	inner := &planInner{CF: "dead", Hex: "00ff"}
	rows := []*planInner{inner, {CF: "x"}}
	plan := NewJSONPlan[planRow]()
	for _, r := range []planRow{
		{},
		{Schema: 1, planEmbedded: planEmbedded{Ref: "1:2", Seq: 1<<64 - 1, Sink: 65535}, Name: "z\u00fcrich \"q\" \\ \t\n\x01 <&> \u2028\u2029 \xff",
			Skipped: "no", hidden: "no", Text: s(""), TextOpt: s("t"), Small: -128, Mid: -32768, Word: -1 << 31, Big: -1 << 63, Plain: 7,
			Byte: 255, Ord: &ord, OK: true, Zero: 3, At: time.UnixMilli(1796032800120).UTC(), List: []string{}, Pairs: [][2]string{{"a", "b"}, {"c\"", "\u0000"}},
			PairsOpt: [][2]string{{"n", "v"}}, Inner: planInner{CF: "c"}, Ptr: inner, Rows: []planInner{{}, *inner}, Fixed: [2]int64{-1, 1}, Nested: &rows},
		{List: []string{"one", "\xe9"}, At: time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.FixedZone("x", 3600)), Pairs: [][2]string{}, Rows: []planInner{}},
		{At: time.UnixMilli(-1).UTC(), Nested: &[]*planInner{nil}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if got := append(plan.Append(nil, &r), '\n'); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("plan:\n got %s\nwant %s", got, want.Bytes())
		}
	}
}

// A type a plan would not write as encoding/json does is refused when the plan is made,
// never written wrong.
func TestJSONPlanRefusesWhatItDoesNotWrite(t *testing.T) {
	type withMap struct {
		M map[string]int `json:"m"`
	}
	type withFloat struct {
		F float64 `json:"f"`
	}
	type withTime struct {
		D time.Duration `json:"d,string"`
	}
	type withBytes struct {
		B []byte `json:"b"`
	}
	type withMarshaler struct {
		R json.RawMessage `json:"r"`
	}
	for name, mk := range map[string]func(){
		"map":       func() { NewJSONPlan[withMap]() },
		"float":     func() { NewJSONPlan[withFloat]() },
		",string":   func() { NewJSONPlan[withTime]() },
		"bytes":     func() { NewJSONPlan[withBytes]() },
		"marshaler": func() { NewJSONPlan[withMarshaler]() },
		"no struct": func() { NewJSONPlan[int]() },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			mk()
		}()
	}
}
