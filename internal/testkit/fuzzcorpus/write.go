package fuzzcorpus

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Marshal encodes one fuzz input, its arguments in order, as go test's
// corpus files spell them. Only the argument types our targets take.
func Marshal(args ...any) []byte {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			b.WriteString("[]byte(" + strconv.Quote(string(v)) + ")\n")
		case string:
			b.WriteString("string(" + strconv.Quote(v) + ")\n")
		case int64, int8, uint8, uint16, uint32, uint64:
			fmt.Fprintf(&b, "%T(%d)\n", v, v)
		default:
			panic(fmt.Sprintf("fuzzcorpus: argument of type %T", a))
		}
	}
	return []byte(b.String())
}

// Write stores each input under dir/target, named by its content's hash as
// go test names the inputs it finds, so rewriting is idempotent and never
// clobbers a different input. It returns how many files are new.
func Write(dir, target string, inputs [][]byte) (int, error) {
	d := filepath.Join(dir, target)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for _, in := range inputs {
		sum := sha256.Sum256(in)
		p := filepath.Join(d, "seed-"+fmt.Sprintf("%x", sum[:8]))
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.WriteFile(p, in, 0o644); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Missing counts the inputs Write would add to dir/target.
func Missing(dir, target string, inputs [][]byte) (int, error) {
	n := 0
	for _, in := range inputs {
		sum := sha256.Sum256(in)
		_, err := os.Stat(filepath.Join(dir, target, "seed-"+fmt.Sprintf("%x", sum[:8])))
		switch {
		case os.IsNotExist(err):
			n++
		case err != nil:
			return n, err
		}
	}
	return n, nil
}
