#!/usr/bin/env escript
%% -*- erlang -*-
%%! -noshell
%%
%% Reference vectors for pkg/format/etf, produced by a real Erlang runtime.
%%
%%   escript testdata/etf/vectors.erl > testdata/etf/vectors.txt
%%       prints "name<TAB>form<TAB>hex<TAB>expression" for every vector, where
%%       form is the term_to_binary option set:
%%         otp26       [{minor_version,2}]  (the OTP 26+ default; atoms 119/118)
%%         otp25       [{minor_version,1}]  (the OTP 25 default; latin1 atoms 100),
%%                     only listed when it differs from otp26
%%         v0          [{minor_version,0}]  (old string floats, tag 99)
%%         compressed  [compressed,{minor_version,2}]
%%       Options are explicit so the output does not depend on the OTP
%%       release's defaults. Pids and references come from list_to_pid and
%%       list_to_ref, not self()/make_ref(), so the file is reproducible.
%%
%%   escript testdata/etf/vectors.erl verdict FILE
%%       reads hex terms, one a line, and prints for each "ok" when
%%       binary_to_term accepts it, else "error<TAB>Reason"; nothing else is
%%       done with the term (OTP 25 accepts funs it then crashes on writing,
%%       e.g. NEW_FUN_EXT whose creator is not a pid).
%%
%%   escript testdata/etf/vectors.erl decode FILE
%%       reads hex terms, one a line, and prints for each
%%       "hex(term_to_binary(T, [{minor_version,2}]))<TAB>io_lib:print(T)",
%%       or "error<TAB>Reason" when binary_to_term refuses it.
-mode(compile).

vectors() ->
    [
     %% integers at every tag boundary
     {"int_0", "0"},
     {"int_255", "255"},
     {"int_256", "256"},
     {"int_m1", "-1"},
     {"int_max32", "2147483647"},
     {"int_max32_plus1", "2147483648"},
     {"int_min32", "-2147483648"},
     {"int_min32_minus1", "-2147483649"},
     {"int_max64", "9223372036854775807"},
     {"int_max64_plus1", "9223372036854775808"},
     {"int_min64", "-9223372036854775808"},
     {"int_min64_minus1", "-9223372036854775809"},
     {"int_2_64", "1 bsl 64"},
     {"int_2_200", "1 bsl 200"},
     {"int_m2_200", "-(1 bsl 200)"},
     {"int_300_bytes", "(1 bsl (300*8-1)) + 12345"},
     {"int_ms_timestamp", "1717171717171"},
     %% atoms
     {"atom_a", "a"},
     {"atom_nil", "nil"},
     {"atom_true", "true"},
     {"atom_empty", "''"},
     {"atom_latin1", "'caf\\x{e9}'"},
     {"atom_unicode", "'\\x{65e5}\\x{672c}'"},
     {"atom_255", "list_to_atom(lists:duplicate(255, $x))"},
     {"atom_unicode_long", "list_to_atom(lists:duplicate(100, 16#65e5))"},
     {"atom_struct", "'Elixir.Ankusa.Envelope'"},
     %% floats
     {"float_zero", "0.0"},
     {"float_neg_zero", "-0.0"},
     {"float_1_5", "1.5"},
     {"float_pi", "3.141592653589793"},
     {"float_big", "1.0e300"},
     {"float_tiny", "5.0e-324"},
     {"float_neg", "-123.456"},
     %% lists
     {"list_empty", "[]"},
     {"string_abc", "\"abc\""},
     {"list_1_2000", "[1,2000]"},
     {"list_improper", "[a|b]"},
     {"list_improper_int", "[1,2|3]"},
     {"list_mixed", "[a,<<\"b\">>,{c},[],1.0]"},
     {"string_65535", "lists:duplicate(65535, $z)"},
     {"list_65536_small", "lists:duplicate(65536, 7)"},
     {"string_with_zero", "[0,255,1]"},
     %% tuples
     {"tuple_empty", "{}"},
     {"tuple_nested", "{a,{b,[c,{d,[]}]},\"x\"}"},
     {"tuple_counter_op", "{int_add,-5}"},
     {"tuple_key", "{<<\"src\">>,<<\"id\">>,3}"},
     {"tuple_300", "list_to_tuple(lists:seq(1,300))"},
     %% binaries
     {"bin_empty", "<<>>"},
     {"bin_hello", "<<\"hello\">>"},
     {"bin_bytes", "<<0,1,2,255>>"},
     {"bin_utf8", "<<\"h\\x{e9}llo\"/utf8>>"},
     {"bits_1_3", "<<1:3>>"},
     {"bits_12", "<<1,2:4>>"},
     %% maps
     {"map_empty", "#{}"},
     {"map_ab", "#{a=>1,b=>2}"},
     {"map_ba_put", "maps:put(a,1,#{b=>2})"},
     {"map_mixed_keys", "#{<<\"b\">>=>1, a=>2, 3=>c, {t}=>[]}"},
     {"map_40", "maps:from_list([{K, K*2} || K <- lists:seq(1,40)])"},
     {"map_40_atoms", "maps:from_list([{list_to_atom([$k|integer_to_list(K)]), K} || K <- lists:seq(1,40)])"},
     {"map_nested", "#{a=>#{b=>#{c=>[]}}}"},
     %% the hook envelope and the delivery row of the store contract
     {"envelope_nil_tenant",
      "#{'__struct__'=>'Elixir.Ankusa.Envelope', id=><<\"01HZX3K4\">>, source_id=><<\"src-1\">>,"
      " tenant_id=>nil, idempotency_key=>nil, received_at=>1717171717171,"
      " headers=>[{<<\"content-type\">>,<<\"application/json\">>},{<<\"x-req\">>,<<\"42\">>}],"
      " body=><<\"{\\\"a\\\":1}\">>}"},
     {"envelope_tenant",
      "#{'__struct__'=>'Elixir.Ankusa.Envelope', id=><<\"01HZX3K5\">>, source_id=><<\"src-2\">>,"
      " tenant_id=><<\"acme\">>, idempotency_key=><<\"k-1\">>, received_at=>1717171717999,"
      " headers=>[], body=><<>>}"},
     {"delivery",
      "#{sink=>3, status=>dead, attempts=>7, size=>1024, last_error=><<\"timeout\">>}"},
     %% opaque terms
     {"pid", "list_to_pid(\"<0.42.0>\")"},
     {"ref", "erlang:list_to_ref(\"#Ref<0.1.2.3>\")"},
     {"fun_export", "fun erlang:abs/1"},
     {"fun_closure", "etf_vectors_fun:make(7)"},
     {"envelope_with_pid_header",
      "#{'__struct__'=>'Elixir.Ankusa.Envelope', id=><<\"i\">>, source_id=><<\"s\">>,"
      " tenant_id=><<\"t1\">>, idempotency_key=>nil, received_at=>1,"
      " headers=>[{<<\"p\">>, list_to_pid(\"<0.42.0>\")}], body=><<>>}"}
    ].

