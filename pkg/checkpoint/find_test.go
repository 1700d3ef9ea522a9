package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var viewNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// A checkpoint anywhere is found through the store's record, dated and attributed by its
// marker; one found both by name and by the record is listed once; a recorded path that is
// gone is not listed.
func TestFindCheckpointsRecorded(t *testing.T) {
	root := t.TempDir()
	store := filepath.Join(root, "store")
	mkdir := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	put := func(p string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(store)
	elsewhere := filepath.Join(root, "x", "hm1.pre-v3")
	mkdir(elsewhere)
	put(filepath.Join(elsewhere, MigrationMark), Marker{Store: store, StartedAtMS: 1796032800000})
	named := store + ".backup-20261130T093000.000Z"
	mkdir(named)
	repair := filepath.Join(root, "cp")
	mkdir(repair)
	put(filepath.Join(repair, RepairMark), Marker{Store: store, TakenAtMS: 1796032900000})
	unmarked := filepath.Join(root, "plain")
	mkdir(unmarked)
	put(filepath.Join(unmarked, "CURRENT"), "MANIFEST-000001")
	other := filepath.Join(root, "other.pre-v3")
	mkdir(other)
	put(filepath.Join(other, "CURRENT"), "MANIFEST-000001")
	put(filepath.Join(other, MigrationMark), Marker{Store: filepath.Join(root, "another"), StartedAtMS: 1})
	mkdir(filepath.Join(root, "another"))
	var rec []byte
	for _, l := range []RecordLine{
		{Path: elsewhere, TakenBy: "migrate", AtMS: 1},
		{Path: named, TakenBy: "migrate", AtMS: 1796031000000},
		{Path: filepath.Join(root, "gone"), TakenBy: "migrate", AtMS: 1},
		{Path: repair, TakenBy: "counters verify --repair", AtMS: 1},
		// Lines that prove nothing: the root, the store's parent, the store, a directory
		// without a marker, one whose marker names another store.
		{Path: "/", TakenBy: "migrate", AtMS: 1},
		{Path: root, TakenBy: "migrate", AtMS: 1},
		{Path: store, TakenBy: "migrate", AtMS: 1},
		{Path: unmarked, TakenBy: "migrate", AtMS: 1},
		{Path: other, TakenBy: "migrate", AtMS: 1},
	} {
		b, _ := json.Marshal(l)
		rec = append(append(rec, b...), '\n')
	}
	rec = append(rec, "not json\n"...)
	if err := os.WriteFile(filepath.Join(store, RecordFile), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	if ign, whole := IgnoredRecordLines(store); len(ign) != 5 || !whole {
		t.Errorf("ignored %d record lines (whole %v), want 5 (root, parent, store, unmarked, another store's): %q", len(ign), whole, ign)
	}
	got := Find(store, nil, viewNow)
	if len(got) != 3 {
		t.Fatalf("found %d checkpoints, want 3: %+v", len(got), got)
	}
	byPath := map[string]Checkpoint{}
	for _, c := range got {
		byPath[c.Path] = c
	}
	e := byPath[elsewhere]
	if e.Kind != "backup" || e.TakenBy != "migrate" || !e.Marked || e.MarkStore != store || !e.TakenAt.Equal(time.UnixMilli(1796032800000)) {
		t.Errorf("the --backup elsewhere: %+v", e)
	}
	if r := byPath[repair]; r.Kind != "pre-repair" || r.TakenBy != "counters verify --repair" || !r.TakenAt.Equal(time.UnixMilli(1796032900000)) {
		t.Errorf("the repair's checkpoint: %+v", r)
	}
	if n := byPath[named]; n.Kind != "backup" || n.Marked || !n.TakenAt.Equal(time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)) {
		t.Errorf("the checkpoint by name: %+v", n)
	}
}

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		path, store, kind string
		ok                bool
	}{
		{"/v/store.backup-20261130T100000.000Z", "/v/store", "backup", true},
		{"/v/store.pre-repair-20261130T100000Z", "/v/store", "pre-repair", true},
		{"/v/store.pre-repair-20261130T100000Z-3", "/v/store", "pre-repair", true},
		{"/v/store.backup-garbage", "", "", false},
		{"/v/store.pre-v3", "", "", false},
		{"/v/.backup-20261130T100000.000Z", "", "", false},
	} {
		store, kind, ok := ParseName(tc.path)
		if store != tc.store || kind != tc.kind || ok != tc.ok {
			t.Errorf("ParseName(%s) = %q, %q, %v; want %q, %q, %v", tc.path, store, kind, ok, tc.store, tc.kind, tc.ok)
		}
	}
}

