package rocks

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// grocksdb v1.7.15 exposes no accessor for the C handles behind its types, and
// the hot paths (batched fold, batched multi-get, option teardown) need them.
// Every such type keeps its C handle in an unexported pointer field named "c";
// cPtr reads it. TestCPointerLayout fails loudly if a grocksdb upgrade changes
// that layout, instead of letting us hand a wrong pointer to RocksDB.

// cPtr returns the C handle stored in the unexported field "c" of the struct
// that p points to.
func cPtr(p any) unsafe.Pointer {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic(fmt.Sprintf("rocks: cPtr of %T: not a non-nil pointer", p))
	}
	f := v.Elem().FieldByName("c")
	if !f.IsValid() || f.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("rocks: grocksdb layout changed: %T has no pointer field c", p))
	}
	return *(*unsafe.Pointer)(unsafe.Pointer(f.UnsafeAddr()))
}

func dbPtr(db *grocksdb.DB) unsafe.Pointer                 { return cPtr(db) }
func cfPtr(cf *grocksdb.ColumnFamilyHandle) unsafe.Pointer { return cPtr(cf) }
func optionsPtr(o *grocksdb.Options) unsafe.Pointer        { return cPtr(o) }
func snapshotPtr(s *grocksdb.Snapshot) unsafe.Pointer      { return cPtr(s) }
