package inspect

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// DeadRefs finds a ref by its prefix over the whole dead-letter set, with its tenant, and
// says when its context cut the walk short.
func TestDeadRefs(t *testing.T) {
	for _, f := range []uint32{format.Format3, format.Format2} {
		t.Run(fmt.Sprintf("format%d", f), func(t *testing.T) {
			st, keys, owner := dlqFixture(t, f)
			all := dlqAll(t, st, DLQOptions{})
			oldest := all[len(all)-1]
			rows, complete, err := DeadRefs(context.Background(), st, oldest.Ref, 1)
			if err != nil || !complete || len(rows) != 1 || rows[0].Ref != oldest.Ref || rows[0].Tenant != oldest.Tenant || rows[0].HookID != oldest.HookID {
				t.Fatalf("DeadRefs(%s, 1) = %+v, %v, %v; want %+v", oldest.Ref, rows, complete, err, oldest)
			}
			if owner[format.DeadKey{At: oldest.At, Seq: oldest.Seq, Sink: oldest.Sink}] != rows[0].Tenant {
				t.Errorf("tenant %q", rows[0].Tenant)
			}
			rows, complete, err = DeadRefs(context.Background(), st, "", 0+len(keys)+1)
			if err != nil || !complete || len(rows) != len(keys) {
				t.Errorf("every ref: %d of %d, complete %v, %v", len(rows), len(keys), complete, err)
			}
			for i, r := range rows {
				if r.Ref != all[i].Ref {
					t.Fatalf("row %d is %s, want %s (newest first)", i, r.Ref, all[i].Ref)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if rows, complete, err := DeadRefs(ctx, st, "", 10); err != nil || complete || len(rows) != 0 {
				t.Errorf("a cancelled walk: %d rows, complete %v, %v", len(rows), complete, err)
			}
			rows, _, _ = DeadRefs(context.Background(), st, "1", 1000)
			for _, r := range rows {
				if !strings.HasPrefix(r.Ref, "1") {
					t.Errorf("prefix 1: %s", r.Ref)
				}
			}
		})
	}
}
