#!/bin/sh
# tests/cli/test_cli.sh DMLREF_BINARY
#
# End-to-end checks of the dmlref command on good input (and a few usage
# errors), each able to fail:
#   - --version, help, help COMMAND; usage errors exit 3;
#   - eval of a copy of a suite vector whose outputs lost "expected" and
#     "xxh3" reproduces the committed file byte for byte (any_of, nulls,
#     broadcast and strided layouts, generators, an expect_error case, output
#     sizes left to eval, -o, --threads);
#   - verify names the first wrong element of a vector, with both values;
#   - verify of a suite folder: a good one passes; an altered MANIFEST digest,
#     an unlisted .json file and a deleted listed file each fail (exit 1);
#     a MANIFEST line that is not exactly as gen writes it (" 0x" for the
#     digest, upper case, a tab, three spaces, a control character, a NUL, no
#     final newline, ...) is a FAIL naming the file, the line and the rule
#     (exit 2);
#   - verify of an empty folder or of a suite whose MANIFEST is empty, and
#     show of an empty folder: exit 2, "no vector under the paths";
#   - verify of the committed suite, vectors/, passes;
#   - standard output is bytes as they are: eval prints what -o writes, no
#     output holds a carriage return.
# Uses python3 to edit JSON; temporary files live in one mktemp folder.
# Ends with "N passed, N failed"; exits 1 if any check failed.

set -u

# shellcheck source=tests/cli/dmlref_binary.sh
. "$(dirname "$0")/dmlref_binary.sh" # tests/cli/lib.sh, $bin, run, expect_rc, has, lacks

vectors=$root/vectors
make_tmp cli

# strip SRC DST [sizes]: DST is SRC without the outputs' "expected" and "xxh3"
# (and "sizes", with a third argument)
strip() {
    /usr/bin/python3 - "$1" "$2" "${3:-}" <<'EOF'
import json, sys
src, dst, drop_sizes = sys.argv[1], sys.argv[2], sys.argv[3] == "sizes"
with open(src) as f:
    d = json.load(f)
outputs = 0
for name, t in d["tensors"].items():
    if name.startswith("Output"):
        outputs += 1
        t.pop("expected", None)
        t.pop("xxh3", None)
        if drop_sizes:
            t.pop("sizes")
assert outputs >= 1
with open(dst, "w") as f:
    json.dump(d, f)
EOF
}

# ---- version, help, usage errors -------------------------------------------------

version_part() {
    sed -n "s/^#define DMLREF_VERSION_$1 \\([0-9][0-9]*\\)\$/\\1/p" "$root/include/dmlref.h"
}
version=$(version_part MAJOR).$(version_part MINOR).$(version_part PATCH)
if expect_rc version 0 --version; then
    if [ "$(cat "$tmp/version.out")" != "dmlref $version" ]; then
        bad "--version prints \"$(cat "$tmp/version.out")\", not \"dmlref $version\""
    elif [ -s "$tmp/version.err" ]; then
        bad "--version wrote to stderr" "$tmp/version.err"
    else
        ok
    fi
fi
expect_rc help 0 help && has help out "usage: dmlref COMMAND"
expect_rc help_verify 0 help verify && has help_verify out "usage: dmlref verify"
expect_rc help_eval 0 help eval && has help_eval out "usage: dmlref eval"
expect_rc help_gen 0 help gen && has help_gen out "usage: dmlref gen"
expect_rc no_command 3 && has no_command err "usage: dmlref COMMAND"
expect_rc unknown_command 3 frobnicate && has unknown_command err "unknown command"
expect_rc help_unknown 3 help frobnicate && has help_unknown err "no such command"
expect_rc verify_bad_option 3 verify --frobnicate "$vectors/gather_elements/float32/2d/doc_example.json" &&
    has verify_bad_option err "verify: unknown option"
expect_rc eval_bad_option 3 eval -x "$vectors/gather_elements/float32/2d/doc_example.json" &&
    has eval_bad_option err "eval: unknown option"
expect_rc eval_bad_threads 3 eval --threads many "$vectors/gather_elements/float32/2d/doc_example.json" &&
    has eval_bad_threads err "--threads takes a number"
