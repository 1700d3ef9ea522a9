package etf

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format renders t the way io_lib:print/~p does for the terms the store holds,
// so on-call output can be pasted into an Erlang or Elixir shell. Maps print
// in their stored order (~p sorts them). Pids, references, ports and funs
// print as #Pid<node.id.serial>, #Ref<node.id...>, #Port<node.id> and
// #Fun<module.index> / #Fun<module.function.arity>: the node-local numbering
// ~p shows is not in the encoding.
func Format(t Term) string {
	var sb strings.Builder
	format(&sb, t, 0)
	return sb.String()
}

// formatDepthCap bounds Format's recursion: a term nested deeper (it may
// nest as deeply as its input is long) prints "..." there; Format is for
// people, who cannot read such a term anyway.
const formatDepthCap = 2048

func format(sb *strings.Builder, t Term, depth int) {
	if depth > formatDepthCap {
		sb.WriteString("...")
		return
	}
	switch v := t.(type) {
	case int64:
		sb.WriteString(strconv.FormatInt(v, 10))
	case *big.Int:
		if v == nil {
			sb.WriteString("#BadInt<nil>")
			return
		}
		sb.WriteString(v.String())
	case float64:
		sb.WriteString(formatFloat(v))
	case Atom:
		sb.WriteString(quoteAtom(string(v)))
	case Tuple:
		sb.WriteByte('{')
		for i, e := range v {
			if i > 0 {
				sb.WriteByte(',')
			}
			format(sb, e, depth+1)
		}
		sb.WriteByte('}')
	case List:
		elems, tail := flatten(v)
		if len(elems) == 0 && tail != nil {
			format(sb, tail, depth+1)
			return
		}
		if tail == nil && len(elems) > 0 {
			if s, ok := printableList(elems); ok {
				sb.WriteString(strconv.Quote(s))
				return
			}
		}
		sb.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				sb.WriteByte(',')
			}
			format(sb, e, depth+1)
		}
		if tail != nil {
			sb.WriteByte('|')
			format(sb, tail, depth+1)
		}
		sb.WriteByte(']')
	case Binary:
		formatBinary(sb, v)
	case BitBinary:
		data, bits, ok := bitsOf(v)
		if !ok {
			sb.WriteString("#BadBits<>")
			return
		}
		if bits == 8 || bits == 0 {
			formatBinary(sb, data)
			return
		}
		sb.WriteString("<<")
		for _, c := range data[:len(data)-1] {
			sb.WriteString(strconv.Itoa(int(c)))
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(int(data[len(data)-1] >> (8 - bits))))
		sb.WriteByte(':')
		sb.WriteString(strconv.Itoa(int(bits)))
		sb.WriteString(">>")
	case Map:
		sb.WriteString("#{")
		for i, p := range v {
			if i > 0 {
				sb.WriteByte(',')
			}
			format(sb, p.Key, depth+1)
			sb.WriteString(" => ")
			format(sb, p.Value, depth+1)
		}
		sb.WriteByte('}')
	case Opaque:
		sb.WriteString(describeOpaque(v))
	case nil:
		sb.WriteString("#Nil<>")
	default:
		sb.WriteString("#Unsupported<>")
	}
}

// formatFloat mimics Erlang's shortest round-trip float printing: the
// shorter of the plain and the scientific form (plain on a tie), always with a
// fraction, exponent without "+" or leading zeros.
func formatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "#BadFloat<" + strconv.FormatFloat(f, 'g', -1, 64) + ">"
	}
	plain := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(plain, ".") {
		plain += ".0"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(exp, "+-")
	exp = strings.TrimLeft(exp, "0")
	if exp == "" {
		exp = "0"
	}
	if neg {
		exp = "-" + exp
	}
	if sci := mant + "e" + exp; len(sci) < len(plain) {
		return sci
	}
	return plain
}

func printableList(elems []Term) (string, bool) {
	b := make([]byte, 0, len(elems))
	for _, e := range elems {
		c, ok := byteValue(e)
		if !ok || !printableASCII(c) {
			return "", false
		}
		b = append(b, c)
	}
	return string(b), true
}

func printableASCII(c byte) bool {
	return (c >= 32 && c < 127) || c == '\n' || c == '\t' || c == '\r'
}

