package format

import (
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTenantOfErlang: the node's reading of a hook's tenant, binary_to_term/1
// then tenant_id, against TenantOf, for the hooks of issue 20's cross-check
// (each a map with tenant_id => <<"acme">> beside an exotic term) and nil in
// every atom form. One erl run for all.
func TestTenantOfErlang(t *testing.T) {
	erl, err := exec.LookPath("erl")
	if err != nil {
		t.Skip("erl not installed")
	}
	hooks := map[string]string{
		"NEW_PORT_EXT":                  "837400000002640001705964000d6e6f6e6f6465406e6f686f7374000000000000000064000974656e616e745f69646d0000000461636d65",
		"bignum sign 2":                 "837400000002640001616e01020564000974656e616e745f69646d0000000461636d65",
		"compressed, a byte after":      "83500000001b789c2b616060604c61e02c49cd4bcc2b89cf4cc9050ab02426e7a6320000577f06a0",
		"REFERENCE_EXT, 19-bit id":      "837400000002640001726577027435000400000264000974656e616e745f69646d0000000461636d65",
		"trailing bytes":                "837400000001640009" + hex.EncodeToString([]byte("tenant_id")) + "6d0000000461636d65000102",
		"bad utf-8 tenant":              "837400000001770974656e616e745f69646d00000002ffff",
		"not a map":                     "8368017709" + hex.EncodeToString([]byte("tenant_id")),
		"no tenant_id":                  "837400000001770169610a",
		"list nested 512 deep, tenant":  deepListHook(512),
		"list nested 5000 deep, tenant": deepListHook(5000),
		// #{'a'x300 => 1, tenant_id => <<"acme">>}: binary_to_term refuses an atom past 255
		// characters, so the node files the hook under default, never under acme.
		"atom key of 300 characters": "837400000002640" + "12c" + strings.Repeat("61", 300) + "6101" + "64000974656e616e745f69646d0000000461636d65",
		"atom key of 256 characters": "837400000002760" + "100" + strings.Repeat("61", 256) + "6101" + "64000974656e616e745f69646d0000000461636d65",
	}
	for form := range atomForms {
		hooks["nil as tag "+string(rune('0'+form))] = hex.EncodeToString(hookOf(appendAtomForm(nil, form, EnvKeyTenantID), appendAtomForm(nil, form, "nil")))
	}
	var names []string
	var in strings.Builder
	for name, h := range hooks {
		names = append(names, name)
		in.WriteString(h + "\n")
	}
	file := filepath.Join(t.TempDir(), "hooks.hex")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `{ok, D} = file:read_file("` + file + `"),
lists:foreach(fun(L) ->
    R = try binary_to_term(binary:decode_hex(L)) of
        #{tenant_id := nil} -> "nil";
        #{tenant_id := T} when is_binary(T) -> "bin " ++ binary_to_list(binary:encode_hex(T));
        #{tenant_id := _} -> "other";
        M when is_map(M) -> "none";
        _ -> "not_map"
    catch _:_ -> "undecodable" end,
    io:format("~s~n", [R])
  end, [L || L <- binary:split(D, <<"\n">>, [global]), L =/= <<>>]),
halt().`
	out, err := exec.Command(erl, "-noshell", "-eval", script).CombinedOutput()
	if err != nil {
		t.Fatalf("erl: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		t.Fatalf("erl printed %d lines for %d hooks:\n%s", len(lines), len(names), out)
	}
	for i, name := range names {
		b, _ := hex.DecodeString(hooks[name])
		tenant, reason := TenantOf(b, true)
		want := map[string]DefaultReason{"nil": ReasonNilTenant, "other": ReasonBadTenant, "none": ReasonNoTenantKey, "not_map": ReasonNotMap, "undecodable": ReasonUndecodable}
		wantTenant, wantReason := DefaultTenant, want[lines[i]]
		if h, ok := strings.CutPrefix(lines[i], "bin "); ok {
			id, _ := hex.DecodeString(h)
			wantReason = ReasonBadTenant
			if ValidTenantID(id) {
				wantTenant, wantReason = string(id), ReasonNone
			}
		}
		if tenant != wantTenant || reason != wantReason {
			t.Errorf("%s: the node reads %s, TenantOf %q, %v", name, lines[i], tenant, reason)
		}
	}
}

// deepListHook is #{p => [[...[1]...]] (n deep), tenant_id => <<"acme">>}.
func deepListHook(n int) string {
	b := []byte{131, 116, 0, 0, 0, 2, 119, 1, 'p'}
	for range n {
		b = append(b, 108, 0, 0, 0, 1)
	}
	b = append(b, 97, 1)
	for range n {
		b = append(b, 106)
	}
	b = append(b, 119, 9)
	b = append(b, "tenant_id"...)
	return hex.EncodeToString(append(b, 109, 0, 0, 0, 4, 'a', 'c', 'm', 'e'))
}
