package inspect

import "github.com/ankusa/ankusa-store/pkg/format"

// KeyRef is a key a detail view points at, decoded for people and in hex for
// tools: format.KeyRef, the same shape as the health check's key references.
type KeyRef = format.KeyRef

func keyRef(cf string, key []byte) KeyRef { return format.RefTo(cf, key) }
