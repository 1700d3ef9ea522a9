// Package etf is the Erlang external term format codec the store tools use
// to read and write the values the node keeps: hook envelopes, delivery rows,
// dead-letter values and counters.
//
// Why our own: the values are written by :erlang.term_to_binary on nodes of
// different OTP releases, and the tools must both read every form those
// releases produce and write exactly the bytes the current release would
// (fixtures and migrations are compared byte for byte with what a node
// writes). They must also survive whatever a corrupt store holds: a reader
// for an on-call tool may fail, with the offset, but never panic, allocate
// from a forged length or recurse without bound. No general-purpose library
// offered all three, and the format is small.
//
// What it reads (Decode, DecodePrefix): the version byte 131, then integers
// (97, 98, 110, 111; int64 when the value fits, else *big.Int), floats (70 and
// the old 31-byte text form 99), atoms in all four forms (100 and 115 are
// latin1 and become UTF-8), tuples (104, 105), lists (106, 107 as a List of
// int64, 108 with any tail; list tails are folded so [1|[2]] is [1,2]),
// binaries (109), bit binaries (77), maps (116, in their stored order;
// duplicate keys refused) and a top-level compressed term (80, zlib, declared
// size at most MaxInflated and exact). Pids, references, ports and funs (88,
// 103, 90, 114, 101, 89, 102, 120, 112, 113) are parsed in full and kept
// as Opaque with their raw bytes, because the node accepts them inside
// envelopes and the tools must still find the tenant next to them.
//
// What decodes is what binary_to_term/1 of OTP 25 decodes, to the same term
// (judge_test.go asks erl): non-finite floats, over-long atoms, malformed bit
// binaries, old-style pids, ports and references past their old limits and
// the old fun format (117) and bignums longer than erts holds are refused;
// any non-zero bignum sign is negative;
// bytes after the term inside a compressed payload are ignored by
// DecodePrefix, as binary_to_term ignores bytes after any term.
//
// Limits: no nesting limit, as binary_to_term has none: containers are
// walked with explicit stacks (nesting.go), never Go recursion, by the
// decoder, the encoder, Equal and the hash. A length larger than the
// remaining input fails before anything is allocated (an element needs at
// least one byte), so decoding n bytes allocates O(n) however the lengths lie.
//
// What it writes (Encode, AppendEncode, AppendInt): what term_to_binary of
// OTP 26 and later writes: 97 for 0..255, 98 for the rest of int32, 110 or
// 111 beyond; atoms as 119 (118 when longer than 255 bytes); floats as 70;
// a proper list of 1..65535 integers in 0..255 as 107; maps in the Map's
// order; Opaque values as read. It never compresses. For canonical input
// Encode(Decode(b)) == b, which the tests check against a real Erlang runtime
// (testdata/etf/vectors.erl).
//
// Errors wrap one of the Err* sentinels in a *DecodeError carrying the
// offset. Equal compares terms as Erlang's =:= does (maps as sets); Format
// prints them as io_lib:print would, for humans.
package etf
