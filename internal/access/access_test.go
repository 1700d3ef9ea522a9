package access

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The cases where the user really lacks the permission need another user than the suite's
// root: internal/faults TestPermissionDenied. Here, what Check keeps and what it says.
func TestCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "CURRENT")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if Check(nil, p, false) != nil {
		t.Fatal("nil is not nil")
	}
	other := &fs.PathError{Op: "open", Path: p, Err: syscall.ENOENT}
	if got := Check(other, p, false); got != error(other) {
		t.Fatalf("an error that is not about permission changed: %v", got)
	}
	denied := &fs.PathError{Op: "open", Path: p, Err: syscall.EACCES}
	err := Check(denied, p, true)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrDenied) || !errors.Is(err, fs.ErrPermission) || !errors.Is(err, syscall.EACCES) {
		t.Fatalf("Check(EACCES) = %#v", err)
	}
	msg := err.Error()
	for _, want := range []string{"permission denied: this user (", "uid ", ") cannot write " + p + " (-rw-------, owner ", "; run the command as "} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if Check(err, "/elsewhere", false) != err {
		t.Error("a checked error was checked again")
	}
	if err := Check(&fs.PathError{Op: "open", Path: p, Err: syscall.EPERM}, p, false); !errors.Is(err, ErrDenied) {
		t.Errorf("EPERM: %v", err)
	}
}
