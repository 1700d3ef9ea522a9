package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// streamDLQScan writes a long listing (--limit 0, or a page longer than the
// stream's) as it is read, in JSON or TSV, the same bytes as a built page
// (TestDLQScanStreamedIsBuilt): at 10^6 dead rows the page built whole and
// then encoded whole was 1.7 GB. A table needs every row to size its columns,
// so it is built. The notes are known at the end, and said then.
func streamDLQScan(ctx context.Context, env *Env, st *rocks.Store, o inspect.DLQOptions) error {
	now := env.Now()
	var (
		begin func(*inspect.DLQPage) error
		each  func(*inspect.DLQRow) error
		end   func(*inspect.DLQPage) error
	)
	rows := 0
	if env.JSON() {
		j := &dlqJSON{bw: bufio.NewWriterSize(env.IO.Out, 256<<10)}
		begin, each, end = j.head, j.row, j.tail
	} else {
		t := ui.NewTSVStream(env.IO.Out, dlqColumns(), !env.NoHeaders)
		begin = func(*inspect.DLQPage) error { return nil }
		each = func(r *inspect.DLQRow) error { rows++; return t.Row(dlqCells(r, now)) }
		end = func(*inspect.DLQPage) error { return t.Flush() }
	}
	p, err := inspect.StreamDLQ(ctx, st, o, begin, each)
	if err != nil {
		return err
	}
	printViewNotes(env, p.Notes)
	if err := end(p); err != nil {
		return err
	}
	if !env.JSON() {
		if rows == 0 {
			env.note("no dead letters match")
		}
		if p.NextCursor != "" {
			fmt.Fprintln(env.IO.Err, ui.SafeLines(dlqNext(p.NextCursor)))
		}
	}
	return nil
}

// dlqJSON writes a page's JSON as ui.WriteJSON writes a built one: its head, its
// rows one at a time, its tail.
type dlqJSON struct {
	bw   *bufio.Writer
	rows int
	buf  bytes.Buffer
	enc  *json.Encoder
}

func (j *dlqJSON) head(p *inspect.DLQPage) error {
	head := struct {
		Schema int     `json:"schema"`
		Format uint32  `json:"format"`
		Tenant *string `json:"tenant"`
		Ord    *uint32 `json:"ord,omitempty"`
	}{ui.JSONSchema, p.Format, p.Tenant, p.Ord}
	b, err := jsonIndented(head, "")
	if err != nil {
		return err
	}
	b = bytes.TrimSuffix(b, []byte("\n}\n")) // drop "\n}\n"
	_, err = j.bw.Write(append(b, ",\n  \"rows\": ["...))
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetIndent("    ", "  ")
	j.enc.SetEscapeHTML(false)
	return err
}

func (j *dlqJSON) row(r *inspect.DLQRow) error {
	j.buf.Reset()
	if j.rows > 0 {
		j.buf.WriteByte(',')
	}
	j.rows++
	j.buf.WriteString("\n    ")
	if err := j.enc.Encode(r); err != nil {
		return err
	}
	_, err := j.bw.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
	return err
}

func (j *dlqJSON) tail(p *inspect.DLQPage) error {
	if j.rows == 0 {
		j.bw.WriteString("],")
	} else {
		j.bw.WriteString("\n  ],")
	}
	tail := struct {
		NextCursor string             `json:"next_cursor"`
		Scanned    int64              `json:"scanned"`
		Notes      []inspect.ViewNote `json:"notes"`
	}{p.NextCursor, p.Scanned, p.Notes}
	b, err := jsonIndented(tail, "")
	if err != nil {
		return err
	}
	j.bw.Write(b[1:]) // drop "{"
	return j.bw.Flush()
}

// jsonIndented is v as ui.WriteJSON indents it, without its schema field.
func jsonIndented(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