expect_rc eval_no_case 3 eval && has eval_no_case err "eval needs a case file"
expect_rc eval_two_cases 3 eval "$vectors/gather_elements/float32/2d/doc_example.json" \
    "$vectors/gather_elements/float32/2d/doc_example.json" && has eval_two_cases err "eval takes one case"
expect_rc verify_no_path 3 verify && has verify_no_path err "verify needs at least one path"
expect_rc gen_bad_argument 3 gen --frobnicate && has gen_bad_argument err "gen: unknown option"

# a file that does not exist: bad input, the message starts with its path
expect_rc eval_missing_file 2 eval "$tmp/no_such_case.json" &&
    has eval_missing_file err "$tmp/no_such_case.json: cannot open"
expect_rc verify_missing_file 2 verify "$tmp/no_such_case.json" &&
    has verify_missing_file err "FAIL $tmp/no_such_case.json: cannot open"

# ---- eval reproduces suite vectors byte for byte -----------------------------------

# roundtrip NAME VECTOR [sizes] [EVAL OPTIONS...]
roundtrip() {
    name=$1 rel=$2 original=$vectors/$2 drop=$3
    shift 3
    if ! [ -f "$original" ]; then
        bad "$name: $original is missing"
        return
    fi
    strip "$original" "$tmp/$name.case.json" "$drop" || {
        bad "$name: cannot strip $original"
        return
    }
    if expect_rc "$name" 0 eval "$tmp/$name.case.json" "$@"; then
        if [ -s "$tmp/$name.err" ]; then
            bad "$name: eval wrote to stderr" "$tmp/$name.err"
        elif cmp -s "$tmp/$name.out" "$original"; then
            ok
        else
            diff "$original" "$tmp/$name.out" >"$tmp/$name.diff"
            bad "$name: eval of $rel without its expectations differs from the suite's file" "$tmp/$name.diff"
        fi
    fi
}

roundtrip eval_scatter_any_of scatter_elements/float32/1d/doc_example1_duplicate.json ""
roundtrip eval_nonzero_nulls nonzero_coordinates/float32/4d/doc_example.json ""
roundtrip eval_broadcast_input gather_elements/float32/2d/axis1_int32_broadcast_input.json ""
roundtrip eval_strided_output gather_elements/float32/2d/axis0_uint64_strided_output.json ""
roundtrip eval_padded_input gather_elements/float32/2d/axis1_uint64_padded.json ""
roundtrip eval_generator_large gather_elements/float32/2d/large_1m_random.json ""
roundtrip eval_generator_large_threads scatter_elements/float16/2d/large_1m_one_update_per_row.json "" --threads 3
roundtrip eval_expect_error gather_elements/float32/2d/error_index_out_of_range.json ""
roundtrip eval_infers_sizes_gather_nd gather_nd/float32/3d/m2_q3_b0_k1_uint64_packed.json sizes
roundtrip eval_infers_sizes_nonzero nonzero_coordinates/float16/3d/density250_n3_packed.json sizes

# -o OUT writes the same bytes to a file (creating its folder), nothing to stdout
strip "$vectors/gather_elements/float32/2d/doc_example.json" "$tmp/eval_o.case.json"
if expect_rc eval_o 0 eval "$tmp/eval_o.case.json" -o "$tmp/written/doc_example.json"; then
    if [ -s "$tmp/eval_o.out" ]; then
        bad "eval -o: wrote to stdout" "$tmp/eval_o.out"
    elif cmp -s "$tmp/written/doc_example.json" "$vectors/gather_elements/float32/2d/doc_example.json"; then
        ok
    else
        bad "eval -o: the written file differs from the suite's"
    fi
fi

# ---- verify names a wrong element ---------------------------------------------------

/usr/bin/python3 - "$vectors/gather_elements/float32/2d/doc_example.json" "$tmp/wrong_element.json" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
expected = d["tensors"]["OutputTensor"]["expected"]
assert expected[4] == 2
expected[4] = 5  # element [1, 1] is 2
with open(sys.argv[2], "w") as f:
    json.dump(d, f)
EOF
if expect_rc verify_wrong_element 1 verify "$tmp/wrong_element.json"; then
    has verify_wrong_element err "FAIL $tmp/wrong_element.json: \$.tensors.OutputTensor.expected[4]: "
    has verify_wrong_element err "expected 5 (0x40a00000)"
    has verify_wrong_element err "got 2 (0x40000000)"
    has verify_wrong_element out "0 passed, 1 failed, 0 skipped"
