package cmdutil

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// DeprecatedAlias keeps an old flag name working for a release, hidden from help: it
// shares the value of the flag that replaced it, so either spelling sets the same
// option, and using it prints pflag's deprecation line on stderr (cobra would print it
// with the command's output writer, stdout, into the rows): errOut is stderr. One word for one idea
// (--limit for a row count, --after for the next page) is what the old names broke.
func DeprecatedAlias(errOut io.Writer, c *cobra.Command, old, name string) {
	f := c.Flags()
	f.SetOutput(errOut)
	nf := f.Lookup(name)
	if nf == nil {
		panic("DeprecatedAlias: no flag --" + name)
	}
	f.Var(nf.Value, old, nf.Usage)
	f.Lookup(old).DefValue = nf.DefValue
	_ = f.MarkDeprecated(old, fmt.Sprintf("use --%s, the same option under the name every command uses (--%s goes in a later release)", name, old))
}
