package shellcomp

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// QuotedWords adds to the script `completion bash` writes (cobra's) the tool's own
// first step, which completes a word that starts with a quote or a backslash. A tenant by
// its ordinal was first spelled #N, and # starts a comment in bash unless it is hidden
// ('#2, "#2, \#2): cobra's script evals the line up to the word, so an open quote asks for
// nothing, and with several candidates it inserts their common prefix without its
// backslash, which leaves a bare # that makes the rest of the line a comment. The step asks
// for what the word holds, quoted, and hands readline the candidates as they are inside
// the quote (readline closes it), or escaped after a backslash. Every other word goes to
// cobra's script untouched. @N needs none of it. zsh's script (cobra's too) evals the words
// as typed as well: inside an open quote it asks for what the word holds (zshQuotedWords),
// and zsh, which knows the quote is open, inserts and closes it.
func QuotedWords(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		for _, sh := range c.Commands() {
			sh.Long = splitRedirects(sh.Long)
			switch {
			case sh.RunE == nil:
			case sh.Name() == "bash":
				gen := sh.RunE
				sh.RunE = func(c *cobra.Command, args []string) error {
					if err := gen(c, args); err != nil {
						return err
					}
					_, err := io.WriteString(c.Root().OutOrStdout(), bashQuotedStep(c.Root().Name()))
					return err
				}
			case sh.Name() == "zsh":
				sh.RunE = func(c *cobra.Command, args []string) error {
					var b bytes.Buffer
					gen := c.Root().GenZshCompletion
					if noDesc, _ := c.Flags().GetBool("no-descriptions"); noDesc {
						gen = c.Root().GenZshCompletionNoDesc
					}
					if err := gen(&b); err != nil {
						return err
					}
					_, err := io.WriteString(c.Root().OutOrStdout(), zshQuotedWords(zshTabWithoutFork(b.String())))
					return err
				}
			}
		}
	}
}

// splitRedirects breaks the command lines of cobra's completion help ("\tankusa-store
// completion zsh > $(brew --prefix)/share/zsh/site-functions/_ankusa-store", up to 93
// columns) before their redirection, as a shell continuation, so that the help fits 79
// columns as every other help does; the commands stay the same to a shell.
func splitRedirects(long string) string {
	lines := strings.Split(long, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "\t") || len(l)+7 <= 79 {
			continue
		}
		if cmd, to, ok := strings.Cut(l, " > "); ok {
			lines[i] = cmd + " \\\n\t  > " + to
		}
	}
	return strings.Join(lines, "\n")
}

// bashQuotedStep is the shell code of QuotedWords for the program name.
func bashQuotedStep(name string) string {
	return fmt.Sprintf(`
# %[1]s's own step before cobra's: a word that starts with a quote or a backslash ('#2, "#2,
# \#2: bare, # starts a comment) is completed here, the rest by cobra's script.
__%[1]s_start_quoted()
{
    local cur="${COMP_WORDS[COMP_CWORD]}"
    case "$cur" in
    [\'\"\\]?*) ;;
    *) __start_%[1]s "$@"; return ;;
    esac
    local words cword
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref -n =: cur words cword
    else
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
    local lead="${cur:0:1}" word="${cur:1}"
    [[ $lead == \\ ]] || word="${word%%"$lead"}"
    local out line value
    out=$(eval "${words[0]} __complete ${words[*]:1:cword-1} $(printf '%%q' "$word")" 2>/dev/null) || return 0
    COMPREPLY=()
    compopt +o default 2>/dev/null
    while IFS='' read -r line; do
        [[ -z $line || $line == :* || $line == _activeHelp_* ]] && continue
        value="${line%%%%$'\t'*}"
        [[ $value == "$word"* ]] || continue
        [[ $lead == \\ ]] && printf -v value '%%q' "$value"
        COMPREPLY+=("$value")
    done <<<"$out"
}
complete -o default -F __%[1]s_start_quoted %[1]s
`, name)
}

// zshAnchor is the line of cobra's zsh script after which the word being completed is the
// last of $words; zshQuoted is the tool's line after it.
const (
	zshAnchor = "    words=(\"${=words[1,CURRENT]}\")\n"
	zshQuoted = "    # ankusa-store: inside an open quote ('#2, \"#2), ask for what the word holds, quoted for eval\n" +
		"    if [[ -n ${compstate[quote]} ]]; then words[-1]=${(q)PREFIX}; fi\n"
)

// zshQuotedWords adds zshQuoted to cobra's zsh script (the script as it is if cobra's lines
// changed: TestZshCompletesTenantOrdinals then fails).
func zshQuotedWords(script string) string {
	return strings.Replace(script, zshAnchor, zshAnchor+zshQuoted, 1)
}

// zshTabFork is the line of cobra's zsh script, run once for every value offered, that
// takes a tab from a command substitution: a fork of the interactive zsh each time, 10 to
// 15 ms on a busy machine, so 2,000 tenants held the prompt for 30 s (issue 46). ZshTab is
// the same tab without the fork.
const (
	zshTabFork = `local tab="$(printf '\t')"`
	ZshTab     = `local tab=$'\t'`
)

// zshTabWithoutFork puts ZshTab in place of zshTabFork in cobra's zsh script (the script as
// it is if cobra's line changed: TestZshScriptForksNoMorePerValue then fails).
func zshTabWithoutFork(script string) string {
	return strings.Replace(script, zshTabFork, ZshTab, 1)
}
