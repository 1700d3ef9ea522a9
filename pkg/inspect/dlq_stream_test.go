package inspect

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// streamAll is StreamDLQ's rows and page, put together as ScanDLQ's one page.
func streamDLQAll(t *testing.T, st *rocks.Store, opt DLQOptions) *DLQPage {
	t.Helper()
	var head *DLQPage
	var rows []DLQRow
	p, err := StreamDLQ(context.Background(), st, opt, func(h *DLQPage) error {
		if head != nil {
			t.Fatal("begin called twice")
		}
		head = h
		return nil
	}, func(r *DLQRow) error {
		if head == nil {
			t.Fatal("a row before begin")
		}
		rows = append(rows, *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Rows = append([]DLQRow{}, rows...)
	return p
}

// A streamed listing is the page ScanDLQ builds, field for field (rows, cursor,
// keys scanned, notes), whatever the stream's page size: a page boundary
// inside one millisecond, filters that skip keys, a limit longer than the
// stream's pages, a cursor, dead rows with problems, strays.
func TestStreamDLQIsTheScan(t *testing.T) {
	sink := uint16(2)
	for _, f := range []uint32{format.Format3, format.Format2} {
		st, keys, _ := dlqFixture(t, f)
		after := dlqCursorFor(keys[4], "")
		afterAcme := dlqCursorFor(keys[4], "acme")
		opts := []DLQOptions{
			{}, {Tenant: scopeOf(t, st, "acme")}, {Tenant: scopeOf(t, st, format.DefaultTenant)}, {Tenant: scopeOf(t, st, "nobody")},
			{Sink: &sink}, {Limit: 5}, {Limit: 13, Sink: &sink}, {After: &after}, {Tenant: scopeOf(t, st, "acme"), After: &afterAcme, Limit: 4},
			{Since: viewTime(keys[20].At)}, {Until: viewTime(keys[3].At), Since: viewTime(keys[25].At), Limit: 9},
		}
		for _, opt := range opts {
			want, err := ScanDLQ(context.Background(), st, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, page := range []int{1, 2, 3, 7, 1024} {
				t.Run(fmt.Sprintf("format%d/%+v/page=%d", f, opt, page), func(t *testing.T) {
					paged := opt
					paged.sizes.page = page
					got := streamDLQAll(t, st, paged)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("streamed\n%+v\nbuilt\n%+v", got, want)
					}
				})
			}
		}
	}
	// Problems and strays, summed over the pages as the one page says them.
	s := storetest.NewQueue(t, format.Format3)
	for i := 0; i < 9; i++ {
		s.Dead("acme", storetest.QueueMS(time.Duration(-i)*time.Minute), uint64(1+i), 1, 10, "e")
	}
	s.B.Delete(format.CFDeliveries, format.DeliveryKey{Seq: 2, Sink: 1}.Encode())
	s.B.Delete(format.CFDeliveries, format.DeliveryKey{Seq: 7, Sink: 1}.Encode())
	s.B.Put(format.CFIndex, []byte{format.PrefixDead, 1, 2}, []byte("stray"))
	st := s.Open()
	want, err := ScanDLQ(context.Background(), st, DLQOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Notes) != 2 {
		t.Fatalf("the built page's notes %+v: want a problems warning and a strays warning", want.Notes)
	}
	for _, page := range []int{1, 2, 4} {
		if got := streamDLQAll(t, st, DLQOptions{sizes: dlqSizes{page: page}}); !reflect.DeepEqual(got, want) {
			t.Errorf("page=%d: streamed\n%+v\nbuilt\n%+v", page, got, want)
		}
	}
}
