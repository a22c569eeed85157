#!/bin/sh
# tests/cli/test_explain.sh DMLREF_BINARY
#
# dmlref explain end to end, each check able to fail:
#   - help and usage errors (exit 3); a missing file, malformed JSON and an
#     element that does not exist (exit 2, one line naming the file): a
#     coordinate past 2^64 quoted as written, nine coordinates counted,
#     control and non-UTF-8 bytes of the argument escaped;
#   - a case without "expected" is explained exactly as its vector;
#   - one element, by name, and its derivation;
#   - refusals: a vector that expects an error, a case whose index is out of
#     range (the rule, the first output element that reads it, and the
#     index's place in the file), an invalid case without expect_error (the
#     rule and the field's JSON path), and a case run at a feature level that
#     lacks its operator;
#   - a lost standard output is exit 2.
# (tests/unit/test_explain.c checks the derivations against the kernels over the
# whole suite.)  Ends with "N passed, N failed".

set -u

# shellcheck source=tests/cli/dmlref_binary.sh
. "$(dirname "$0")/dmlref_binary.sh" # tests/cli/lib.sh, $bin, run, expect_rc, has, lacks

vectors=$root/vectors
make_tmp explain

# edit SRC DST PYTHON: DST is the JSON of SRC as `d`, after PYTHON
edit() {
    /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
exec(sys.argv[3])
with open(sys.argv[2], "w") as f:
    json.dump(d, f)
PY
}

ge=$vectors/gather_elements/float32/2d/doc_example.json
oob=$vectors/gather_nd1/uint8/3d/error_index_out_of_range.json

# ---- usage and bad input ----------------------------------------------------------
expect_rc help 0 help explain && has help out "usage: dmlref explain CASE.json"
expect_rc no_case 3 explain && has no_case err "explain takes one case file"
expect_rc two_cases 3 explain "$ge" "$ge" && has two_cases err "explain takes one case file"
expect_rc bad_option 3 explain --frobnicate "$ge" && has bad_option err "explain: unknown option"
expect_rc bad_level 3 explain --level 9_9 "$ge" && has bad_level err "--level takes a feature level"
expect_rc missing 2 explain "$tmp/no_such.json" && has missing err "$tmp/no_such.json"
printf '{"format": "dmlref-vector-1", "name": ' >"$tmp/truncated.json"
expect_rc malformed 2 explain "$tmp/truncated.json" && has malformed err "$tmp/truncated.json"
expect_rc no_element 2 explain --element 'OutputTensor[2, 0]' "$ge" &&
    has no_element err "coordinate 0 is 2, but OutputTensor.Sizes[0] = 2"
expect_rc input_element 2 explain --element 'InputTensor[0, 0]' "$ge" &&
    has input_element err "name an output element"

# --element's messages, one row each: the argument (printf's format), and
# what the one-line message must say.  A coordinate past 2^64 is quoted as
# written and said to be out of range; more coordinates than MAX_RANK are
# counted; bytes that are not UTF-8 or that a terminal acts on are escaped.
while IFS='|' read -r row format message; do
    # shellcheck disable=SC2059 # the format is the row's
    argument=$(printf "$format")
    if expect_rc "element_$row" 2 explain --element "$argument" "$ge"; then
        has "element_$row" err "$ge: --element '"
        has "element_$row" err "$message"
        if [ "$(wc -l <"$tmp/element_$row.err")" -eq 1 ]; then
            ok
        else
            bad "element_$row: the message is not one line" "$tmp/element_$row.err"
        fi
        if LC_ALL=C grep -q "$(printf '[\033\007\377]')" "$tmp/element_$row.err"; then
            bad "element_$row: the message holds a raw control or non-UTF-8 byte" "$tmp/element_$row.err"
        else
            ok
        fi
    fi
