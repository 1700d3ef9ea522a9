// Package safetext is the one rule for text that may reach a terminal: a
// tenant id, a last_error, a source id, a store path or an argument echoed in
// an error can hold any bytes, and none of them may drive the operator's
// terminal (an OSC 52 clipboard write, a screen clear, a title change), hide or
// reorder what is shown (a bidi override or isolate), or make a table's width
// differ between terminals (a noncharacter, an unassigned or private-use code
// point).
//
// Such runes are shown escaped, in one visible form: \t, \n and \r for those
// three, \xNN for any other C0 control, DEL and for a byte that is not UTF-8,
// \uXXXX for a code point up to U+FFFF (C1 controls, bidi controls, zero-width
// and other format characters, noncharacters, private use, unassigned, line
// and paragraph separators) and \UXXXXXXXX above it. Text escapes every such
// rune (a table cell, one line); Lines keeps newlines and tabs (prose, an error,
// a body shown verbatim).
//
// Writer does the same at the stream: everything written through it to a
// terminal is escaped except the few control sequences this tool draws itself
// (its colours, and the live progress line's carriage return and erase), and
// in strict mode (TSV and JSON on a terminal) nothing at all. JSON is escaped
// as JSON (\u001b, surrogate pairs), so that it stays valid and means the same.
package safetext
