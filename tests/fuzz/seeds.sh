#!/bin/sh
# tests/fuzz/seeds.sh OUT_DIR [EVERY [MAX_BYTES]]
#
# Writes the seed corpora of the libFuzzer targets of tests/fuzz/ into
# OUT_DIR/fuzz_vector, OUT_DIR/fuzz_validate, OUT_DIR/fuzz_execute and
# OUT_DIR/fuzz_reply (replacing what those folders held).
#
#   fuzz_vector    every EVERY-th golden vector of vectors/ (default 4, in path
#                  order; 1 = all of them) and every one whose feature level is
#                  not the default 6_4, of at most MAX_BYTES bytes (default
#                  16384, the smoke run's -max_len), each as a full vector
#                  ('0' in front: fuzz_vector's first byte picks the reading
#                  mode) and, best effort, as an eval case ('q' in front: a
#                  case, evaluated with DMLREF_VECTOR_EVAL_DIGESTS as `dmlref
#                  eval` does) without its expectations and its outputs'
#                  sizes; and every file of tests/cli/malformed/, in both
#                  modes.
#   fuzz_validate, fuzz_execute
#                  a few hand-made byte strings, one per operator; libFuzzer
#                  finds the rest.
#   fuzz_reply     reply lines of the process protocol behind fuzz_reply's
#                  6-byte header: the right outputs for each of its built-in
#                  cases, "unsupported" and "error" replies (with and without
#                  a status and rule), malformed replies, and streams of
#                  several lines, cut anywhere, too long, unterminated.
#
# Works from any directory; POSIX sh.
#
# shellcheck disable=SC2059 # the hand-made seeds' printf formats hold octal escapes on purpose

set -u

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
    echo "usage: $0 OUT_DIR [EVERY [MAX_BYTES]]" >&2
    exit 2
fi
out=$1
every=${2:-4}
max_bytes=${3:-16384}
case $every$max_bytes in
*[!0-9]*) echo "$0: EVERY and MAX_BYTES are positive integers" >&2; exit 2 ;;
esac
[ "$every" -ge 1 ] || { echo "$0: EVERY must be at least 1" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/../.." && pwd) || exit 2

for target in fuzz_vector fuzz_validate fuzz_execute fuzz_reply; do
    rm -rf "${out:?}/$target"
    mkdir -p "$out/$target" || exit 2
done

# fuzz_vector: golden vectors (a sample) and malformed vectors, with the mode byte.
# An eval case is made from a vector (one line per tensor; outputs are the
# lines with "expected" or "xxh3") by removing what eval computes: expected,
# xxh3, min_feature_level, and the outputs' sizes and strides, which eval
# infers.  An any_of inside expected leaves the line malformed: a seed still.
eval_sed=$out/eval_case.sed
cat > "$eval_sed" <<'EOF'
/"expected"/s/, "sizes": \[[^]]*\]//
/"expected"/s/, "strides": \[[^]]*\]//
/"xxh3"/s/, "sizes": \[[^]]*\]//
/"xxh3"/s/, "strides": \[[^]]*\]//
s/, "xxh3": "[0-9a-f]*"//
s/, "expected": \[[^]]*\]//
/"min_feature_level"/d
EOF
vectors=0
n=0
for f in $(cd "$repo" && find vectors -name '*.json' ! -name schema.json | LC_ALL=C sort); do
    n=$((n + 1))
    # the sample, and every vector at a level other than the default 6_4 (a
    # score of them: the level-specific rules a sample would miss)
    if [ $(((n - 1) % every)) -ne 0 ] && grep -q '"feature_level": "6_4"' "$repo/$f"; then
        continue
    fi
    size=$(wc -c < "$repo/$f")
    [ "$size" -lt "$max_bytes" ] || continue
    name=$(printf '%s' "${f#vectors/}" | tr '/' '_')
    { printf '0'; cat "$repo/$f"; } > "$out/fuzz_vector/v0_$name"
    { printf 'q'; sed -f "$eval_sed" "$repo/$f"; } > "$out/fuzz_vector/v1_$name"
    vectors=$((vectors + 1))
