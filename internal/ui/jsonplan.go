package ui

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// JSONPlan writes a struct type as encoding/json does with HTML escaping off (WriteJSON's),
// from the type itself: its fields in order, their tags' names, omitempty, embedded
// structs inlined. It is compiled once per type, so that a line written many times (a
// dead letter of dlq export, at 10^6 of them) costs what hand-written appends cost, with
// the struct as the one statement of its shape: a field renamed, added or moved is written
// so without a second list to change. It knows the kinds the tool's lines hold (strings,
// integers, bools, times, pointers, slices, arrays, structs) and panics, when compiled, on
// any other (a map, a float, a type with its own MarshalJSON or MarshalText), which it
// would not write as encoding/json does. TestJSONPlanIsEncodingJSON holds it to
// encoding/json.
type JSONPlan[T any] struct{ enc encFunc }

// encFunc appends the value at p.
type encFunc func(b []byte, p unsafe.Pointer) []byte

// NewJSONPlan compiles T's plan; T must be a struct type.
func NewJSONPlan[T any]() *JSONPlan[T] {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("ui.NewJSONPlan: %s is no struct", t))
	}
	return &JSONPlan[T]{enc: encoderOf(t)}
}

// Append appends v's JSON (no newline).
func (p *JSONPlan[T]) Append(b []byte, v *T) []byte { return p.enc(b, unsafe.Pointer(v)) }

var (
	timeType      = reflect.TypeFor[time.Time]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

func encoderOf(t reflect.Type) encFunc {
	if t == timeType {
		return func(b []byte, p unsafe.Pointer) []byte {
			return append(AppendJSONTime(append(b, '"'), *(*time.Time)(p)), '"')
		}
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) ||
		t.Implements(textType) || reflect.PointerTo(t).Implements(textType) {
		panic(fmt.Sprintf("ui.JSONPlan: %s marshals itself", t))
	}
	switch t.Kind() {
	case reflect.String:
		return func(b []byte, p unsafe.Pointer) []byte { return AppendJSONString(b, *(*string)(p)) }
	case reflect.Bool:
		return func(b []byte, p unsafe.Pointer) []byte { return strconv.AppendBool(b, *(*bool)(p)) }
	case reflect.Int:
		return appendInt[int]
	case reflect.Int8:
		return appendInt[int8]
	case reflect.Int16:
		return appendInt[int16]
	case reflect.Int32:
		return appendInt[int32]
	case reflect.Int64:
		return appendInt[int64]
	case reflect.Uint:
		return appendUint[uint]
	case reflect.Uint8:
		return appendUint[uint8]
	case reflect.Uint16:
		return appendUint[uint16]
	case reflect.Uint32:
		return appendUint[uint32]
	case reflect.Uint64:
		return appendUint[uint64]
	case reflect.Pointer:
		elem := encoderOf(t.Elem())
		return func(b []byte, p unsafe.Pointer) []byte {
			if q := *(*unsafe.Pointer)(p); q != nil {
				return elem(b, q)
			}
			return append(b, "null"...)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			panic(fmt.Sprintf("ui.JSONPlan: %s is base64 in encoding/json", t))
		}
		elem, size := encoderOf(t.Elem()), t.Elem().Size()
		return func(b []byte, p unsafe.Pointer) []byte {
			s := (*sliceHeader)(p)
			if s.data == nil {
				return append(b, "null"...)
			}
			return appendElems(b, elem, s.data, s.len, size)
		}
	case reflect.Array:
		elem, size, n := encoderOf(t.Elem()), t.Elem().Size(), t.Len()
		return func(b []byte, p unsafe.Pointer) []byte { return appendElems(b, elem, p, n, size) }
	case reflect.Struct:
		return structEncoder(t)
	}
	panic(fmt.Sprintf("ui.JSONPlan: %s (%s) is not a kind it writes", t, t.Kind()))
}

// appendInt and appendUint write an integer read at its own width.
func appendInt[T int | int8 | int16 | int32 | int64](b []byte, p unsafe.Pointer) []byte {
	return strconv.AppendInt(b, int64(*(*T)(p)), 10)
}

func appendUint[T uint | uint8 | uint16 | uint32 | uint64](b []byte, p unsafe.Pointer) []byte {
	return strconv.AppendUint(b, uint64(*(*T)(p)), 10)
}

// sliceHeader is a slice as the runtime lays it out.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func appendElems(b []byte, elem encFunc, p unsafe.Pointer, n int, size uintptr) []byte {
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, unsafe.Add(p, uintptr(i)*size))
	}
	return append(b, ']')
}

// field is one member of an object: its `"name":`, where it is, how it is written and,
// for omitempty, when it is left out.
type field struct {
	key   []byte
	off   uintptr
	enc   encFunc
	empty func(p unsafe.Pointer) bool
}

func structEncoder(t reflect.Type) encFunc {
	fields := structFields(t, 0)
	return func(b []byte, p unsafe.Pointer) []byte {
		b = append(b, '{')
		first := true
		for i := range fields {
			f := &fields[i]
			at := unsafe.Add(p, f.off)
			if f.empty != nil && f.empty(at) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = f.enc(append(b, f.key...), at)
		}
		return append(b, '}')
	}
}

// structFields are t's members as encoding/json orders them here: declared order, an
// embedded struct without a name inlined where it stands. (A name that two levels both
// hold, which encoding/json resolves by depth, is refused.)
func structFields(t reflect.Type, base uintptr) []field {
	var out []field
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, hasTag := sf.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			out = append(out, structFields(sf.Type, base+sf.Offset)...)
			continue
		}
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Pointer {
			panic(fmt.Sprintf("ui.JSONPlan: %s embeds %s by pointer", t, sf.Type))
		}
		if !sf.IsExported() {
			continue
		}
		if !hasTag || name == "" {
			name = sf.Name
		}
		f := field{key: AppendJSONString(nil, name), off: base + sf.Offset, enc: encoderOf(sf.Type)}
		f.key = append(f.key, ':')
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				f.empty = emptyOf(sf.Type)
			case "":
			default:
				panic(fmt.Sprintf("ui.JSONPlan: %s.%s: option %q", t, sf.Name, o))
			}
		}
		out = append(out, f)
	}
	for _, f := range out {
		if seen[string(f.key)] {
			panic(fmt.Sprintf("ui.JSONPlan: %s holds %s twice", t, f.key))
		}
		seen[string(f.key)] = true
	}
	return out
}

// emptyOf is encoding/json's omitempty test for t: false, 0, a nil pointer, an empty
// string, slice or array. A struct is never empty.
func emptyOf(t reflect.Type) func(p unsafe.Pointer) bool {
	switch t.Kind() {
	case reflect.String:
		return func(p unsafe.Pointer) bool { return *(*string)(p) == "" }
	case reflect.Pointer:
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return (*sliceHeader)(p).len == 0 }
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Array:
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }
	case reflect.Struct:
		return nil
	}
	panic(fmt.Sprintf("ui.JSONPlan: omitempty on %s", t))
}
