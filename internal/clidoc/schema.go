package clidoc

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// schemas maps a command path to the Go type of its -o json output, so the documented
// schema is derived from the code that writes it and cannot drift from it.
var schemas = map[string]reflect.Type{}

// RegisterSchema records the type a command encodes with -o json.
func RegisterSchema(path string, v any) { schemas[path] = reflect.TypeOf(v) }

// SchemaPaths are the commands that registered a schema, sorted.
func SchemaPaths() []string {
	var p []string
	for k := range schemas {
		p = append(p, k)
	}
	sort.Strings(p)
	return p
}

// Deprecated is a JSON field whose jsondoc starts with "deprecated": the command, the
// field's path in the document and the note.
type Deprecated struct{ Command, Field, Note string }

// DeprecatedFields are every registered schema's deprecated fields.
func DeprecatedFields() []Deprecated {
	var out []Deprecated
	for path, t := range schemas {
		for _, f := range deprecatedFields(t, "") {
			out = append(out, Deprecated{path, f[0], f[1]})
		}
	}
	return out
}

// schemaOf renders a JSON-encoded Go type as an indented field list, the form the JSON takes.
func schemaOf(t reflect.Type, indent string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == reflect.TypeOf(time.Time{}) {
			return "string (RFC 3339)"
		}
		var lines []string
		lines = append(lines, "{")
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Name
			opt := ""
			if tag, ok := f.Tag.Lookup("json"); ok {
				parts := strings.Split(tag, ",")
				if parts[0] == "-" {
					continue
				}
				if parts[0] != "" {
					name = parts[0]
				}
				for _, p := range parts[1:] {
					if p == "omitempty" || p == "omitzero" {
						opt = " (optional)"
					}
				}
			}
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				inner := schemaOf(f.Type, indent)
				inner = strings.TrimSuffix(strings.TrimPrefix(inner, "{\n"), "\n"+indent+"}")
				lines = append(lines, inner)
				continue
			}
			// A pointer is null when it has no value, unless omitempty leaves it out.
			if f.Type.Kind() == reflect.Pointer && opt == "" {
				opt = " or null"
			}
			// jsondoc:"..." says what a reader must know of a field: a deprecation, above all.
			if d := f.Tag.Get("jsondoc"); d != "" {
				opt += " (" + d + ")"
			}
			lines = append(lines, fmt.Sprintf("%s  %q: %s%s", indent, name, schemaOf(f.Type, indent+"  "), opt))
		}
		lines = append(lines, indent+"}")
		return strings.Join(lines, "\n")
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string (base64)"
		}
		return "[" + schemaOf(t.Elem(), indent) + "]"
	case reflect.Map:
		return "{string: " + schemaOf(t.Elem(), indent+"  ") + "}"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Interface:
		return "any"
	}
	return t.String()
}

// deprecatedFields lists the JSON paths of a type whose jsondoc starts with "deprecated".
func deprecatedFields(t reflect.Type, prefix string) [][2]string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out [][2]string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			out = append(out, deprecatedFields(f.Type, prefix)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if d := f.Tag.Get("jsondoc"); strings.HasPrefix(d, "deprecated") {
			out = append(out, [2]string{prefix + name, d})
		}
		out = append(out, deprecatedFields(f.Type, prefix+name+".")...)
	}
	return out
}
