package cmd

import (
	"bytes"
	"os"
	"testing"
)

// docs/commands.md is generated; this fails when a command changed and it was not regenerated.
func TestCommandsDocIsCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := GenerateCommandsMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../docs/commands.md")
	if err != nil {
		t.Fatalf("%v (run: go generate ./cmd)", err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Fatalf("docs/commands.md is stale: run `go generate ./cmd`")
	}
}

func TestManPagesGenerate(t *testing.T) {
	dir := t.TempDir()
	if err := GenerateManPages(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir + "/ankusa-store.1"); err != nil {
		t.Fatal(err)
	}
}

// Every command that prints JSON documents its schema; a new one that forgets fails here.
func TestJSONCommandsHaveSchemas(t *testing.T) {
	want := []string{
		"ankusa-store counters verify", "ankusa-store dlq scan", "ankusa-store dlq show", "ankusa-store fixture",
		"ankusa-store keys decode", "ankusa-store migrate", "ankusa-store scan", "ankusa-store status",
		"ankusa-store tenants ls", "ankusa-store tenants show", "ankusa-store version",
	}
	got := sortedSchemaPaths()
	if len(got) != len(want) {
		t.Fatalf("schemas for %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("schemas for %v, want %v", got, want)
		}
	}
}
