// Package format is the byte layout of an Ankusa store, formats 2 and 3, as
// the store contract pins it (docs/format.md states all of it): typed key
// codecs for every key family, the family descriptors with their lo/hi
// sentinels, the fixed-width and ETF values, the hook envelope's tenant rules,
// the delivery row, the counter merge operands and the per-batch counter
// coalescer.
//
// It is pure Go and knows nothing of RocksDB, so that the migration, the fixture
// builder, the verifier and the on-call views all agree on the bytes by
// construction, and so that every codec can be fuzzed and property-tested
// without a store.
//
// Decoders are strict: a key of the wrong length, prefix or range is an error
// naming what was expected, because a "stray" key is a finding the tools must
// report rather than silently misread. Encoders never panic on bad input: the
// Encode/Append forms write whatever they are given (tests need out-of-range
// keys), EncodeChecked refuses keys a decoder would refuse.
package format