// Checkpoints are found by the name rules, with the time in their name and
// the bytes they share with the store through hard links.
func TestFind(t *testing.T) {
	root := t.TempDir()
	store := filepath.Join(root, "store")
	write := func(p string, n int) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(store, "000010.sst"), 1000)
	backup := filepath.Join(root, "store.backup-20261130T093000.000Z")
	write(filepath.Join(backup, "OPTIONS-1"), 7)
	if err := os.Link(filepath.Join(store, "000010.sst"), filepath.Join(backup, "000010.sst")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "store.pre-repair-20261130T094500Z", "CURRENT"), 16)
	write(filepath.Join(root, "store.backup-garbage", "CURRENT"), 16)
	write(filepath.Join(root, "other.backup-20261130T093000.000Z", "CURRENT"), 16)
	write(filepath.Join(root, "store.backup-20261130T093000.000Z.txt"), 1) // a file, not a checkpoint
	got := Find(store, nil, viewNow)
	want := []string{"store.backup-garbage", "store.backup-20261130T093000.000Z", "store.pre-repair-20261130T094500Z"}
	if len(got) != len(want) {
		t.Fatalf("found %+v, want %v", got, want)
	}
	byName := map[string]Checkpoint{}
	for _, c := range got {
		byName[filepath.Base(c.Path)] = c
	}
	b := byName["store.backup-20261130T093000.000Z"]
	if b.Kind != "backup" || b.Bytes != 1007 || b.SharedBytes != 1000 || b.Files != 2 ||
		!b.TakenAt.Equal(time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)) || b.AgeMS != viewNow.Sub(b.TakenAt).Milliseconds() {
		t.Errorf("backup %+v", b)
	}
	if r := byName["store.pre-repair-20261130T094500Z"]; r.Kind != "pre-repair" || r.SharedBytes != 0 || r.TakenAt.Minute() != 45 {
		t.Errorf("pre-repair %+v", r)
	}
	// A name without a time still counts, dated by its directory.
	if g, ok := byName["store.backup-garbage"]; !ok || g.TakenAt.IsZero() {
		t.Errorf("garbage-named checkpoint %+v", g)
	}
}

// A record grown to any size (planted: it is a plain file in the store's directory) is
// read a line at a time and only so far: a line too long to be one of ours is skipped
// without being held, each path is looked at once, and past MaxRecordLines lines the rest
// is not read, which IgnoredRecordLines says and ReadRecordWhole tells a writer.
func TestCheckpointRecordBounded(t *testing.T) {
	root := t.TempDir()
	store := filepath.Join(root, "store")
	cp := store + ".backup-20261130T093000.000Z"
	late := filepath.Join(root, "late")
	for _, d := range []string{store, cp, late} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mark, _ := json.Marshal(Marker{Store: store, StartedAtMS: 1})
	if err := os.WriteFile(filepath.Join(late, MigrationMark), mark, 0o644); err != nil {
		t.Fatal(err)
	}
	line := func(p string) []byte {
		b, _ := json.Marshal(RecordLine{Path: p, TakenBy: "migrate", AtMS: 1})
		return append(b, '\n')
	}
	var rec bytes.Buffer
	rec.WriteString(`{"path": "` + strings.Repeat("x", 3*maxRecordLineBytes) + `"}` + "\n") // too long: skipped
	rec.Write(line(cp))
	for i := 0; i < 100; i++ {
		rec.Write(line(cp)) // the same path again: looked at once
	}
	for i := 0; i < MaxRecordLines; i++ {
		rec.Write(line(filepath.Join(root, fmt.Sprintf("gone-%d", i))))
	}
	rec.Write(line(late)) // past the lines read
	if err := os.WriteFile(filepath.Join(store, RecordFile), rec.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, whole := ReadRecordWhole(store)
	if whole || len(lines) != MaxRecordLines-101 || lines[0].Path != cp {
		t.Errorf("read %d lines (whole %v), want %d, the first %s: %+v", len(lines), whole, MaxRecordLines-101, cp, lines[:1])
	}
	if _, whole := IgnoredRecordLines(store); whole {
		t.Error("IgnoredRecordLines says the record was read whole")
	}
	got := Find(store, nil, viewNow)
	if len(got) != 1 || got[0].Path != cp {
		t.Errorf("found %+v, want only %s", got, cp)
	}
}
