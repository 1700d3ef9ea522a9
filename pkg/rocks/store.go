package rocks

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ankusa/ankusa-store/internal/words"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// Store is an open store that passed the format guard.
type Store struct {
	*DB
	Dir       string
	Format    uint32
	Migrating bool // m:migrating:3 is present: neither format 2 nor 3 until it finishes
}

// OpenStore opens the store in dir behind the format guard:
//   - a missing directory, a directory that is not RocksDB's, or one with no
//     m:format in its default family: ErrNotStore (nothing is created);
//   - m:format above format.NewestFormat: ErrNewerFormat, worded like the
//     node's {:store_format_newer, 4, 3};
//   - a column family this tool does not know: ErrUnknownFamily, named;
//   - ReadWrite while the node holds the store: ErrLocked.
//
// With o.Create it makes a new store with the families of o.CreateFormat and
// writes its m:format (synced); everything else (sentinels, m:next_ord) is the
// caller's.
func OpenStore(dir string, o Options) (*Store, error) {
	if o.Create {
		return createStore(dir, o)
	}
	names, err := ListFamilies(dir)
	if err != nil {
		return nil, err
	}
	var unknown []string
	for _, n := range names {
		if !slices.Contains(format.FamiliesV3, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return nil, unknownFamilies(dir, unknown)
	}

	db, err := Open(dir, o)
	if err != nil {
		return nil, err
	}
	st, err := guard(db)
	if err != nil {
		db.Close()
		return nil, err
	}
	return st, nil
}

// unknownFamilies refuses a store with families this tool does not know. It
// peeks at m:format read-only (which writes nothing, and never opens the
// unknown families for writing, where a recovery flush could meet merge
// operands of an operator we do not have) to say "newer format" when it is.
func unknownFamilies(dir string, unknown []string) error {
	refuse := fmt.Errorf("%w: %s has column famil%s %s, unknown to this tool (a newer format?); refusing it",
		ErrUnknownFamily, dir, words.Plural(len(unknown), "y", "ies"), strings.Join(unknown, ", "))
	db, err := Open(dir, Options{Mode: ReadOnly})
	if err != nil {
		return refuse
	}
	defer db.Close()
	if _, err := guard(db); errors.Is(err, ErrNewerFormat) {
		return fmt.Errorf("%w (and %w)", err, refuse)
	}
	return refuse
}

// guard reads the metadata of an open store and checks its format.
func guard(db *DB) (*Store, error) {
	v, ok, err := db.Get(format.CFDefault, []byte(format.KeyFormat))
	if err != nil {
		return nil, fmt.Errorf("%s: reading %s: %w", db.dir, format.KeyFormat, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s has no %s key", ErrNotStore, db.dir, format.KeyFormat)
	}
	f, err := format.DecodeU32(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s is %x, not a 32-bit format: %v", ErrCorrupt, db.dir, format.KeyFormat, v, err)
	}
	if f > format.NewestFormat {
		return nil, fmt.Errorf("%w: %s: {:store_format_newer, %d, %d}: the store is format %d, this tool knows up to %d",
			ErrNewerFormat, db.dir, f, format.NewestFormat, f, format.NewestFormat)
	}
	if f < format.Format2 {
		return nil, fmt.Errorf("%w: %s: format %d is older than any this tool reads", ErrNotStore, db.dir, f)
	}
	_, mig, err := db.Get(format.CFDefault, []byte(format.KeyMigrating3))
	if err != nil {
		return nil, fmt.Errorf("%s: reading %s: %w", db.dir, format.KeyMigrating3, err)
	}
	return &Store{DB: db, Dir: db.dir, Format: f, Migrating: mig}, nil
}

func createStore(dir string, o Options) (*Store, error) {
	f := o.CreateFormat
	if f == 0 {
		f = format.NewestFormat
		o.CreateFormat = f
	}
	db, err := Open(dir, o)
	if err != nil {
		return nil, err
	}
	b := NewBatch()
	b.Put(format.CFDefault, []byte(format.KeyFormat), format.EncodeU32(f))
	if err := db.Write(b, true); err != nil {
		db.Close()
		return nil, err
	}
	return &Store{DB: db, Dir: dir, Format: f}, nil
}
