package rocks

import (
	"fmt"
	"testing"
	"time"
)

// missingFile is the error a read-only open returns when the table file n it listed was gone
// when it opened it.
func missingFile(n int) error {
	msg := fmt.Sprintf("IO error: No such file or directory: While open a file for random read: /var/lib/ankusa/store/%06d.sst: No such file or directory", n)
	return &StatusError{Op: "open", Dir: "/var/lib/ankusa/store", Status: ParseStatus(msg)}
}

// opens plays a read-only open's attempts: the i-th call returns outcomes[i], and every call
// past them succeeds.
type opens struct {
	outcomes []error
	calls    int
	each     time.Duration // how long each attempt takes
}

func (o *opens) open() error {
	time.Sleep(o.each)
	o.calls++
	if o.calls <= len(o.outcomes) {
		return o.outcomes[o.calls-1]
	}
	return nil
}

// files is a vanished file for each n, in turn.
func files(ns ...int) []error {
	var errs []error
	for _, n := range ns {
		errs = append(errs, missingFile(n))
	}
	return errs
}

// upTo is 1, 2, ..., n.
func upTo(n int) []int {
	ns := make([]int, n)
	for i := range ns {
		ns[i] = i + 1
	}
	return ns
}

func noPause(int) {}

func TestRetryVanished(t *testing.T) {
	other := &StatusError{Op: "open", Status: ParseStatus("Corruption: bad block contents")}
	for _, c := range []struct {
		name     string
		outcomes []error
		calls    int
		want     error // nil, or the outcome returned
	}{
		{"opens at once", nil, 1, nil},
		{"another error is not retried", []error{other}, 1, other},
		{"a live writer: another file each time", files(7, 8, 9), 4, nil},
		{"a file missing twice in a row", files(7, 7), 2, missingFile(7)},
		// A damaged store missing two files, which RocksDB's parallel opening names in turn:
		// no listing of a live store names a file again once it was gone.
		{"two files missing, named in turn", files(7, 8, 7), 3, missingFile(7)},
		{"the writer wins every attempt but the last allowed", files(upTo(openRetries - 1)...), openRetries, nil},
		{"the writer wins every attempt allowed", files(upTo(openRetries + 5)...), openRetries, missingFile(openRetries)},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := &opens{outcomes: c.outcomes}
			err := retryVanished(o.open, noPause)
			if o.calls != c.calls {
				t.Errorf("%d attempts, want %d", o.calls, c.calls)
			}
			switch {
			case c.want == nil && err != nil:
				t.Errorf("err %v, want none", err)
			case c.want != nil && (err == nil || err.Error() != c.want.Error()):
				t.Errorf("err %v, want %v", err, c.want)
			}
		})
	}
}

// TestRetryVanishedSlowMachine: the bound is in attempts, not in time. On a machine busy
// enough, each attempt of a read-only open beside a churning writer takes long, and the
// writer still wins some hundreds of them in a row; a bound of 10 s then called a live
// store damaged (internal/faults TestChurn, four opens of 720 with RocksDB compiling
// beside it). Here 450 attempts of 5 ms each, with the pauses between them: 11 s.
func TestRetryVanishedSlowMachine(t *testing.T) {
	o := &opens{outcomes: files(upTo(450)...), each: 5 * time.Millisecond}
	began := time.Now()
	if err := retryVanished(o.open, retryPause); err != nil {
		t.Fatalf("after %d attempts in %v: %v", o.calls, time.Since(began).Round(time.Millisecond), err)
	}
	if o.calls != 451 {
		t.Errorf("%d attempts, want 451", o.calls)
	}
	t.Logf("451 attempts in %v", time.Since(began).Round(time.Millisecond))
}
