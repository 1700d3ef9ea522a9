package migration

import (
	"syscall"
	"unsafe"
)

// offHeap is a growable slice in memory mapped outside the Go heap, for the
// hook table's arrays (block bases, the names' offsets), which live for the
// whole run: on the heap they would raise the garbage collector's goal by as
// much again (GOGC doubles the live heap). T must hold no pointers, and
// nothing may point into the slice once it is freed or grown.
type offHeap[T any] struct {
	mem []byte
	s   []T
}

func (a *offHeap[T]) append(v ...T) {
	if len(a.s)+len(v) > cap(a.s) {
		a.grow(max(2*cap(a.s), len(a.s)+len(v), 1<<12))
	}
	a.s = append(a.s, v...)
}

// grow makes room for n values; if the kernel refuses the mapping, the
// values move to the Go heap instead (slower for the collector, not wrong).
func (a *offHeap[T]) grow(n int) {
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
	a.free()
	a.mem, a.s = mem, s
}

// zeros makes the slice n zero values, its old ones freed: grow's fresh
// mapping is zeroed by the kernel (and its heap fallback by make), so there
// is nothing to write or copy.
func (a *offHeap[T]) zeros(n int) {
	a.free()
	a.grow(n)
	a.s = a.s[:n]
}

// bytes is the memory the slice holds.
func (a *offHeap[T]) bytes() int {
	var zero T
	return cap(a.s) * int(unsafe.Sizeof(zero))
}

// free returns the memory; the slice is empty after it.
func (a *offHeap[T]) free() {
	if a.mem != nil {
		_ = syscall.Munmap(a.mem)
	}
	a.mem, a.s = nil, nil
}
