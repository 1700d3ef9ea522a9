package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/storetest"
)

// Every line dlq export writes is one JSON object with every field of its documented
// schema (dlqExportLine, generated into docs/commands.md), and the lines are the rows
// dlq scan lists, in its order.
func TestDLQExportJSONLines(t *testing.T) {
	store := storetest.Extract(t, "store-v3.tar.zst")
	run := func(args ...string) []byte {
		t.Helper()
		var out, errb bytes.Buffer
		io := IOStreams{In: strings.NewReader(""), Out: &out, Err: &errb}
		if code := Execute(context.Background(), io, BuildInfo{Version: "test", Commit: "none"}, args); code != 0 {
			t.Fatalf("%q exited %d: %s", args, code, errb.String())
		}
		return out.Bytes()
	}
	var page struct {
		Rows []struct {
			Ref string `json:"ref"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(run("dlq", "scan", "--limit", "0", "-o", "json", store), &page); err != nil {
		t.Fatal(err)
	}
	zero, err := json.Marshal(dlqExportLine{})
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(zero, &schema); err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(maps.Keys(schema))
	sc := bufio.NewScanner(bytes.NewReader(run("dlq", "export", store)))
	sc.Buffer(nil, 1<<20)
	n := 0
	for ; sc.Scan(); n++ {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", n+1, err, sc.Bytes())
		}
		if got := slices.Sorted(maps.Keys(line)); !slices.Equal(got, want) {
			t.Fatalf("line %d has fields %q, the schema %q", n+1, got, want)
		}
		if line["schema"] != float64(JSONSchema) {
			t.Errorf("line %d: schema %v", n+1, line["schema"])
		}
		if n < len(page.Rows) && line["ref"] != page.Rows[n].Ref {
			t.Errorf("line %d is %v, dlq scan's row %d is %s", n+1, line["ref"], n+1, page.Rows[n].Ref)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(page.Rows) || n == 0 {
		t.Errorf("%d lines, dlq scan lists %d rows", n, len(page.Rows))
	}
}
