package inspect

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unsafe"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/sortjoin"
)

// bigRowsStore dead-letters n rows of one tenant whose hooks carry bodies of
// body bytes (text that compresses well, as JSON does), each on its own seq,
// with their delivery rows saying so; flushed to tables, as a node's store
// is, so that the tables' sizes are their compressed ones.
func bigRowsStore(t testing.TB, n, body int, tenant string) *rocks.Store {
	t.Helper()
	s := storetest.NewQueue(t, format.Format3)
	text := bytes.Repeat([]byte(`{"type":"invoice.paid","n":1}`), body/29+1)[:body]
	for i := 0; i < n; i++ {
		seq := s.NextSeq()
		s.Dead(tenant, storetest.QueueMS(0)-uint64(7*i%50), seq, uint16(i%3), uint64(body), "HTTP 500")
		e := format.Envelope{ID: []byte(storetest.HookID(seq)), SourceID: []byte("src-" + tenant), TenantID: []byte(tenant), Body: text}
		s.Raw(format.CFHooks, format.HookKey{Seq: seq}.Encode(), format.EncodeEnvelope(e, false))
	}
	s.Commit()
	st, err := rocks.OpenStore(s.Dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	for _, cf := range st.Families() {
		if err := st.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	return s.Open()
}

// An export of rows far larger than a node's usual reads their hooks in
// groups of about dlqExportReadBytes and hands them on in parts of about
// dlqExportPartBytes (each at most one row over), and writes what an export
// of whole pages writes, by key and through the sorted join.
func TestExportPartsAreBoundedInBytes(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	st := bigRowsStore(t, 40, 32<<10, "acme")
	for _, join := range []ExportJoin{ExportJoinByKey, ExportJoinSorted} {
		want, _ := exportLines(t, st, DLQExportOptions{Join: join})
		var groups, parts [][2]int
		most := 0
		hear := dlqListeners{
			group: func(rows, b int) { groups = append(groups, [2]int{rows, b}) },
			part: func(rows, b int) {
				if rows > 0 {
					parts = append(parts, [2]int{rows, b})
					most = max(most, b/rows)
				}
			},
		}
		got, _ := exportLines(t, st, DLQExportOptions{Join: join, sizes: dlqSizes{readBytes: 100 << 10, partBytes: 200 << 10}, hear: hear})
		if !bytes.Equal(got, want) {
			t.Fatalf("join %d: the export in parts differs from the export in pages", join)
		}
		rows := 0
		for _, g := range groups {
			rows += g[0]
			if g[0] > 1 && g[1] > 100<<10+most {
				t.Errorf("join %d: a group of %d hooks took %d bytes, over %d and a row", join, g[0], g[1], 100<<10)
			}
		}
		for _, p := range parts {
			if p[1] > 200<<10+most {
				t.Errorf("join %d: a part of %d rows took %d bytes, over %d and a row", join, p[0], p[1], 200<<10)
			}
		}
		if rows != 40 || len(parts) < 5 || len(groups) < 10 {
			t.Errorf("join %d: %d rows in %d groups and %d parts: the bounds were not reached", join, rows, len(groups), len(parts))
		}
	}
}

// fillAtRows fills dir's file system once the export's rows pass begins
// (after the join's gather): the third pass's splits then meet a full disk.
type fillAtRows struct {
	t    testing.TB
	dir  string
	free func()
}

func (f *fillAtRows) Add(int64)      {}
func (f *fillAtRows) SetTotal(int64) {}
func (f *fillAtRows) Phase(label string) {
	if label == ExportPhaseRows && f.free == nil {
		f.free = storetest.Fill(f.t, f.dir)
	}
}

// A join whose file system fills up after its gather (a bucket the third
// pass splits cannot be written) reads the rest of the export by key: the
// same lines as an export by key, a note that says why, exit 0, not a store
// error on a healthy store.
func TestExportJoinFallsBackWhenTheDiskFills(t *testing.T) {
	st := bigRowsStore(t, 40, 8<<10, "acme")
	want, _ := exportLines(t, st, DLQExportOptions{Join: ExportJoinByKey})
	dir := storetest.MountTmpfs(t, 4<<20)
	t.Setenv("TMPDIR", dir)
	// Two buckets of 20 hooks, each far over the window: both split in the third pass.
	sz := sortjoin.DefaultSizes()
	sz.BucketsMax, sz.WindowMax = 2, 64<<10
	fill := &fillAtRows{t: t, dir: dir}
	got, sum := exportLines(t, st, DLQExportOptions{Join: ExportJoinSorted, Progress: fill, sizes: dlqSizes{join: sz}})
	if fill.free == nil {
		t.Fatal("the rows pass never began")
	}
	fill.free()
	g, w := bytes.SplitAfter(got, []byte("\n")), bytes.SplitAfter(want, []byte("\n"))
	if len(g) != len(w) || !bytes.Equal(bytes.Join(g[:len(g)-2], nil), bytes.Join(w[:len(w)-2], nil)) {
		t.Fatalf("the export that fell back differs from the export by key:\n%.3000s\nwant\n%.3000s", got, want)
	}
	var note string
	for _, n := range sum.Notes {
		if strings.Contains(n.Text, "by key instead") {
			note = n.Text
		}
	}
	if !sum.Joined || !strings.Contains(note, dir) || !strings.Contains(note, "no space left") {
		t.Errorf("joined %v, notes %+v: want a note that the join ran out of room in %s", sum.Joined, sum.Notes, dir)
	}
}

// The rows of one tenant share one copy of its id: a tenant id of a MiB (a t
// row no node writes, but a store may hold) was a MiB a row, 4,096 of them a
// page.
func TestDLQRowsShareTheirTenant(t *testing.T) {
	tenant := strings.Repeat("t", format.MaxTenantIDLen)
	st := bigRowsStore(t, 30, 10, tenant)
	for _, limit := range []int{0, 20} {
		p, err := ScanDLQ(context.Background(), st, DLQOptions{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Rows) < 20 {
			t.Fatalf("%d rows", len(p.Rows))
		}
		for _, r := range p.Rows {
			if r.Tenant != tenant || unsafe.StringData(r.Tenant) != unsafe.StringData(p.Rows[0].Tenant) {
				t.Fatalf("limit %d: row %s holds its own copy of the tenant id", limit, r.Ref)
			}
		}
	}
}
