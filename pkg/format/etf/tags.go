package etf

// External term format tags (erts/emulator/beam/external.h). Only the ones a
// term_to_binary output can contain; the distribution-only ones (atom cache
// references, local ext) are rejected as ErrBadTag. Exported so that the hot-path
// readers elsewhere (the merge operator, the fold's value fast paths) name the same bytes.
const (
	TagVersion = 131

	TagNewFloat       = 70
	TagBitBinary      = 77
	TagCompressed     = 80
	TagNewPid         = 88
	TagNewPort        = 89 // NEW_PORT_EXT: Node, ID:32, Creation:32
	TagNewerReference = 90
	TagSmallInteger   = 97
	TagInteger        = 98
	TagFloat          = 99
	TagAtom           = 100
	TagReference      = 101
	TagPort           = 102
	TagPid            = 103
	TagSmallTuple     = 104
	TagLargeTuple     = 105
	TagNil            = 106
	TagString         = 107
	TagList           = 108
	TagBinary         = 109
	TagSmallBig       = 110
	TagLargeBig       = 111
	TagNewFun         = 112
	TagExport         = 113
	TagNewReference   = 114
	TagSmallAtom      = 115
	TagMap            = 116
	TagFun            = 117 // FUN_EXT, refused: OTP 23 and later no longer read it
	TagAtomUTF8       = 118
	TagSmallAtomUTF8  = 119
	TagV4Port         = 120 // V4_PORT_EXT: Node, ID:64, Creation:32
)

const (
	// maxBigBytes is the longest bignum erts holds on a 64-bit emulator
	// (BIG_ARITY_MAX, 2^19-1 digits of 8 bytes): binary_to_term refuses a
	// LARGE_BIG_EXT of more bytes, leading zeros or not (checked against erl).
	maxBigBytes         = (1<<19 - 1) * 8
	maxAtomChars        = 255
	maxStringExtLen     = 65535
	oldFloatLen         = 31
	newFunFixedPrefixSz = 4 + 1 + 16 + 4 + 4
)
