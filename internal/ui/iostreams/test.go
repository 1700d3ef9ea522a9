package iostreams

import "bytes"

// Test is streams for a test, as gh's iostreams.Test: stdin, stdout and stderr are the
// buffers returned beside them (stdin empty until the test writes to it), nothing is a
// terminal, and the environment is the process's. A test that wants a terminal sets the
// fields it needs (OutIsTerminal, OutWidth, Env ...) on the streams returned.
func Test() (s IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return IOStreams{In: in, Out: out, Err: errOut}, in, out, errOut
}
