package ui

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// JSONSchema is the version every -o json document carries as "schema" unless its type has
// its own schema field (counters verify's report). It changes only when a field is renamed
// or removed or changes meaning; adding a field does not.
const JSONSchema = 1

// WriteJSON writes v indented, with "schema" as its first field, so that a pipeline can
// refuse a document it does not know.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b := buf.Bytes()
	if !HasSchemaField(reflect.TypeOf(v)) && bytes.HasPrefix(b, []byte("{\n")) {
		head := "{\n  \"schema\": " + strconv.Itoa(JSONSchema) + ",\n"
		b = append([]byte(head), b[2:]...)
	}
	_, err := w.Write(b)
	return err
}

// HasSchemaField reports whether t's JSON encoding has a top-level "schema" field.
func HasSchemaField(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "schema" {
			return true
		}
		if f.Anonymous && name == "" && HasSchemaField(f.Type) {
			return true
		}
	}
	return false
}

// WriteJSONLine writes v on one line, as a line of JSON Lines (dlq export's failure).
func WriteJSONLine(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