done <<'ROWS'
overflow|OutputTensor[1, 99999999999999999999999]|coordinate 1 is 99999999999999999999999, but OutputTensor.Sizes[1] = 3: out of range
max_uint64|OutputTensor[18446744073709551615, 0]|coordinate 0 is 18446744073709551615, but OutputTensor.Sizes[0] = 2: out of range
above_uint32|OutputTensor[0, 4294967296]|coordinate 1 is 4294967296, but OutputTensor.Sizes[1] = 3: out of range
nine_coordinates|OutputTensor[0, 0, 0, 0, 0, 0, 0, 0, 0]|OutputTensor has 2 dimensions, not 9
twelve_coordinates|OutputTensor[0,0,0,0,0,0,0,0,0,0,0,0]|OutputTensor has 2 dimensions, not 12
not_utf8_name|Output\377Tensor[0, 0]|'Output\xffTensor[0, 0]': name an output element
escape_in_coordinates|OutputTensor[0, \033[31m]|'OutputTensor[0, \x1b[31m]': write it as OutputTensor[c0, c1, ...]
bell_after|OutputTensor[0, 0]\007|(OutputTensor has 2)
ROWS

# ---- a case is explained as its vector --------------------------------------------
edit "$ge" "$tmp/case.json" 'd["tensors"]["OutputTensor"].pop("expected"); d["tensors"]["OutputTensor"].pop("xxh3"); d["tensors"]["OutputTensor"].pop("sizes")'
expect_rc vector 0 explain "$ge"
expect_rc case 0 explain "$tmp/case.json"
if cmp -s "$tmp/vector.out" "$tmp/case.out"; then
    ok "a case without expected outputs is explained as its vector"
else
    bad "a case without expected outputs is explained otherwise than its vector" "$tmp/case.out"
fi
has vector out "OutputTensor[1, 2] = 3"

expect_rc element 0 explain --element 'OutputTensor[1,0]' "$ge" &&
    has element out "OutputTensor[1, 0] = 7
  IndicesTensor[1, 0] = 2, in range for InputTensor.Sizes[0] = 3
  InputTensor[2, 0] = 7"
if [ "$(grep -c '^OutputTensor\[' "$tmp/element.out")" = 1 ]; then
    ok "--element explains that element only"
else
    bad "--element explains more than one element" "$tmp/element.out"
fi

# ---- refusals -----------------------------------------------------------------------
expect_rc expect_error 0 explain "$oob" &&
    has expect_error out "refused: DMLREF_ERROR_INDEX_OUT_OF_RANGE, rule D1" &&
    has expect_error out "the vector expects exactly this refusal" &&
    has expect_error out "where it sits: the first output element that reads it is OutputTensor[0, 3, 0]:"
edit "$oob" "$tmp/oob_case.json" 'd.pop("expect_error")'
expect_rc oob_case 0 explain "$tmp/oob_case.json" &&
    has oob_case out "IndicesTensor[0, 3, 0] = 5: out of range for InputTensor.Sizes[1] = 3 (valid: -3 to 2, R-IX-4): the case is refused (D1)"
expect_rc low_level 0 explain --level 2_1 "$vectors/gather_nd1/float32/4d/doc_example_batch.json" &&
    has low_level out "refused: DMLREF_ERROR_UNSUPPORTED_OPERATOR"
edit "$vectors/gather_nd1/uint8/3d/error_batch_not_below_m_q.json" "$tmp/invalid_case.json" 'd.pop("expect_error")'
expect_rc invalid_case 0 explain "$tmp/invalid_case.json" &&
    has invalid_case out "refused: DMLREF_ERROR_INVALID_ATTRIBUTE, rule R-GN-3 (docs/rules.md)" &&
    has invalid_case out "  in the case file: \$.attributes.BatchDimensionCount"
has oob_case out "  in the case file: \$.tensors.IndicesTensor.data[3]"
edit "$ge" "$tmp/wrong_error.json" 'd["expect_error"] = {"status": "DMLREF_ERROR_INVALID_ATTRIBUTE", "rule": "R-GE-2"}; d["tensors"]["OutputTensor"].pop("expected"); d["tensors"]["OutputTensor"].pop("xxh3")'
expect_rc wrong_error 2 explain "$tmp/wrong_error.json" &&
    has wrong_error err "but dmlref accepts the case"

# ---- a lost standard output ------------------------------------------------------------
if [ -w /dev/full ]; then
    "$bin" explain "$ge" >/dev/full 2>"$tmp/full.err"
    rc=$?
    expect_exit full 2 "$tmp/full.err" && has full err "standard output: cannot write"
fi

finish
