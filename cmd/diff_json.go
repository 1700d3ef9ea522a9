package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/storediff"
)

// diffJSONStream writes `diff -o json` as the keys are found: the document is
// storediff.Result's (schema 1, the same members), but each family's keys
// come before its counts and the families before the totals, which are known
// only at the end. Kept whole, 460k differing keys cost 4.3 GB; streamed, a
// chunk of each store and one key (TestDiffJSONStreamIsTheResult holds the
// two documents equal; bench/diff_memory.sh bounds the memory).
func diffJSONStream(ctx context.Context, env *Env, opts *diffOptions, a, b *rocks.Store) (*storediff.Result, error) {
	j := newDiffJSON(env.IO.Out)
	res, err := diffPass(ctx, env, opts, a, b, storediff.Options{Limit: opts.limit, Key: j.key, Run: j.run})
	if err != nil {
		// Nothing reached stdout yet: the error document is the whole output.
		j.drop()
		return nil, err
	}
	printViewNotes(env, res.Notes)
	return res, j.tail(res)
}

// diffJSON is the streamed document, indented as ui.WriteJSON indents it.
type diffJSON struct {
	bw   *bufio.Writer
	b    []byte
	enc  *json.Encoder
	buf  bytes.Buffer
	runs int // families written or open
	open bool
	keys int // keys of the open family
}

func newDiffJSON(w io.Writer) *diffJSON {
	j := &diffJSON{bw: bufio.NewWriterSize(w, 256<<10)}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	j.b = append(j.b, "{\n  \"schema\": "+strconv.Itoa(ui.JSONSchema)+",\n  \"families\": ["...)
	return j
}

// openFamily starts a family's object, up to its keys.
func (j *diffJSON) openFamily(run *storediff.Family) {
	if j.runs > 0 {
		j.b = append(j.b, ',')
	}
	j.runs++
	j.open, j.keys = true, 0
	j.b = append(j.b, "\n    {\n      \"cf\": "...)
	j.b = ui.AppendJSONString(j.b, run.CF)
	j.b = append(j.b, ",\n      \"family\": "...)
	j.b = ui.AppendJSONString(j.b, run.Family)
	j.b = append(j.b, ",\n      \"keys\": ["...)
}

// key writes one key, opening its family's object at its first.
func (j *diffJSON) key(run *storediff.Family, k *storediff.Key) error {
	if !j.open {
		j.openFamily(run)
	}
	if j.keys > 0 {
		j.b = append(j.b, ',')
	}
	j.keys++
	j.buf.Reset()
	j.enc.SetIndent("        ", "  ")
	if err := j.enc.Encode(k); err != nil {
		return err
	}
	j.b = append(j.b, "\n        "...)
	j.b = append(j.b, bytes.TrimSuffix(j.buf.Bytes(), []byte("\n"))...)
	return j.spill()
}

// run closes a family's object with its counts; a family none of whose keys
// was kept (--limit) is opened here.
func (j *diffJSON) run(run *storediff.Family) error {
	if !j.open {
		j.openFamily(run)
	}
	if j.keys == 0 {
		j.b = append(j.b, ']')
	} else {
		j.b = append(j.b, "\n      ]"...)
	}
	for _, c := range []struct {
		name string
		n    int64
	}{{"only_in_a", run.OnlyA}, {"only_in_b", run.OnlyB}, {"changed", run.Changed}, {"unreadable", run.Unreadable}, {"omitted", run.Omitted}} {
		j.b = append(j.b, ",\n      \""+c.name+"\": "...)
		j.b = strconv.AppendInt(j.b, c.n, 10)
	}
	j.b = append(j.b, "\n    }"...)
	j.open = false
	return j.spill()
}

// spill hands what is written to the buffered writer now and then.
func (j *diffJSON) spill() error {
	if len(j.b) < 128<<10 {
		return nil
	}
	if _, err := j.bw.Write(j.b); err != nil {
		return err
	}
	j.b = j.b[:0]
	return nil
}

// drop forgets what was not yet written, so that an error before any byte
// reached stdout leaves Execute's error document the only output.
func (j *diffJSON) drop() {
	j.b = j.b[:0]
	j.bw.Reset(io.Discard)
}

// tail ends the families and writes the totals (small: encoding/json writes
// them, spliced in).
func (j *diffJSON) tail(res *storediff.Result) error {
	if j.runs == 0 {
		j.b = append(j.b, ']')
	} else {
		j.b = append(j.b, "\n  ]"...)
	}
	tail := struct {
		A          storediff.Side     `json:"a"`
		B          storediff.Side     `json:"b"`
		Equal      bool               `json:"equal"`
		OnlyA      int64              `json:"only_in_a"`
		OnlyB      int64              `json:"only_in_b"`
		Changed    int64              `json:"changed"`
		Unreadable int64              `json:"unreadable"`
		Notes      []inspect.ViewNote `json:"notes"`
	}{res.A, res.B, res.Equal, res.OnlyA, res.OnlyB, res.Changed, res.Unreadable, res.Notes}
	j.buf.Reset()
	j.enc.SetIndent("", "  ")
	if err := j.enc.Encode(tail); err != nil {
		return err
	}
	j.b = append(j.b, ',')
	j.b = append(j.b, j.buf.Bytes()[1:]...) // drop "{"
	if _, err := j.bw.Write(j.b); err != nil {
		return err
	}
	return j.bw.Flush()
}
