package clidoc

import "testing"

// ReflowProse joins a paragraph's lines and wraps them again; a list item hangs under its
// text; laid-out lines (a tab, or spaces outside a list) are kept.
func TestReflowProse(t *testing.T) {
	in := "one two three\nfour five six seven\n\n  - item one is long\n    and goes on\n  - item two\n\n\tsource <(x)\n  ankusa-store a b"
	want := "one two three four\nfive six seven\n\n  - item one is long\n    and goes on\n  - item two\n\n\tsource <(x)\n  ankusa-store a b"
	if got := ReflowProse(in, 20); got != want {
		t.Errorf("ReflowProse:\n%s\nwant:\n%s", got, want)
	}
	if got := WrapExamples("  ankusa-store migrate --backup /backups/store-pre-v3 /var/lib/ankusa/store", 40); got !=
		"  ankusa-store migrate --backup \\\n      /backups/store-pre-v3 \\\n      /var/lib/ankusa/store" {
		t.Errorf("WrapExamples: %q", got)
	}
	if got := WrapExamples("  ankusa-store keys decode '<<88, 0, 0, 0, 1>>' x", 30); got !=
		"  ankusa-store keys decode \\\n      '<<88, 0, 0, 0, 1>>' x" {
		t.Errorf("WrapExamples broke a quoted word: %q", got)
	}
}
