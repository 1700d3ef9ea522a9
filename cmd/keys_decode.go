package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ankusa/ankusa-store/internal/clidoc"
	"github.com/ankusa/ankusa-store/internal/cmdutil"
	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui"
	"github.com/ankusa/ankusa-store/pkg/inspect"
)

func init() { clidoc.RegisterSchema("ankusa-store keys decode", inspect.KeyReport{}) }

type keysDecodeOptions struct {
	cf    string
	value string
	key   string
	store string
}

func newKeysDecodeCmd(env *Env) *cobra.Command {
	opts := &keysDecodeOptions{}
	c := &cobra.Command{
		Use:   "decode [flags] HEX [STORE]",
		Short: "Decode a key (and optionally its value) of any column family",
		Long: `decode prints what a store key means: its column family and key family, its fields
(ordinal, time, seq, sink, tenant, counter field, ...) and whether it is a sentinel.

HEX is the key in hex, with or without 0x, or as an Elixir node logs a binary,
<<88, 0, 0, 0, 1, ...>> (decimal bytes; quote it for the shell, line breaks and all);
spaces are ignored, so a key copied from a dump (ldb, sst_dump, an error message, a
log) can be pasted as it is. A dead letter's key (dead, dead_by_tenant) shows its Ref,
SEQ:SINK, which dlq show takes. Without
--cf the column family is guessed from the key's shape (index and tenants keys by
their prefix byte, counters, hooks and deliveries keys by their length), and the
output says that it guessed and which other families the key would also fit.
--value decodes a value in hex as the one stored under the key.

STORE (the last argument, when it is not hex and names a path; or --store STORE, or
$ANKUSA_STORE) names the tenant behind the key's ordinal from the store's t row (the
store is opened read-only); without one nothing is read. A format 2 store has no tenant
names: the key is decoded all the same, and the tenant field says so.

Exit status 1 when the key does not decode (a stray key); 2 when HEX is not hex.`,
		Example: `  ankusa-store keys decode 0x44000000010000019ad434790000000000000000070001
  ankusa-store keys decode --cf counters 00000000 05
  ankusa-store keys decode 74 00000003 --value 61636d65 -o json
  ankusa-store keys decode 44000000010000019ad434790000000000000000070001 store-v3.tar.zst
  ankusa-store keys decode '<<88,0,0,0,1,0,0,1,162,43,226,189,116,0,0,0,0,0,0,0,1,0,2>>'`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitcode.Usagef("%s takes a key in hex or as an Elixir binary, <<88, 0, ...>> (see '%s --help')", c.CommandPath(), c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			// A key pasted with spaces and not quoted arrives as several
			// arguments: it is still one key.
			opts.key = strings.Join(args, "")
			return runKeysDecode(env, opts)
		},
	}
	f := c.Flags()
	cmdutil.EnumFlag(c, f, &opts.cf, cmdutil.Enum{Name: "cf", Noun: "column family", Choices: cmdutil.Values(inspect.KeyColumnFamilies...), Usage: "column family of the key: %s (default: guess)"})
	f.StringVar(&opts.value, "value", "", "a value in hex to decode as the key's")
	optionalStoreArg(c, &opts.store, func(s string) bool { _, err := inspect.ParseKeyHex(s); return err == nil })
	c.ValidArgsFunction = cobra.NoFileCompletions
	return c
}

func runKeysDecode(env *Env, opts *keysDecodeOptions) error {
	key, err := inspect.ParseKeyHex(opts.key)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	var value []byte
	if opts.value != "" {
		if value, err = inspect.ParseKeyHex(opts.value); err != nil {
			return exitcode.Usagef("--value: %v", err)
		}
	}
	r, err := inspect.DecodeAnyKey(key, opts.cf, value)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	if opts.store != "" {
		if err := keysDecodeTenant(env, opts.store, &r); err != nil {
			return err
		}
	}
	if r.Assumed && r.CF != "" && !env.JSON() {
		msg := "no --cf given; assumed column family " + r.CF
		if len(r.AlsoFits) > 0 {
			msg += " (the key also fits " + strings.Join(r.AlsoFits, ", ") + ")"
		}
		env.note("%s", msg)
	}
	err = env.render(r, func() ui.Rows {
		rows := ui.Rows{Columns: []ui.Column{{Header: "Field"}, {Header: "Value", Wrap: true, MinWidth: 20}}}
		rows.Add(ui.Text("cf"), ui.Text(r.CF))
		rows.Add(ui.Text("family"), ui.Text(r.Family))
		if r.Sentinel != "" {
			rows.Add(ui.Text("sentinel"), ui.Text(r.Sentinel+" (not a row)"))
		}
		for _, f := range r.FieldList {
			rows.Add(ui.Text(f.Name), ui.Text(fmt.Sprint(f.Value)))
		}
		if r.Ref != "" {
			rows.Add(ui.Text("ref"), ui.Cell{Human: r.Ref + " (dlq show " + r.Ref + " STORE)", Plain: r.Ref})
		}
		if r.Error != "" {
			rows.Add(ui.Text("error"), ui.Text(r.Error))
		}
		if r.Value != nil {
			rows.Add(ui.Text("value"), ui.Text(r.Value.Text))
			if r.Value.Error != "" {
				rows.Add(ui.Text("value_error"), ui.Text(r.Value.Error))
			}
		}
		return rows
	})
	if err != nil {
		return err
	}
	if r.Error != "" {
		return findingsErr("the key does not decode: %s", r.Error)
	}
	if r.Value != nil && r.Value.Error != "" {
		return findingsErr("the value does not decode: %s", r.Value.Error)
	}
	return nil
}
