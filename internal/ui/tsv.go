package ui

import (
	"bufio"
	"io"
	"strings"
)

// WriteTSV writes rows as TSV, with a header line if headers.
func WriteTSV(w io.Writer, r Rows, headers bool) error {
	t := NewTSVStream(w, r.Columns, headers)
	for _, row := range r.Rows {
		if err := t.Row(row); err != nil {
			return err
		}
	}
	return t.Flush()
}

// TSVStream writes TSV a row at a time, for a listing written as it is read
// (tenants ls of 10^6 tenants) as well as for built Rows. Table-only columns
// are left out.
type TSVStream struct {
	w    *bufio.Writer
	cols []Column
}

// NewTSVStream starts a TSV listing of cols on w, with its header line if headers.
func NewTSVStream(w io.Writer, cols []Column, headers bool) *TSVStream {
	t := &TSVStream{w: bufio.NewWriterSize(w, 64<<10), cols: cols}
	if headers {
		first := true
		for _, c := range cols {
			if c.TableOnly {
				continue
			}
			if !first {
				t.w.WriteByte('\t')
			}
			first = false
			t.w.WriteString(c.tsvName())
		}
		t.w.WriteByte('\n')
	}
	return t
}

// Row writes one row.
func (t *TSVStream) Row(cells []Cell) error {
	first := true
	for i, c := range cells {
		if i < len(t.cols) && t.cols[i].TableOnly {
			continue
		}
		if !first {
			t.w.WriteByte('\t')
		}
		first = false
		t.w.WriteString(TSVEscape(c.Plain))
	}
	// bufio keeps its first write error and returns it from every later call.
	_, err := t.w.WriteString("\n")
	return err
}

// Flush writes what the stream holds.
func (t *TSVStream) Flush() error { return t.w.Flush() }

// TSVEscape keeps one record per line whatever a tenant id or error text holds.
func TSVEscape(s string) string {
	if !strings.ContainsAny(s, "\t\n\r\\") {
		return s
	}
	r := strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)
	return r.Replace(s)
}
