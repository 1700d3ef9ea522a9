package scratch

import "os"

// SpillFile is where data too big to keep in memory goes for a while: an unnamed file in
// the temporary directory (UnnamedFile), made at the first Append, appended to and read
// back by offset. Its first failure, making it or writing to it, is kept and every Append
// after it refused: its callers then keep what they would have written in memory, and say
// the error when they are done (internal/runs' sorted runs, internal/slots' answers). The
// zero SpillFile is not usable: NewSpillFile names it.
type SpillFile struct {
	label string
	f     *os.File
	end   int64
	err   error
}

// NewSpillFile is a spill file named label in errors; nothing is made until it is written.
func NewSpillFile(label string) *SpillFile { return &SpillFile{label: label} }

// Append writes b at the file's end and returns where it lies; ok is false, and nothing
// was kept, when the file could not be made or a write failed, now or before (Err).
func (s *SpillFile) Append(b []byte) (off int64, ok bool) {
	if s.err != nil {
		return 0, false
	}
	if s.f == nil {
		if s.f, s.err = UnnamedFile(os.TempDir(), s.label); s.err != nil {
			return 0, false
		}
	}
	off = s.end
	if _, err := s.f.WriteAt(b, off); err != nil {
		s.err = err
		return 0, false
	}
	s.end += int64(len(b))
	return off, true
}

// Err is the file's first failure: it could not be made, or a write failed. Nil while
// there is none, and before the first Append.
func (s *SpillFile) Err() error { return s.err }

// Size is the bytes appended since it was made or emptied.
func (s *SpillFile) Size() int64 { return s.end }

// ReadAt reads what Append wrote at off (io.ReaderAt).
func (s *SpillFile) ReadAt(p []byte, off int64) (int, error) { return s.f.ReadAt(p, off) }

// Empty gives the file's blocks back to the file system and starts it again at offset 0;
// a file that failed, or that the file system would not cut, keeps what it held (its
// offsets then go on from its end).
func (s *SpillFile) Empty() {
	if s.f != nil && s.err == nil && s.end > 0 {
		if err := s.f.Truncate(0); err == nil {
			s.end = 0
		}
	}
}

// Close removes the file (it has no name: closing frees its blocks).
func (s *SpillFile) Close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}
