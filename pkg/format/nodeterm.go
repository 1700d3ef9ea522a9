package format

import "github.com/ankusa/ankusa-store/pkg/format/etf"

// decodeNodeTerm decodes a value the way the node's binary_to_term/1 reads it: bytes after
// the end of the term are ignored (checked against erl: binary_to_term(<<131,97,1,0>>) is 1).
// Refusing them would file under "default" a hook whose tenant the node itself reads.
func decodeNodeTerm(b []byte) (etf.Term, error) {
	t, _, err := etf.DecodePrefix(b)
	return t, err
}