%% Terms only written in one special form.
special() ->
    [
     {"float_old_1_5", v0, "1.5"},
     {"float_old_neg", v0, "-123.456"},
     {"compressed_bin", compressed, "binary:copy(<<\"abc\">>, 1000)"},
     {"compressed_envelope", compressed,
      "#{'__struct__'=>'Elixir.Ankusa.Envelope', id=><<\"01HZX3K6\">>, source_id=><<\"src-3\">>,"
      " tenant_id=><<\"acme\">>, idempotency_key=>nil, received_at=>1717171717171,"
      " headers=>[], body=>binary:copy(<<\"payload \">>, 200)}"}
    ].

opts(otp26) -> [{minor_version, 2}];
opts(otp25) -> [{minor_version, 1}];
opts(v0) -> [{minor_version, 0}];
opts(compressed) -> [compressed, {minor_version, 2}].

main(["verdict", File]) ->
    {ok, Data} = file:read_file(File),
    Lines = [L || L <- binary:split(Data, <<"\n">>, [global]), L =/= <<>>],
    lists:foreach(fun verdict_line/1, Lines);
main(["decode", File]) ->
    {ok, Data} = file:read_file(File),
    Lines = [L || L <- binary:split(Data, <<"\n">>, [global]), L =/= <<>>],
    lists:foreach(fun decode_line/1, Lines);
main([]) ->
    load_fun_module(),
    io:format("# Generated by testdata/etf/vectors.erl; do not edit.~n"
              "# name<TAB>form<TAB>hex of term_to_binary<TAB>Erlang expression~n"),
    lists:foreach(
      fun({Name, Expr}) ->
              T = eval(Expr),
              B26 = term_to_binary(T, opts(otp26)),
              B25 = term_to_binary(T, opts(otp25)),
              line(Name, otp26, B26, Expr),
              case B25 =:= B26 of
                  true -> ok;
                  false -> line(Name ++ ".otp25", otp25, B25, Expr)
              end
      end, vectors()),
    lists:foreach(
      fun({Name, Form, Expr}) ->
              line(Name, Form, term_to_binary(eval(Expr), opts(Form)), Expr)
      end, special()).

decode_line(Hex) ->
    try binary_to_term(binary:decode_hex(Hex)) of
        T ->
            io:format("~s\t~ts~n",
                      [hex(term_to_binary(T, opts(otp26))), io_lib:print(T, 1, 1000000, -1)])
    catch
        C:R -> io:format("error\t~p:~p~n", [C, R])
    end.

verdict_line(Hex) ->
    try binary_to_term(binary:decode_hex(Hex)) of
        _ -> io:format("ok~n")
    catch
        C:R -> io:format("error\t~p:~p~n", [C, R])
    end.

line(Name, Form, Bin, Expr) ->
    io:format("~ts\t~s\t~s\t~ts~n", [Name, Form, hex(Bin), Expr]).

hex(Bin) -> [io_lib:format("~2.16.0b", [X]) || <<X>> <= Bin].

eval(Expr) ->
    {ok, Toks, _} = erl_scan:string(Expr ++ "."),
    {ok, Exprs} = erl_parse:parse_exprs(Toks),
    {value, V, _} = erl_eval:exprs(Exprs, []),
    V.

%% A real closure (NEW_FUN_EXT) needs a compiled module; this one is built
%% from source so its name and MD5 do not depend on the escript's file name.
load_fun_module() ->
    Src = ["-module(etf_vectors_fun).", "-export([make/1]).",
           "make(Y) -> fun(X) -> X + Y end."],
    Forms = [begin {ok, Ts, _} = erl_scan:string(S), {ok, F} = erl_parse:parse_form(Ts), F end
             || S <- Src],
    {ok, Mod, Bin} = compile:forms(Forms, []),
    {module, Mod} = code:load_binary(Mod, "etf_vectors_fun.erl", Bin),
    ok.