func formatBinary(sb *strings.Builder, b []byte) {
	if len(b) == 0 {
		sb.WriteString("<<>>")
		return
	}
	ascii := true
	for _, c := range b {
		if !printableASCII(c) {
			ascii = false
			break
		}
	}
	if ascii {
		sb.WriteString("<<")
		sb.WriteString(strconv.Quote(string(b)))
		sb.WriteString(">>")
		return
	}
	if utf8.Valid(b) && strconv.IsPrint(firstNonASCII(b)) && printableUTF8(b) {
		sb.WriteString("<<")
		sb.WriteString(strconv.Quote(string(b)))
		sb.WriteString("/utf8>>")
		return
	}
	sb.WriteString("<<")
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(int(c)))
	}
	sb.WriteString(">>")
}

func firstNonASCII(b []byte) rune {
	for _, r := range string(b) {
		if r >= utf8.RuneSelf {
			return r
		}
	}
	return 'a'
}

func printableUTF8(b []byte) bool {
	for _, r := range string(b) {
		if r < utf8.RuneSelf {
			if !printableASCII(byte(r)) {
				return false
			}
		} else if !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

var reservedWords = map[string]bool{
	"after": true, "and": true, "andalso": true, "band": true, "begin": true, "bnot": true,
	"bor": true, "bsl": true, "bsr": true, "bxor": true, "case": true, "catch": true,
	"cond": true, "div": true, "else": true, "end": true, "fun": true, "if": true, "let": true,
	"maybe": true, "not": true, "of": true, "or": true, "orelse": true, "receive": true,
	"rem": true, "try": true, "when": true, "xor": true,
}

// quoteAtom quotes an atom unless it reads back as the same bare atom.
func quoteAtom(a string) string {
	bare := a != "" && a[0] >= 'a' && a[0] <= 'z' && !reservedWords[a]
	for i := 0; bare && i < len(a); i++ {
		c := a[i]
		bare = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '@'
	}
	if bare {
		return a
	}
	var sb strings.Builder
	sb.WriteByte('\'')
	for _, r := range a {
		switch r {
		case '\'', '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case '\n':
			sb.WriteString(`\n`)
		case '\t':
			sb.WriteString(`\t`)
		default:
			if r < 32 || r == 127 {
				sb.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + `}`)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('\'')
	return sb.String()
}

// describeOpaque pulls the identifying numbers out of a pid, reference, port
// or fun; it falls back to the tag when Raw is not well formed.
func describeOpaque(o Opaque) string {
	d := decoder{b: o.Raw}
	if len(o.Raw) == 0 {
		return "#Opaque<" + strconv.Itoa(int(o.Tag)) + ">"
	}
	d.off = 1
	u32 := func() string { v, _ := d.u32(); return strconv.FormatUint(uint64(v), 10) }
	atom := func() string { a, _ := d.atom(); return quoteAtom(string(a)) }
	switch o.Raw[0] {
	case TagNewPid, TagPid:
		node := atom()
		id := u32()
		return "#Pid<" + node + "." + id + "." + u32() + ">"
	case TagNewerReference, TagNewReference:
		n, _ := d.u16()
		node := atom()
		if o.Raw[0] == TagNewerReference {
			d.off += 4
		} else {
			d.off++
		}
		s := "#Ref<" + node
		for i := 0; i < int(n) && i < 8; i++ {
			s += "." + u32()
		}
		return s + ">"
	case TagReference:
		node := atom()
		return "#Ref<" + node + "." + u32() + ">"
	case TagV4Port:
		node := atom()
		var id uint64
		if b, err := d.bytes(8); err == nil {
			id = binary.BigEndian.Uint64(b)
		}
		return "#Port<" + node + "." + strconv.FormatUint(id, 10) + ">"
	case TagPort, TagNewPort:
		node := atom()
		return "#Port<" + node + "." + u32() + ">"
	case TagExport:
		m := atom()
		f := atom()
		return "#Fun<" + m + "." + f + "." + smallIntText(&d) + ">"
	case TagNewFun:
		d.off = 1 + newFunFixedPrefixSz - 8 // Index
		idx := u32()
		d.off += 4
		return "#Fun<" + atom() + "." + idx + ">"
	}
	return "#Opaque<" + strconv.Itoa(int(o.Tag)) + ">"
}

func smallIntText(d *decoder) string {
	t, err := d.leaf()
	if v, ok := t.(int64); ok && err == nil {
		return strconv.FormatInt(v, 10)
	}
	return "?"
}
