package cmd

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/pkg/archive"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A completion from the store is bounded: a read that takes longer than the budget offers
// nothing, in about the budget; a scan stops at completionMax values.
func TestCompletionIsBounded(t *testing.T) {
	store := filepath.Join(t.TempDir(), "s3")
	if err := archive.ExtractArchive("../testdata/store-v3.tar.zst", store); err != nil {
		t.Fatal(err)
	}
	budget, max := completionBudget, completionMax
	t.Cleanup(func() { completionBudget, completionMax = budget, max })

	completionBudget = 200 * time.Millisecond
	start := time.Now()
	got, _ := fromStore(store, func(ctx context.Context, _ *rocks.Store) []cobra.Completion {
		<-ctx.Done()
		time.Sleep(5 * time.Second) // a read that does not look at its context
		return []cobra.Completion{"late"}
	})
	if took := time.Since(start); got != nil || took > 2*time.Second {
		t.Errorf("a slow completion offered %q after %s; want nothing after about %s", got, took, completionBudget)
	}

	completionBudget, completionMax = budget, 3
	got, _ = fromStore(store, func(ctx context.Context, st *rocks.Store) []cobra.Completion {
		return tenantCompletions(ctx, st, "")
	})
	if len(got) != 3 {
		t.Errorf("offered %d tenants with completionMax 3: %q", len(got), got)
	}
	completionMax = max
	got, _ = fromStore(store, func(ctx context.Context, st *rocks.Store) []cobra.Completion {
		return tenantCompletions(ctx, st, "")
	})
	if len(got) != 6 {
		t.Errorf("offered %d tenants of 6: %q", len(got), got)
	}
}
