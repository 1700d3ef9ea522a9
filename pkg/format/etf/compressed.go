package etf

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
)

// decodeCompressed handles 131, 80, Size:32, zlib data. Size is checked
// against MaxInflated before anything is allocated, and the buffer grows
// with what zlib actually produces, so a forged size costs nothing.
//
// As binary_to_term (OTP 25, checked): the stream must inflate to exactly
// Size bytes with a good checksum; bytes after the stream are not used; and
// bytes after the term inside the payload are ignored, returned as trailing
// for Decode, which refuses them.
func decodeCompressed(b []byte) (t Term, used int, trailing, err error) {
	if len(b) < 6 {
		return nil, 0, nil, &DecodeError{Err: ErrTruncated, Off: len(b), Detail: "compressed term header"}
	}
	size := binary.BigEndian.Uint32(b[2:6])
	if size > MaxInflated {
		return nil, 0, nil, &DecodeError{Err: ErrTooLarge, Off: 2, Detail: "declared inflated size " + strconv.FormatUint(uint64(size), 10) + " over " + strconv.Itoa(MaxInflated)}
	}
	src := bytes.NewReader(b[6:])
	zr, err := zlib.NewReader(src)
	if err != nil {
		return nil, 0, nil, &DecodeError{Err: ErrCompressed, Off: 6, Detail: err.Error()}
	}
	out := make([]byte, 0, min(int(size), 64<<10))
	for len(out) < int(size) {
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)] // let append pick the growth
		}
		chunk := out[len(out):min(cap(out), int(size))]
		n, rerr := zr.Read(chunk)
		out = out[:len(out)+n]
		if rerr == io.EOF {
			if len(out) < int(size) {
				return nil, 0, nil, &DecodeError{Err: ErrCompressed, Off: 2, Detail: "inflated to " + strconv.Itoa(len(out)) + " bytes, declared " + strconv.FormatUint(uint64(size), 10)}
			}
			break
		}
		if rerr != nil {
			return nil, 0, nil, zlibError(b, src, rerr)
		}
	}
	// Read to the end of the stream: that checks the Adler-32 and that the
	// payload is not longer than declared.
	var one [1]byte
	n, rerr := io.ReadFull(zr, one[:])
	if n > 0 {
		return nil, 0, nil, &DecodeError{Err: ErrCompressed, Off: 2, Detail: "inflates to more than the declared " + strconv.FormatUint(uint64(size), 10) + " bytes"}
	}
	if rerr != io.EOF {
		return nil, 0, nil, zlibError(b, src, rerr)
	}
	used = len(b) - src.Len()
	d := decoder{b: out, inCompressed: true}
	t, err = d.term()
	if err != nil {
		return nil, 0, nil, err
	}
	if d.off != len(out) {
		trailing = d.fail(ErrTrailing, d.off, "inside compressed term")
	}
	return t, used, trailing, nil
}

func zlibError(b []byte, src *bytes.Reader, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &DecodeError{Err: ErrTruncated, Off: len(b), Detail: "zlib stream ends early"}
	}
	return &DecodeError{Err: ErrCompressed, Off: len(b) - src.Len(), Detail: err.Error()}
}
