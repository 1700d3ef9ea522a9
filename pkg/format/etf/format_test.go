package etf

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	pid := mustHex(t, "58770d6e6f6e6f6465406e6f686f73740000002a0000000000000000")
	cases := []struct {
		term Term
		want string
	}{
		{Tuple{Binary("src"), Binary("id"), int64(3)}, `{<<"src">>,<<"id">>,3}`},
		{Map{{Atom("id"), Binary("x")}}, `#{id => <<"x">>}`},
		{Map{}, `#{}`},
		{Atom("ok"), `ok`},
		{Atom("Elixir.Ankusa.Envelope"), `'Elixir.Ankusa.Envelope'`},
		{Atom("end"), `'end'`},
		{Atom(""), `''`},
		{Atom("a b"), `'a b'`},
		{Atom("node@host"), `node@host`},
		{Binary{1, 2, 3}, `<<1,2,3>>`},
		{Binary{}, `<<>>`},
		{Binary("héllo"), `<<"héllo"/utf8>>`},
		{Binary("a\"b"), `<<"a\"b">>`},
		{BitBinary{Data: []byte{0x20}, Bits: 3}, `<<1:3>>`},
		{BitBinary{Data: []byte{1, 0x20}, Bits: 4}, `<<1,2:4>>`},
		{List{}, `[]`},
		{List{Elems: ints('a', 'b')}, `"ab"`},
		{List{Elems: ints(1, 2000)}, `[1,2000]`},
		{List{Elems: []Term{Atom("a")}, Tail: Atom("b")}, `[a|b]`},
		{1.5, `1.5`},
		{1e10, `1.0e10`},
		{100.0, `100.0`},
		{math.Copysign(0, -1), `-0.0`},
		{bigFromString("-18446744073709551616"), `-18446744073709551616`},
		{Opaque{Tag: 88, Raw: pid}, `#Pid<nonode@nohost.42.0>`},
		{Opaque{Tag: 113, Raw: mustHex(t, "71770665726c616e6777036162736101")}, `#Fun<erlang.abs.1>`},
		{Opaque{Tag: 88}, `#Opaque<88>`},
	}
	for _, c := range cases {
		if got := Format(c.term); got != c.want {
			t.Errorf("Format = %s, want %s", got, c.want)
		}
	}
}

func TestFormatOpaqueVectors(t *testing.T) {
	want := map[string]string{
		"pid":         "#Pid<nonode@nohost.42.0>",
		"ref":         "#Ref<nonode@nohost.3.2.1>",
		"fun_export":  "#Fun<erlang.abs.1>",
		"fun_closure": "#Fun<etf_vectors_fun.0>",
	}
	for _, v := range loadVectors(t) {
		w, ok := want[v.Base()]
		if !ok {
			continue
		}
		got, err := Decode(v.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if Format(got) != w {
			t.Errorf("%s: Format = %s, want %s", v.Name, Format(got), w)
		}
	}
}
