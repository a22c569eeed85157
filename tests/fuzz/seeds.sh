#!/bin/sh
# tests/fuzz/seeds.sh OUT_DIR [EVERY [MAX_BYTES]]
#
# Writes the seed corpora of the libFuzzer targets of tests/fuzz/ into
# OUT_DIR/fuzz_vector, OUT_DIR/fuzz_validate and OUT_DIR/fuzz_execute
# (replacing what those folders held).
#
#   fuzz_vector    every EVERY-th golden vector of vectors/ (default 4, in path
#                  order; 1 = all of them) and every one whose feature level is
#                  not the default 6_4, of at most MAX_BYTES bytes (default
#                  16384, the smoke run's -max_len), each as a full vector
#                  ('0' in front: fuzz_vector's first byte picks the reading
#                  mode) and, best effort, as an eval case ('1' in front)
#                  without its expectations and its outputs' sizes; and every
#                  file of tests/malformed/, in both modes.
#   fuzz_validate, fuzz_execute
#                  a few hand-made byte strings, one per operator; libFuzzer
#                  finds the rest.
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

for target in fuzz_vector fuzz_validate fuzz_execute; do
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
    { printf '1'; sed -f "$eval_sed" "$repo/$f"; } > "$out/fuzz_vector/v1_$name"
    vectors=$((vectors + 1))
done
rm -f "$eval_sed"
malformed=0
for f in "$repo"/tests/malformed/*.json; do
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

echo "seeds: $vectors golden vectors and $malformed malformed vectors (2 modes each)" \
    "for fuzz_vector, hand-made ones for fuzz_validate and fuzz_execute, in $out"
