// Package shellcomp is the completion plumbing the command tree is given: the scripts
// `completion bash` and `completion zsh` write (cobra's) with the tool's own steps added
// for a word that starts with a quote or a backslash, and zsh's TAB without a fork
// (QuotedWords). What a command completes (stores, tenants, refs, families) is cmd's.
package shellcomp
