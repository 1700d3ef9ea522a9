package cmd

import (
	"slices"
	"testing"
)

func TestSuggestTenants(t *testing.T) {
	ids := []string{"acme", "initech", "zürich-東京-🚀", "default", "globex", "Umbrella", "GLOBEX-Corp"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"acmee", []string{"acme"}},
		{"Acme", []string{"acme"}},
		{"ACME", []string{"acme"}},
		{"acm", []string{"acme"}},
		{"inetech", []string{"initech"}},
		{"umbrella", []string{"Umbrella"}},
		{"globex-corp", []string{"GLOBEX-Corp"}},
		{"zürich-東京-🚁", []string{"zürich-東京-🚀"}},
		{"nobody-at-all", nil},
		{"x", nil},
	} {
		if got := suggestTenants(tc.typed, ids); !slices.Equal(got, tc.want) {
			t.Errorf("suggestTenants(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"acme", "acme", 0}, {"acmee", "acme", 1}, {"acme", "amce", 2},
		{"kitten", "sitting", 3}, {"東京", "東京都", 1}, {"", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestParseOrdinalRef(t *testing.T) {
	for _, tc := range []struct {
		s    string
		ord  uint32
		isOK bool
	}{
		{"#1", 1, true}, {"#4294967294", 4294967294, true}, {"#0", 0, false}, {"#4294967295", 0, false},
		{"#", 0, false}, {"#x", 0, false}, {"1", 0, false}, {"#-1", 0, false},
	} {
		ord, ok := parseOrdinalRef(tc.s)
		if ok != tc.isOK || ord != tc.ord {
			t.Errorf("parseOrdinalRef(%q) = %d, %v; want %d, %v", tc.s, ord, ok, tc.ord, tc.isOK)
		}
	}
}

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
