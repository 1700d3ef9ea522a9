package cmd

import (
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/internal/cmdutil"
)

func TestUsePositionals(t *testing.T) {
	for _, tc := range []struct {
		use  string
		want []string
	}{
		{"status [flags] STORE", []string{"STORE"}},
		{"show [flags] TENANT STORE", []string{"TENANT", "STORE"}},
		{"show [flags] SEQ[:SINK] STORE", []string{"SEQ[:SINK]", "STORE"}},
		{"rm [flags] PATH...", []string{"PATH"}},
		{"rawread --families F[,F...] STORE", []string{"STORE"}},
	} {
		if got := cmdutil.Positionals(tc.use); !slices.Equal(got, tc.want) {
			t.Errorf("cmdutil.Positionals(%q) = %q, want %q", tc.use, got, tc.want)
		}
	}
}