fi

# a wrong digest alone
/usr/bin/python3 - "$vectors/gather_elements/float32/2d/large_1m_random.json" "$tmp/wrong_digest.json" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
t = d["tensors"]["OutputTensor"]
t["xxh3"] = "%016x" % (int(t["xxh3"], 16) ^ 1)
with open(sys.argv[2], "w") as f:
    json.dump(d, f)
EOF
if expect_rc verify_wrong_digest 1 verify "$tmp/wrong_digest.json"; then
    has verify_wrong_digest err "\$.tensors.OutputTensor.xxh3: "
fi

# ---- suites -----------------------------------------------------------------------------

# make_suite DIR: a copy of vectors/scatter_elements/float32, whose cases are small (each
# copy is verified, in every build), with its own MANIFEST (the lines of
# vectors/MANIFEST below that folder, the prefix taken off)
sub=scatter_elements/float32
make_suite() {
    mkdir -p "$1" && cp -R "$vectors/$sub/." "$1/" &&
        grep "^[0-9a-f]\{16\}  $sub/" "$vectors/MANIFEST" | sed "s#  $sub/#  #" >"$1/MANIFEST"
}
make_suite "$tmp/suite" || bad "cannot copy $vectors/$sub"
suite_count=$(wc -l <"$tmp/suite/MANIFEST" | tr -d ' ')
json_count=$(find "$tmp/suite" -name '*.json' | wc -l | tr -d ' ')
if [ "$suite_count" -gt 10 ] && [ "$suite_count" = "$json_count" ]; then
    ok
else
    bad "the suite copy has $suite_count MANIFEST lines for $json_count files"
fi

expect_rc suite_good 0 verify "$tmp/suite" && has suite_good out "$suite_count passed, 0 failed, 0 skipped"
expect_rc suite_good_slash 0 verify --threads 2 "$tmp/suite/" &&
    has suite_good_slash out "$suite_count passed, 0 failed, 0 skipped"

