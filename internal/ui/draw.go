package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"
)

func (p Printer) drawTable(w io.Writer, r Rows, cells [][]string, lay layout) error {
	color := p.Color
	var headers []string
	var idx []int
	for j, c := range r.Columns {
		if lay.shown[j] {
			headers = append(headers, c.Header)
			idx = append(idx, j)
		}
	}
	data := make([][]string, len(cells))
	for i, row := range cells {
		for _, j := range idx {
			s := row[j]
			if ansi.StringWidth(s) > lay.widths[j] {
				switch {
				case r.Columns[j].Wrap:
					s = strings.Join(wrapWords(s, lay.widths[j]), "\n")
				case j < len(r.Rows[i]) && r.Rows[i][j].Cut != "":
					s = TruncateWidth(SafeLine(r.Rows[i][j].Cut), lay.widths[j])
				default:
					s = TruncateWidth(s, lay.widths[j])
				}
			}
			if color && j < len(r.Rows[i]) && r.Rows[i][j].Color != "" {
				s = SGR(r.Rows[i][j].Color, s)
			}
			data[i] = append(data[i], s)
		}
	}
	border := lipgloss.NormalBorder()
	if p.ASCII {
		border = lipgloss.ASCIIBorder()
	}
	cellStyle := lipgloss.NewStyle().Padding(0, 1)
	headerStyle := cellStyle
	if color {
		headerStyle = headerStyle.Bold(true)
	}
	t := table.New().
		Border(border).
		BorderRow(false).
		Headers(headers...).
		Rows(data...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := cellStyle
			if row == table.HeaderRow {
				s = headerStyle
			}
			if col < len(idx) && r.Columns[idx[col]].Right {
				s = s.Align(lipgloss.Right)
			}
			return s
		})
	out := t.Render()
	if !color {
		// lipgloss picks its colour profile itself; no SGR may leak past NO_COLOR.
		out = ansi.Strip(out)
	}
	_, err := fmt.Fprintln(w, out)
	return err
}

// writeRecords prints each row as a block of "Field: value" lines, values wrapped to the
// terminal (kubectl describe): for rows that cannot fit one line.
func (p Printer) writeRecords(w io.Writer, r Rows, cells [][]string) error {
	color := p.Color
	nameW := 0
	for _, c := range r.Columns {
		nameW = max(nameW, ansi.StringWidth(c.Header)+1)
	}
	var b strings.Builder
	for i, row := range cells {
		if i > 0 {
			b.WriteByte('\n')
		}
		for j, c := range r.Columns {
			if row[j] == "" {
				continue
			}
			v := row[j]
			if color && r.Rows[i][j].Color != "" {
				v = SGR(r.Rows[i][j].Color, v)
			}
			b.WriteString(RecordLine(c.Header+":", v, nameW, p.Width))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
