package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// WrapTo fits s to width columns, continuation lines indented by two; a width of 20 or
// less (or 0, unlimited) leaves it whole.
func WrapTo(s string, width int) string {
	if width <= 20 || ansi.StringWidth(s) <= width {
		return s + "\n"
	}
	var b strings.Builder
	for _, para := range strings.Split(s, "\n") {
		for i, l := range wrapWords(para, width-2) {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(strings.TrimRight(l, " ") + "\n")
		}
	}
	return b.String()
}

// wrapWords breaks s into lines of at most width columns at spaces only, so that no
// token is split ("50,000 rows/s", a path, a key); a token wider than a whole line is
// the one thing broken, as it cannot fit otherwise. A command to copy, in backticks
// (`ankusa-store tenants ls STORE`), is one token: on a line of its own when it does not
// fit the current one, and wider than a line, broken only as a shell reads it back
// (shellLines), so that it pastes as it is. Colours are kept and take no room.
func wrapWords(s string, width int) []string {
	if width <= 0 || ansi.StringWidth(s) <= width {
		return []string{s}
	}
	var lines []string
	var cur strings.Builder
	curW, n := 0, 0 // the current line's width and words
	for _, word := range commandTokens(strings.Split(s, " ")) {
		w := ansi.StringWidth(word)
		if n > 0 && curW+1+w > width {
			lines = append(lines, cur.String())
			cur.Reset()
			curW, n = 0, 0
			if word == "" {
				continue // a run of spaces at a break is the break
			}
		}
		if w > width && isCommand(word) {
			// At the start of a line (the break above), and wider than it: the shell's
			// own continuation lines, between its words.
			parts := shellLines(word, width)
			lines = append(lines, parts[:len(parts)-1]...)
			word = parts[len(parts)-1]
			w = ansi.StringWidth(word)
		} else if w > width {
			parts := breakToken(word, width)
			lines = append(lines, parts[:len(parts)-1]...)
			word = parts[len(parts)-1]
			w = ansi.StringWidth(word)
		}
		if n > 0 {
			cur.WriteByte(' ')
			curW++
		}
		cur.WriteString(word)
		curW += w
		n++
	}
	return append(lines, cur.String())
}

// breakToken breaks a token wider than width into lines of at most width: a path only after
// a slash, so that each line holds whole path segments (a directory's name is read, and
// searched for, whole; the slash ending a line says the path goes on), and anywhere only
// within a segment wider than a line by itself, or a token with no slash (a key in hex).
// A path wider than the room cannot be whole on one line in any layout at that width
// (issue 46: status at 60 columns broke a store path inside a segment).
func breakToken(word string, width int) []string {
	if !strings.Contains(word, "/") {
		return strings.Split(ansi.Hardwrap(word, width, true), "\n")
	}
	var lines []string
	line := ""
	for _, seg := range strings.SplitAfter(word, "/") {
		if seg == "" {
			continue
		}
		if line != "" && ansi.StringWidth(line)+ansi.StringWidth(seg) > width {
			lines = append(lines, line)
			line = ""
		}
		if ansi.StringWidth(seg) > width {
			parts := strings.Split(ansi.Hardwrap(seg, width, true), "\n")
			lines = append(lines, parts[:len(parts)-1]...)
			seg = parts[len(parts)-1]
		}
		line += seg
	}
	return append(lines, line)
}

// commandTokens joins the words of each command in backticks into one token: from a word
// that opens a backtick to the next that closes one (a lone backtick stays a word).
func commandTokens(words []string) []string {
	out := words[:0:0]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "`") && strings.Count(w, "`") == 1 {
			for j := i + 1; j < len(words); j++ {
				if strings.Contains(words[j], "`") {
					w, i = strings.Join(words[i:j+1], " "), j
					break
				}
			}
		}
		out = append(out, w)
	}
	return out
}

// shellLines breaks a command wider than width between its words, each broken line ending
// with " \\", so that a shell reads the lines pasted as the one command; a word wider than
// the line is left whole, the one thing wider than the terminal.
func shellLines(cmd string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Split(cmd, " ") {
		switch {
		case line == "":
			line = w
		case ansi.StringWidth(line)+1+ansi.StringWidth(w)+2 > width:
			lines = append(lines, line+" \\")
			line = w
		default:
			line += " " + w
		}
	}
	return append(lines, line)
}

// isCommand reports whether a token is a command in backticks.
func isCommand(token string) bool {
	return strings.HasPrefix(token, "`") && strings.Count(token, "`") >= 2
}

// RecordLine is "name: value", the value wrapped to width with a hanging indent.
func RecordLine(name, value string, nameW, width int) string {
	pad := nameW + 1
	first := name + strings.Repeat(" ", max(1, pad-ansi.StringWidth(name)))
	return Hanging(first, value, pad, width, 11)
}

// Hanging is head then value wrapped at spaces to width, later lines indented to col;
// with less than minRoom columns beside the head (or no width), the value on one line.
func Hanging(head, value string, col, width, minRoom int) string {
	room := width - max(col, ansi.StringWidth(head))
	if width <= 0 || room < minRoom {
		return head + value + "\n"
	}
	lines := wrapWords(value, room)
	var b strings.Builder
	for i, l := range lines {
		if i == 0 {
			b.WriteString(head)
		} else {
			b.WriteString(strings.Repeat(" ", col))
		}
		b.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	return b.String()
}

// TruncateWidth cuts s to n terminal columns, ending in an ellipsis when it cut.
func TruncateWidth(s string, n int) string {
	if ansi.StringWidth(s) <= n {
		return s
	}
	if n <= 1 {
		return ansi.Truncate(s, n, "")
	}
	return ansi.Truncate(s, n, "…")
}

// SGR colours s with the SGR code.
func SGR(code, s string) string { return "\033[" + code + "m" + s + "\033[0m" }