# an altered digest: the file is reported, not verified
make_suite "$tmp/suite_digest"
line=$(sed -n 5p "$tmp/suite_digest/MANIFEST")
file=${line#*  }
awk 'NR == 5 {c = substr($0, 1, 1); $0 = (c == "0" ? "1" : "0") substr($0, 2)} {print}' \
    "$tmp/suite/MANIFEST" >"$tmp/suite_digest/MANIFEST"
if cmp -s "$tmp/suite/MANIFEST" "$tmp/suite_digest/MANIFEST"; then
    bad "suite_digest: the MANIFEST did not change"
elif expect_rc suite_digest 1 verify "$tmp/suite_digest"; then
    has suite_digest err "$tmp/suite_digest/$file has digest"
    has suite_digest err "the manifest says"
    has suite_digest out "$((suite_count - 1)) passed, 1 failed, 0 skipped"
fi

# a .json file the MANIFEST does not list
make_suite "$tmp/suite_extra"
mkdir -p "$tmp/suite_extra/extra"
cp "$vectors/gather_elements/float32/2d/doc_example.json" "$tmp/suite_extra/extra/unlisted.json"
if expect_rc suite_extra 1 verify "$tmp/suite_extra"; then
    has suite_extra err "FAIL $tmp/suite_extra/extra/unlisted.json: not listed in $tmp/suite_extra/MANIFEST"
    has suite_extra out "$suite_count passed, 1 failed, 0 skipped"
fi

# a listed file deleted
make_suite "$tmp/suite_deleted"
rm -f "$tmp/suite_deleted/$file"
if expect_rc suite_deleted 1 verify "$tmp/suite_deleted"; then
    has suite_deleted err "$tmp/suite_deleted/$file is missing"
    has suite_deleted out "$((suite_count - 1)) passed, 1 failed, 0 skipped"
fi

# A MANIFEST line is exactly what gen writes: each row appends one line that
# is not (printf's format; %s is the digest of a listed file, in lowercase)
# and names the rule the FAIL line must give, with the file and the line.
# Every row is bad input (exit 2), never an entry read some other way.
manifest_line=$((suite_count + 1))
first_digest=$(head -n 1 "$tmp/suite/MANIFEST" | cut -c1-16)
upper_digest=$(printf '%s' "$first_digest" | tr 'a-f' 'A-F')
while IFS='|' read -r row format digest rule; do
    make_suite "$tmp/manifest_$row"
    # shellcheck disable=SC2059 # the format is the row's
    printf "$format" "$digest" >>"$tmp/manifest_$row/MANIFEST"
    if expect_rc "manifest_$row" 2 verify "$tmp/manifest_$row"; then
        has "manifest_$row" err "FAIL $tmp/manifest_$row/MANIFEST: line $manifest_line: $rule"
    fi
done <<ROWS
not_an_entry|not a manifest line %s\\n|x|must start with the digest, 16 lowercase hex digits
space_and_0x| 0x%.13s  missing.json\\n|$first_digest|must start with the digest, 16 lowercase hex digits
uppercase_digest|%s  missing.json\\n|$upper_digest|must start with the digest, 16 lowercase hex digits
one_space|%s missing.json\\n|$first_digest|the digest must be followed by two spaces
tab|%s\\tmissing.json\\n|$first_digest|the digest must be followed by two spaces
three_spaces|%s   missing.json\\n|$first_digest|the path starts with a space
no_path|%s  \\n|$first_digest|the path is missing
empty_line|%.0s\\n|x|an empty line
control_character|%s  missing\\033.json\\n|$first_digest|the path holds a control character
nul_byte|%s  missing.json\\000x\\n|$first_digest|the path holds a control character
no_final_newline|%s  missing.json|$first_digest|does not end in a newline
ROWS

# a folder without MANIFEST: every *.json below it
mkdir -p "$tmp/plain/a"
cp "$vectors/scatter_elements/float32/1d/doc_example1_duplicate.json" "$tmp/plain/"
cp "$vectors/nonzero_coordinates/float32/4d/doc_example.json" "$tmp/plain/a/"
expect_rc plain_folder 0 verify "$tmp/plain" && has plain_folder out "2 passed, 0 failed, 0 skipped"

# nothing to verify or show is bad input, whatever the folder looks like: an
# empty folder, or a suite whose MANIFEST lists nothing
mkdir -p "$tmp/empty_folder" "$tmp/empty_manifest"
: >"$tmp/empty_manifest/MANIFEST"
expect_rc verify_empty_folder 2 verify "$tmp/empty_folder" &&
    has verify_empty_folder out "0 passed, 0 failed, 0 skipped" &&
    has verify_empty_folder err "no vector under the paths"
expect_rc verify_empty_manifest 2 verify "$tmp/empty_manifest" &&
    has verify_empty_manifest out "0 passed, 0 failed, 0 skipped" &&
    has verify_empty_manifest err "no vector under the paths"
expect_rc show_empty_folder 2 show "$tmp/empty_folder" &&
    has show_empty_folder err "no vector under the paths"

# the committed suite
vectors_count=$(wc -l <"$vectors/MANIFEST" | tr -d ' ')
expect_rc committed_suite 0 verify "$vectors" &&
    has committed_suite out "$vectors_count passed, 0 failed, 0 skipped"

# ---- bytes as they are -------------------------------------------------------------------

# What dmlref writes is the same bytes on every system: standard output is
# binary (no "\r\n", on Windows neither), and eval writes to it exactly what
# -o writes to a file.
doc_example=$vectors/gather_elements/float32/2d/doc_example.json
cr=$(printf '\r')
expect_rc bytes_eval 0 eval "$doc_example" && lacks bytes_eval out "$cr"
expect_rc bytes_eval_o 0 eval "$doc_example" -o "$tmp/bytes_eval_o.json"
if cmp -s "$tmp/bytes_eval.out" "$tmp/bytes_eval_o.json" && cmp -s "$tmp/bytes_eval.out" "$doc_example"; then
    ok
else
    bad "eval of $doc_example: standard output, -o and the suite's file differ"
fi
expect_rc bytes_show 0 show "$doc_example" && lacks bytes_show out "$cr"
expect_rc bytes_explain 0 explain "$doc_example" && lacks bytes_explain out "$cr"
expect_rc bytes_verify 0 verify "$doc_example" && lacks bytes_verify out "$cr"
expect_rc bytes_help 0 help && lacks bytes_help out "$cr"

finish
