package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A long dlq scan (--limit 0) is streamed as it is read; it must print what the
// built page prints, byte for byte, on stdout and on stderr, as JSON and as TSV
// (the pages inside the stream: TestStreamDLQIsTheScan).
func TestDLQScanStreamedIsBuilt(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, store := range []string{"../testdata/store-v3.tar.zst", "../testdata/store-v2.tar.zst"} {
		for _, output := range []string{"json", "tsv"} {
			for _, tenant := range []string{"", "default", "nobody"} {
				t.Run(fmt.Sprintf("%s/%s/%q", store, output, tenant), func(t *testing.T) {
					var sOut, sErr, bOut, bErr bytes.Buffer
					senv := &Env{IO: iostreams.IOStreams{Out: &sOut, Err: &sErr}, Output: output, Now: func() time.Time { return now }}
					benv := &Env{IO: iostreams.IOStreams{Out: &bOut, Err: &bErr}, Output: output, Now: func() time.Time { return now }}
					st, closeStore, err := openStore(store, rocks.Options{Mode: rocks.ReadOnly})
					if err != nil {
						t.Fatal(err)
					}
					defer closeStore()
					var o inspect.DLQOptions
					if tenant != "" {
						a, err := inspect.ParseTenantArg(tenant)
						if err != nil {
							t.Fatal(err)
						}
						o.Tenant, err = inspect.ResolveTenant(context.Background(), st, a)
						if errors.Is(err, format.ErrNoSuchTenant) {
							o.Tenant, err = format.Tenant{ID: tenant}, nil
						}
						if err != nil {
							t.Fatal(err)
						}
					}
					if !inspect.DLQStreamable(o.Limit) {
						t.Fatal("--limit 0 is not streamed")
					}
					if err := streamDLQScan(context.Background(), senv, st, o); err != nil {
						t.Fatal(err)
					}
					page, err := inspect.ScanDLQ(context.Background(), st, o)
					if err != nil {
						t.Fatal(err)
					}
					printViewNotes(benv, page.Notes)
					if err := benv.render(page, func() ui.Rows { return dlqRows(page, now) }); err != nil {
						t.Fatal(err)
					}
					if sOut.String() != bOut.String() || sErr.String() != bErr.String() {
						t.Errorf("streamed\n%s\n%s\nbuilt\n%s\n%s", sOut.String(), sErr.String(), bOut.String(), bErr.String())
					}
					if o.Tenant.IsZero() && bytes.Count(bOut.Bytes(), []byte("\n")) < 10 {
						t.Errorf("too few dead letters to compare:\n%s", bOut.String())
					}
				})
			}
		}
	}
}
