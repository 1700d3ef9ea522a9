package offheap

import (
	"syscall"
	"unsafe"
)

// Slice is a growable slice off the Go heap. Its values past its length are
// always zero (it never shrinks but by Zeros or Free), so Extend needs no
// clearing. Nothing may point into it across a growth, Zeros or Free: the old
// mapping is unmapped, and a pointer into it would fault, not read stale
// values.
type Slice[T any] struct {
	mem []byte
	s   []T
}

// S is the slice's values.
func (a *Slice[T]) S() []T { return a.s }

// Len is the number of values.
func (a *Slice[T]) Len() int { return len(a.s) }

// Append adds values, growing the mapping (doubling) when it is full.
func (a *Slice[T]) Append(v ...T) {
	if len(a.s)+len(v) > cap(a.s) {
		a.Grow(max(2*cap(a.s), len(a.s)+len(v), 1<<12))
	}
	a.s = append(a.s, v...)
}

// Extend makes the slice at least n values long, growing it (doubling) if
// need be; values it adds are zero. A shorter n changes nothing: shrinking
// would leave values past the length.
func (a *Slice[T]) Extend(n int) {
	if n <= len(a.s) {
		return
	}
	if n > cap(a.s) {
		a.Grow(max(2*cap(a.s), n))
	}
	a.s = a.s[:n]
}

// Grow makes room for n values; if the kernel refuses the mapping, the
// values move to the Go heap instead (slower for the collector, not wrong).
func (a *Slice[T]) Grow(n int) {
	if n <= cap(a.s) {
		return
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	mem, err := syscall.Mmap(-1, 0, n*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	var s []T
	if err != nil {
		mem, s = nil, make([]T, 0, n)
	} else {
		s = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), n)[:0]
	}
	s = append(s, a.s...)
	a.Free()
	a.mem, a.s = mem, s
}

// Zeros makes the slice n zero values, its old ones freed: Grow's fresh
// mapping is zeroed by the kernel (and its heap fallback by make), so there
// is nothing to write or copy.
func (a *Slice[T]) Zeros(n int) {
	a.Free()
	a.Grow(n)
	a.s = a.s[:n]
}

// Bytes is the memory the slice holds.
func (a *Slice[T]) Bytes() int {
	var zero T
	return cap(a.s) * int(unsafe.Sizeof(zero))
}

// Mapped reports whether the values are off the heap (false for an empty
// slice, or when the kernel refused the mapping).
func (a *Slice[T]) Mapped() bool { return a.mem != nil }

// Free returns the memory; the slice is empty after it.
func (a *Slice[T]) Free() {
	if a.mem != nil {
		_ = syscall.Munmap(a.mem)
	}
	a.mem, a.s = nil, nil
}
