package etf

// External term format tags (erts/emulator/beam/external.h). Only the ones a
// term_to_binary output can contain; the distribution-only ones (atom cache
// references, local ext) are rejected as ErrBadTag.
const (
	versionByte = 131

	tagNewFloat         = 70
	tagBitBinary        = 77
	tagCompressed       = 80
	tagNewPid           = 88
	tagV4Port           = 89
	tagNewerReference   = 90
	tagSmallInteger     = 97
	tagInteger          = 98
	tagFloat            = 99
	tagAtom             = 100
	tagReference        = 101
	tagPort             = 102
	tagPid              = 103
	tagSmallTuple       = 104
	tagLargeTuple       = 105
	tagNil              = 106
	tagString           = 107
	tagList             = 108
	tagBinary           = 109
	tagSmallBig         = 110
	tagLargeBig         = 111
	tagNewFun           = 112
	tagExport           = 113
	tagNewReference     = 114
	tagSmallAtom        = 115
	tagMap              = 116
	tagFun              = 117
	tagAtomUTF8         = 118
	tagSmallAtomUTF8    = 119
	tagNewPort          = 120
	maxAtomChars        = 255
	maxStringExtLen     = 65535
	oldFloatLen         = 31
	newFunFixedPrefixSz = 4 + 1 + 16 + 4 + 4
)
