package cmdutil

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/pflag"
)

// FlagValueErr rewrites pflag's error for a flag value it could not parse ("invalid argument
// "70000" for "--sink" flag: strconv.ParseUint: parsing "70000": value out of range") as what
// the operator needs: the flag, the value, and the values it takes ("--sink 70000: out of
// range (0 to 65535)"). Other errors are returned as they are.
func FlagValueErr(err error) error {
	// A choice flag's refusal is already in the one shape, the values it takes included.
	var ee *EnumError
	if errors.As(err, &ee) {
		return ee
	}
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.GetFlag() == nil {
		return err
	}
	name, value := "--"+ive.GetFlag().Name, ive.GetValue()
	kind := ive.GetFlag().Value.Type()
	var ne *strconv.NumError
	isNum := errors.As(err, &ne)
	if kind == "bool" {
		return fmt.Errorf("%s=%s: give true or false (or the flag alone for true)", name, value)
	}
	lo, hi, ok := intRange(kind)
	if !ok || !isNum {
		return err
	}
	span := fmt.Sprintf("%s to %s", lo, hi)
	if errors.Is(ne.Err, strconv.ErrRange) {
		return fmt.Errorf("%s %s: out of range (%s)", name, value, span)
	}
	return fmt.Errorf("%s %s: not a whole number (%s)", name, value, span)
}

// intRange is the range of pflag's integer flag types, by Type().
func intRange(kind string) (lo, hi string, ok bool) {
	u := func(bits uint) (string, string, bool) {
		return "0", strconv.FormatUint(math.MaxUint64>>(64-bits), 10), true
	}
	i := func(bits uint) (string, string, bool) {
		hi := int64(math.MaxInt64 >> (64 - bits))
		return strconv.FormatInt(-hi-1, 10), strconv.FormatInt(hi, 10), true
	}
	switch kind {
	case "uint8":
		return u(8)
	case "uint16":
		return u(16)
	case "uint32":
		return u(32)
	case "uint", "uint64":
		return u(64)
	case "int8":
		return i(8)
	case "int16":
		return i(16)
	case "int32":
		return i(32)
	case "int", "int64":
		return i(64)
	}
	return "", "", false
}
