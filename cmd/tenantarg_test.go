package cmd

import (
	"slices"
	"testing"
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
		if got := usePositionals(tc.use); !slices.Equal(got, tc.want) {
			t.Errorf("usePositionals(%q) = %q, want %q", tc.use, got, tc.want)
		}
	}
}