done
rm -f "$eval_sed"
malformed=0
for f in "$repo"/tests/cli/malformed/*.json; do
    name=$(basename "$f")
    { printf '0'; cat "$f"; } > "$out/fuzz_vector/m0_$name"
    { printf '1'; cat "$f"; } > "$out/fuzz_vector/m1_$name"
    malformed=$((malformed + 1))
done

# fuzz_validate: op byte (op index 0..4), level byte (15: 6_4), attributes,
# then tensors (mode, rank, type, sizes..., total mode, flags, alignment):
# here four rank-2 FLOAT32 {2, 3} tensors.
t='\000\002\001\002\003\000\000\000'
printf "\001\017\000\000\000$t$t$t$t" > "$out/fuzz_validate/gather_elements"
printf "\000\017\001\000\000$t$t$t$t" > "$out/fuzz_validate/scatter"
printf "\002\017\002\002\000$t$t$t$t" > "$out/fuzz_validate/gather_nd"
printf "\003\017\000\000\000$t$t$t$t" > "$out/fuzz_validate/nonzero"
printf "\004\017\002\002\001$t$t$t$t" > "$out/fuzz_validate/gather_nd1"
printf '' > "$out/fuzz_validate/empty"

# fuzz_execute: op, level (0: latest), policy and threads, mode, rank, dtype,
# index type, three attribute bytes, sizes; the rest reads as zeros.  The
# "large" ones (mode bits 2..4: every size 4; rank 8; 65536 output elements: the
# axis size 4 for GatherElements and Scatter, m = 8, q = 2, k = 1 for GatherND)
# reach the parallel paths.
for op in 0 1 2 3 4; do
    e=$out/fuzz_execute/op$op
    printf "\00$op\000\000\002\002\001\000\001\001\000\001\002" > "$e"
    printf "\00$op\000\001\002\003\011\003\001\001\000\003\003\003\003" > "${e}_4d"
    case $op in
    2 | 4) printf "\00$op\000\004\036\007\001\000\007\001\000\000" > "${e}_8d_large" ;;
    *) printf "\00$op\000\004\036\007\001\000\001\007\000\003" > "${e}_8d_large" ;;
    esac
done
printf '' > "$out/fuzz_execute/empty"

# fuzz_reply: a header (byte 0: the built-in case in bits 0..2, the output
# buffers in bits 3..4, bit 5: raise the limit on a line too long; byte 1: the
# line limit, 8192 for 377 and 64 for 000; bytes 2..5: chunk sizes, 0 for all
# the room the reader offers), then what the process writes.  The cases'
# names, in fuzz_reply.c's order:
ge=gather_elements/float32/2d/doc_example
se=scatter_elements/int8/2d/axis0_int64_strided_output
nz=nonzero_coordinates/float16/2d/density250_n2_strided_output
nd=gather_nd/float16/2d/m2_q1_b0_k2_int32_strided_output
f64=gather_elements/float64/2d/axis0_int64_packed
u64=gather_elements/uint64/2d/axis1_int32_strided_output
nd1=gather_nd1/int64/2d/m2_q2_b1_k1_int32_packed
td9=gather_elements/float32/2d/error_output_total_bytes_below_minimum
r=$out/fuzz_reply
replies=0
# reply NAME HEADER LINE...: one seed, each LINE followed by a newline
reply() {
    file=$r/$1
    printf "$2" > "$file"
    shift 2
    printf '%s\n' "$@" >> "$file"
    replies=$((replies + 1))
}
whole='\377\000\000\000\000' # max_line 8192, whole chunks
cut='\377\001\002\003\007'  # max_line 8192, chunks of 1, 2, 3, 7 bytes
ok_ge='{"name": "'$ge'", "outputs": {"OutputTensor": [4, 8, 3, 7, 2, 3]}}'
ok_se='{"name": "'$se'", "outputs": {"OutputTensor": [101, -102]}}'
ok_nz='{"name": "'$nz'", "outputs": {"OutputCountTensor": [2], "OutputCoordinatesTensor": [1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0]}}'
ok_nd='{"name": "'$nd'", "outputs": {"OutputTensor": [-1]}}'
ok_f64='{"name": "'$f64'", "outputs": {"OutputTensor": [0.5, 1.5, 0.5]}}'
ok_u64='{"name": "'$u64'", "outputs": {"OutputTensor": ["11400714819323198485", "15755400384260043839"]}}'
ok_nd1='{"name": "'$nd1'", "outputs": {"OutputTensor": ["81985529216486895"]}}'
ok_td9='{"name": "'$td9'", "outputs": {"OutputTensor": [1.5, 0.5, -1, -2, -3, 2.5]}}'
refuse_td9='{"name": "'$td9'", "status": "error", "message": "OutputTensor: TotalTensorSizeInBytes 20 is below 24", "error": {"status": "DMLREF_ERROR_INVALID_TOTAL_SIZE", "rule": "R-TD-9"}}'
reply ok_ge "\000$whole" "$ok_ge"
reply ok_se "\001$whole" "$ok_se"
reply ok_nz "\002$whole" "$ok_nz"
reply ok_nd "\003$whole" "$ok_nd"
reply ok_f64 "\004$whole" "$ok_f64"
reply ok_u64 "\005$whole" "$ok_u64"
reply ok_nd1 "\006$whole" "$ok_nd1"
reply ok_td9 "\007$whole" "$ok_td9"
reply ok_td9_total "\017$whole" "$ok_td9" # buffers of TotalTensorSizeInBytes: one element past
reply ok_nz_null "\022$whole" "$ok_nz"    # NULL buffers: checked only
reply refuse_td9 "\007$whole" "$refuse_td9"
reply refuse_status_only "\007$whole" \
    '{"name": "'$td9'", "status": "error", "error": {"status": "DMLREF_ERROR_INVALID_TOTAL_SIZE"}}'
reply refuse_rule_only "\000$whole" '{"name": "'$ge'", "status": "error", "error": {"rule": "R-GE-3"}}'
reply refuse_plain "\001$whole" '{"name": "'$se'", "status": "error", "message": "IndicesTensor[1, 0] = 2 is out of range"}'
reply unsupported "\002$whole" '{"name": "'$nz'", "status": "unsupported", "message": "FLOAT16 is not implemented"}'
reply floats "\003$whole" '{"name": "'$nd'", "outputs": {"OutputTensor": ["nan"]}}' \
    '{"name": "'$nd'", "outputs": {"OutputTensor": ["0x7e01"]}}' \
    '{"name": "'$nd'", "outputs": {"OutputTensor": [-0.0]}}' \
    '{"name": "'$f64'", "outputs": {"OutputTensor": [-0.0, "-inf", "0x7ff8000000000001"]}}'
reply floats64 "\004$whole" '{"name": "'$f64'", "outputs": {"OutputTensor": ["inf", "-inf", "0x7ff8000000000001"]}}' \
    '{"name": "'$f64'", "outputs": {"OutputTensor": [1e308, 5e-324, -0.0]}}'
reply integers "\005$whole" '{"name": "'$u64'", "outputs": {"OutputTensor": [9007199254740992, "18446744073709551615"]}}' \
    '{"name": "'$u64'", "outputs": {"OutputTensor": [9007199254740993, "18446744073709551616"]}}'
reply integers64 "\006$whole" '{"name": "'$nd1'", "outputs": {"OutputTensor": ["-9223372036854775808"]}}' \
    '{"name": "'$nd1'", "outputs": {"OutputTensor": ["-0"]}}'
# malformed: each a different rule of the reply's schema
reply bad_json "\000$whole" 'hello' '{"name": ' '' ' ' '[]' '{"name": "'$ge'", "name": "'$ge'"}'
reply bad_name "\000$whole" '{"name": "gather_elements/float32/2d/other", "status": "unsupported"}' \
    '{"status": "unsupported"}' '{"name": 7, "status": "unsupported"}'
reply bad_keys "\000$whole" '{"name": "'$ge'", "outputs": {"OutputTensor": [4, 8, 3, 7, 2, 3]}, "extra": 1}' \
    '{"name": "'$ge'", "outputs": {"OutputTensor": [4, 8, 3, 7, 2, 3]}, "status": "error"}' \
    '{"name": "'$ge'", "outputs": {"OutputTensor": [4, 8, 3, 7, 2, 3], "InputTensor": [1]}}' \
    '{"name": "'$ge'", "outputs": {}}' '{"name": "'$ge'", "outputs": []}' '{"name": "'$ge'"}'
reply bad_elements "\001$whole" '{"name": "'$se'", "outputs": {"OutputTensor": [101]}}' \
    '{"name": "'$se'", "outputs": {"OutputTensor": [128, -129]}}' \
    '{"name": "'$se'", "outputs": {"OutputTensor": [1.5, "1"]}}' \
    '{"name": "'$se'", "outputs": {"OutputTensor": [null, true]}}' \
    '{"name": "'$se'", "outputs": {"OutputTensor": [[1], {"any_of": [1]}]}}'
reply bad_status "\007$whole" '{"name": "'$td9'", "status": "refused"}' \
    '{"name": "'$td9'", "status": "error", "error": {"status": "DMLREF_OK"}}' \
    '{"name": "'$td9'", "status": "error", "error": {"status": "DMLREF_ERROR_NOT_A_STATUS"}}' \
    '{"name": "'$td9'", "status": "unsupported", "error": {"rule": "R-TD-9"}}' \
    '{"name": "'$td9'", "status": "error", "error": "R-TD-9"}' \
    '{"name": "'$td9'", "status": "error", "error": {"rule": "R-TD-9-and-a-rule-id-far-longer-than-any-rule-of-docs-rules-md"}}' \
    '{"name": "'$td9'", "status": "error", "error": {"rule": 9, "why": 1}}' \
    '{"name": "'$td9'", "status": "error", "message": 1}'
# streams: every case's reply on one stream, cut into small chunks; lines
# that pass a 64-byte limit, with and without the limit raised; blank and CRLF
# lines; a last line without its newline
reply stream_cut "\000$cut" "$ok_ge" "$ok_ge" "$ok_se" "" "$ok_nz"
reply stream_small_limit "\001\000\000\000\000\000" '{"status": "unsupported"}' "$ok_se" "$ok_se"
reply stream_raise "\041\000\005\000\011\001" "$ok_se" '{"name": "'$se'", "status": "unsupported"}'
reply stream_crlf "\002$cut" "$ok_nz$(printf '\r')" "$ok_nz"
reply stream_unterminated "\003$whole" "$ok_nd"
printf '%s' "$ok_nd" >> "$r/stream_unterminated"
reply empty_stream "\000$whole"
printf '\n\n\n' >> "$r/empty_stream"

echo "seeds: $vectors golden vectors and $malformed malformed vectors (2 modes each)" \
    "for fuzz_vector, hand-made ones for fuzz_validate and fuzz_execute, $replies reply" \
    "streams for fuzz_reply, in $out"
