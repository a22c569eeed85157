#!/bin/sh
# tests/cli/test_show.sh DMLREF_BINARY
#
# dmlref show end to end, each check able to fail:
#   - its exact text for committed vectors: a packed case, a Scatter target
#     with any_of values, NonZero with N below the rank and undefined rows,
#     NonZero's coordinates bound with strides {2, 2M}, a padded layout, a
#     broadcast one, a vector with a permitted variant;
#   - a case without expected values is computed (any_of from duplicate
#     updates, a broadcast input), and says so;
#   - a vector that gives an output by its digest alone is computed, and the
#     text says whether the digest matches (an altered one does not);
#   - cases that must be refused: with data, and with descriptors only;
#   - a case that dmlref refuses to execute, and --level at which the
#     vector is invalid: shown, with the reason, exit 0;
#   - several paths (files and a folder), one blank line between vectors;
#   - malformed and missing files: exit 2, the message names the file, the
#     other files are still shown (a missing operand first too); usage
#     errors exit 3; help show;
#   - a vector the reader refuses at its own level (a feature level, Axis,
#     dtype, alignment or flags it breaks) that carries expected values:
#     shown with the reason, never a crash (explain too); a header never
#     claims values the vector does not give, and a digest or values that
#     contradict what dmlref computes are said, as verify says them;
#   - notes with control characters, C1 and bidirectional controls are
#     printed escaped by show and explain;
#   - every vector under vectors/ in one run: exit 0, nothing on stderr, a
#     header per vector in the order of the files, no vector's text above
#     64 KiB, the same text on 1 thread and on 3.
# Ends with "N passed, N failed"; exits 1 if any check failed.

set -u

run_limit=120 # a vector that makes show hang fails, not stalls the run
# shellcheck source=tests/cli/dmlref_binary.sh
. "$(dirname "$0")/dmlref_binary.sh" # tests/cli/lib.sh, $bin, run, expect_rc, has, lacks

vectors=$root/vectors
make_tmp show

# quiet NAME: nothing on stderr
quiet() {
    if [ -s "$tmp/$1.err" ]; then
        bad "$1: wrote to stderr" "$tmp/$1.err"
    else
        ok
    fi
}

# exact NAME ARGS... <<EOF: dmlref show ARGS exits 0, says nothing on stderr
# and prints the text of standard input byte for byte
exact() {
    name=$1
    shift
    cat >"$tmp/$name.expected"
    if expect_rc "$name" 0 show "$@"; then
        if [ -s "$tmp/$name.err" ]; then
            bad "$name: wrote to stderr" "$tmp/$name.err"
        elif cmp -s "$tmp/$name.expected" "$tmp/$name.out"; then
            ok
        else
            diff -u "$tmp/$name.expected" "$tmp/$name.out" >"$tmp/$name.diff"
            bad "$name: the text differs from the one expected" "$tmp/$name.diff"
        fi
    fi
}

# headers FILE: the vector names that start the texts in FILE, one a line
headers() {
    awk 'NR == 1 || previous == "" { if ($0 ~ /^[a-z0-9_]+\/[^ ]*$/) print } { previous = $0 }' "$1"
}

# ---- the text of committed vectors ---------------------------------------------------

exact doc_example "$vectors/gather_elements/float32/2d/doc_example.json" <<'EOF'
gather_elements/float32/2d/doc_example
  operator:        GATHER_ELEMENTS
  feature level:   6_4 (the case is valid from 3_0)
  attributes:      Axis = 0
  notes:           DirectML's example, corrected: the output DataType is FLOAT32, not UINT32 (S-1,
                   D20)
  outputs:         the expected values the vector gives

InputTensor: FLOAT32 [3, 3], 9 elements, packed
  [[1, 2, 3],
   [4, 5, 6],
   [7, 8, 9]]

IndicesTensor: UINT32 [2, 3], 6 elements, packed
  [[1, 2, 0],
   [2, 0, 0]]

OutputTensor: FLOAT32 [2, 3], 6 elements, packed
  [[4, 8, 3],
   [7, 2, 3]]
EOF

exact scatter_any_of "$vectors/scatter_elements/float32/1d/doc_example1_duplicate.json" <<'EOF'
scatter_elements/float32/1d/doc_example1_duplicate
  operator:        SCATTER_ELEMENTS
  feature level:   6_4 (the case is valid from 3_0)
  attributes:      Axis = 0
  notes:           DirectML's example 1: index 3 appears twice, which the same page calls invalid
                   with no guaranteed winner, so element 3 is 5 or 7, not 7 (S-6, R-SC-10, D4, D20)
  outputs:         the expected values the vector gives

InputTensor: FLOAT32 [5], 5 elements, packed
  [0, 1, 2, 3, 4]

IndicesTensor: UINT32 [4], 4 elements, packed
  [3, 1, 3, 0]

UpdatesTensor: FLOAT32 [4], 4 elements, packed
  [5, 6, 7, 8]

OutputTensor: FLOAT32 [5], 5 elements, packed
  [    8,     6,     2, {5|7},     4]
  {a|b}: any one of these values passes: several updates write the element, and DirectML does not
    say which wins (D4)
EOF

exact nonzero_n_below_rank "$vectors/nonzero_coordinates/float32/4d/doc_example.json" <<'EOF'
nonzero_coordinates/float32/4d/doc_example
  operator:        NONZERO_COORDINATES
  feature level:   3_0 (the case is valid from 3_0)
  notes:           DirectML's example: -0.0 is zero; rows 4-7 are undefined, not [0,0,0] (S-12,
                   R-NZ-14, D20); N = 3 < 4 takes the last three dimensions (R-NZ-13, D8: inferred
                   rule R-NZ-13)
  outputs:         the expected values the vector gives

InputTensor: FLOAT32 [1, 1, 2, 4], 8 elements, packed
  [[[[                 1,                  0,                  0,                  2],
     [              -0.0,                3.5,                  0, -5.199999809265137]]]]

OutputCountTensor: UINT32 [1, 1, 1, 1], 1 element, packed
  count: 4

OutputCoordinatesTensor: UINT32 [1, 1, 8, 3], 24 elements, packed
  columns: input dimensions 1 to 3, the last 3 of 4 (R-NZ-13); row r: the r-th non-zero input
    element, in row-major order (R-NZ-12)
        dim1  dim2  dim3
    0:     0     0     0
    1:     0     0     3
    2:     0     1     1
    3:     0     1     3
  4-7:     ?     ?     ?
  '?': undefined, any value passes: rows at or past the count (R-NZ-14)
EOF

exact nonzero_strided_coordinates "$vectors/nonzero_coordinates/uint8/3d/n_at_effective_rank_ort_layout.json" <<'EOF'
nonzero_coordinates/uint8/3d/n_at_effective_rank_ort_layout
  operator:        NONZERO_COORDINATES
  feature level:   6_4 (the case is valid from 4_0)
  notes:           coordinates written with strides {2, 2M}, as ONNX Runtime binds them (R-TD-17,
                   R-NZ-15); N = 2 < D takes the last two dimensions (inferred rule R-NZ-13, D8)
  outputs:         the expected values the vector gives

InputTensor: UINT8 [1, 2, 2], 4 elements, packed
  [[[0, 7],
    [7, 0]]]

OutputCountTensor: UINT32 [1], 1 element, packed
  count: 2

OutputCoordinatesTensor: UINT32 [4, 2], 8 elements, strides [2, 8]
  permuted: in memory, from the outermost dimension to the innermost: 1, 0
  padding: 7 of the 15 element slots hold no element
  TotalTensorSizeInBytes 60: what its strides need; packed it would be 32
  logical view:
  columns: input dimensions 1 and 2, the last 2 of 3 (R-NZ-13); row r: the r-th non-zero input
    element, in row-major order (R-NZ-12)
        dim1  dim2
    0:     0     1
    1:     1     0
  2-3:     ?     ?
  '?': undefined, any value passes: rows at or past the count (R-NZ-14)
  element offsets, where each element lies:
  [[ 0,  8],
   [ 2, 10],
   [ 4, 12],
   [ 6, 14]]
  memory, 15 element slots of 4 bytes ('.': no element there):
  0:  0  .  1  .  ?  .  ?  .
  8:  1  .  0  .  ?  .  ?
EOF

exact padded "$vectors/gather_elements/float32/2d/axis1_uint64_padded.json" <<'EOF'
gather_elements/float32/2d/axis1_uint64_padded
  operator:        GATHER_ELEMENTS
  feature level:   6_4 (the case is valid from 3_0)
  attributes:      Axis = 1
  outputs:         the expected values the vector gives

InputTensor: FLOAT32 [3, 4], 12 elements, strides [5, 1]
  padding: 2 of the 14 element slots hold no element
  TotalTensorSizeInBytes 56: what its strides need; packed it would be 48
  logical view:
  [[0.5,  -1, 1.5,  -2],
   [2.5,  -3, 3.5,  -4],
   [4.5,  -5, 5.5,  -6]]
  element offsets, where each element lies:
  [[ 0,  1,  2,  3],
   [ 5,  6,  7,  8],
   [10, 11, 12, 13]]
  memory, 14 element slots of 4 bytes ('.': no element there):
   0:  0.5   -1  1.5   -2    .
   5:  2.5   -3  3.5   -4    .
  10:  4.5   -5  5.5   -6

IndicesTensor: UINT64 [3, 5], 15 elements, strides [6, 1]
  padding: 2 of the 17 element slots hold no element
  TotalTensorSizeInBytes 136: what its strides need; packed it would be 120
  logical view:
  [[0, 3, 3, 3, 3],
   [3, 0, 3, 2, 2],
   [1, 1, 0, 3, 2]]
  element offsets, where each element lies:
  [[ 0,  1,  2,  3,  4],
   [ 6,  7,  8,  9, 10],
   [12, 13, 14, 15, 16]]
  memory, 17 element slots of 8 bytes ('.': no element there):
   0:  0  3  3  3  3  .
   6:  3  0  3  2  2  .
  12:  1  1  0  3  2

OutputTensor: FLOAT32 [3, 5], 15 elements, strides [6, 1]
  padding: 2 of the 17 element slots hold no element
  TotalTensorSizeInBytes 68: what its strides need; packed it would be 60
  logical view:
  [[0.5,  -2,  -2,  -2,  -2],
   [ -4, 2.5,  -4, 3.5, 3.5],
   [ -5,  -5, 4.5,  -6, 5.5]]
  element offsets, where each element lies:
  [[ 0,  1,  2,  3,  4],
   [ 6,  7,  8,  9, 10],
   [12, 13, 14, 15, 16]]
  memory, 17 element slots of 4 bytes ('.': no element there):
   0:  0.5   -2   -2   -2   -2    .
   6:   -4  2.5   -4  3.5  3.5    .
  12:   -5   -5  4.5   -6  5.5
EOF

exact broadcast_3d "$vectors/gather_elements/float32/3d/axis0_uint32_broadcast_input.json" <<'EOF'
gather_elements/float32/3d/axis0_uint32_broadcast_input
  operator:        GATHER_ELEMENTS
  feature level:   6_4 (the case is valid from 3_0)
  attributes:      Axis = 0
  outputs:         the expected values the vector gives

InputTensor: FLOAT32 [3, 1, 2], 6 elements, strides [0, 2, 1]
  broadcast: stride 0 along dimension 0; its 6 coordinates read 2 elements
  TotalTensorSizeInBytes 8: what its strides need; packed it would be 24
  logical view:
  [[[0.5,  -1]],

   [[0.5,  -1]],

   [[0.5,  -1]]]
  element offsets, where each element lies:
  [[[0, 1]],

   [[0, 1]],

   [[0, 1]]]
  memory, 2 element slots of 4 bytes:
  0:  0.5   -1

IndicesTensor: UINT32 [4, 1, 2], 8 elements, packed
  [[[0, 2]],

   [[2, 1]],

   [[2, 1]],

   [[0, 2]]]

OutputTensor: FLOAT32 [4, 1, 2], 8 elements, packed
  [[[0.5,  -1]],

   [[0.5,  -1]],

   [[0.5,  -1]],

   [[0.5,  -1]]]
EOF

exact variant "$vectors/nonzero_coordinates/float32/1d/subnormal.json" <<'EOF'
nonzero_coordinates/float32/1d/subnormal
  operator:        NONZERO_COORDINATES
  feature level:   6_4 (the case is valid from 4_0)
  notes:           subnormals are non-zero, as IEEE says (D7); a GPU that flushes them to zero
                   disagrees (R-NZ-10): this category is kept apart
  outputs:         the expected values the vector gives
  variants:        subnormals_flushed (R-NZ-10): another whole answer DirectML allows, shown last

InputTensor: FLOAT32 [4], 4 elements, packed
  [  1.401298464324817e-45,                    -0.0, -1.1754942106924411e-38,
                         0]

OutputCountTensor: UINT32 [1], 1 element, packed
  count: 2

OutputCoordinatesTensor: UINT32 [4, 1], 4 elements, packed
  column: input dimension 0; row r: the r-th non-zero input element, in row-major order (R-NZ-12)
        dim0
    0:     0
    1:     2
  2-3:     ?
  '?': undefined, any value passes: rows at or past the count (R-NZ-14)

variant subnormals_flushed (R-NZ-10): a conforming implementation may write these outputs instead
OutputCountTensor:
  count: 0
OutputCoordinatesTensor:
  column: input dimension 0; row r: the r-th non-zero input element, in row-major order (R-NZ-12)
        dim0
  0-3:     ?
  '?': undefined, any value passes: rows at or past the count (R-NZ-14)
EOF

# ---- a case without expected values ----------------------------------------------------

# duplicate targets (row 0 writes element [0, 0] twice) from a broadcast input
cat >"$tmp/case.json" <<'EOF'
{"format": "dmlref-vector-1", "name": "scatter_elements/float32/2d/my_case",
 "operator": "SCATTER_ELEMENTS", "attributes": {"Axis": 1},
 "tensors": {
  "InputTensor": {"dtype": "FLOAT32", "sizes": [2, 3], "data": [1, 2, 3, 4, 5, 6]},
  "IndicesTensor": {"dtype": "INT32", "sizes": [2, 2], "data": [0, 0, -1, 1]},
  "UpdatesTensor": {"dtype": "FLOAT32", "sizes": [2, 2], "strides": [0, 1], "data": [7, 8, 7, 8]},
  "OutputTensor": {"dtype": "FLOAT32"}
 }}
EOF
exact case_computed "$tmp/case.json" <<'EOF'
scatter_elements/float32/2d/my_case
  operator:        SCATTER_ELEMENTS
  feature level:   6_4 (the case is valid from 3_0)
  attributes:      Axis = 1
  outputs:         computed by dmlref: the case gives no expected values

InputTensor: FLOAT32 [2, 3], 6 elements, packed
  [[1, 2, 3],
   [4, 5, 6]]

IndicesTensor: INT32 [2, 2], 4 elements, packed
  [[ 0,  0],
   [-1,  1]]

UpdatesTensor: FLOAT32 [2, 2], 4 elements, strides [0, 1]
  broadcast: stride 0 along dimension 0; its 4 coordinates read 2 elements
  TotalTensorSizeInBytes 8: what its strides need; packed it would be 16
  logical view:
  [[7, 8],
   [7, 8]]
  element offsets, where each element lies:
  [[0, 1],
   [0, 1]]
  memory, 2 element slots of 4 bytes:
  0:  7  8

OutputTensor: FLOAT32 [2, 3], 6 elements, packed
  [[{7|8},     2,     3],
   [    4,     8,     7]]
  {a|b}: any one of these values passes: several updates write the element, and DirectML does not
    say which wins (D4)
EOF

# an index out of range: the inputs are shown, and why there are no outputs
sed 's/-1, 1/-9, 1/' "$tmp/case.json" >"$tmp/case_oob.json"
if expect_rc case_refused 0 show "$tmp/case_oob.json"; then
    quiet case_refused
    has case_refused out "  outputs:         none: dmlref refuses to execute the case: SCATTER_ELEMENTS:"
    has case_refused out "IndicesTensor[1, 0] ="
    has case_refused out "[-9,  1]]"
    lacks case_refused out "$tmp"
    lacks case_refused out "{7|8}"
fi

# ---- outputs given by their digest alone ---------------------------------------------------

large=$vectors/gather_elements/float32/2d/large_1m_random.json
if expect_rc digest 0 show "$large"; then
    quiet digest
    has digest out "computed by dmlref: the vector gives OutputTensor by its digest only, which the"
    has digest out "computed values match"
    has digest out "OutputTensor: FLOAT32 [1024, 1024], 1048576 elements, packed"
    has digest out "summarised: the first and last elements along each dimension"
    lacks digest out "NOT"
fi
xxh3=$(sed -n 's/.*"xxh3": "\([0-9a-f]*\)".*/\1/p' "$large")
if [ "$xxh3" = 9955b0907611e530 ]; then
    sed "s/$xxh3/0123456789abcdef/" "$large" >"$tmp/wrong_digest.json"
    if expect_rc wrong_digest 0 show "$tmp/wrong_digest.json"; then
        has wrong_digest out "computed values do NOT match"
    fi
else
    bad "the digest of $large is not the one this script knows ($xxh3)"
fi

# ---- cases that must be refused ---------------------------------------------------------

exact refused "$vectors/gather_elements/float32/2d/error_output_stride_zero_r-td-16.json" <<'EOF'
gather_elements/float32/2d/error_output_stride_zero_r-td-16
  operator:        GATHER_ELEMENTS
  feature level:   6_4
  attributes:      Axis = 1
  must be refused: DMLREF_ERROR_OUTPUT_ALIASING (D6)

InputTensor: FLOAT32 [2, 3], 6 elements, packed
  [[0.5,  -1, 1.5],
   [ -2, 2.5,  -3]]

IndicesTensor: INT64 [2, 3], 6 elements, packed
  [[1, 2, 0],
   [1, 2, 0]]

OutputTensor: FLOAT32 [2, 3], 6 elements, strides [0, 1]
  broadcast: stride 0 along dimension 0
  TotalTensorSizeInBytes 12: what its strides need; packed it would be 24
EOF

exact refused_no_data "$vectors/gather_elements/float32/2d/error_elements_above_2_32.json" <<'EOF'
gather_elements/float32/2d/error_elements_above_2_32
  operator:        GATHER_ELEMENTS
  feature level:   6_4
  attributes:      Axis = 1
  must be refused: DMLREF_ERROR_TENSOR_TOO_LARGE (R-TD-13)
  data:            none: the case gives its descriptors only

InputTensor: FLOAT32 [4294967295, 3], 12884901885 elements, packed
  no data

IndicesTensor: INT64 [4294967295, 3], 12884901885 elements, packed
  no data

OutputTensor: FLOAT32 [4294967295, 3], 12884901885 elements, packed
EOF

# slots past the last element (the total size rounded up to 4 bytes) are not padding
cat >"$tmp/rounded.json" <<'EOF'
{"format": "dmlref-vector-1", "name": "rounded", "operator": "GATHER_ELEMENTS", "attributes": {"Axis": 0},
 "tensors": {"InputTensor": {"dtype": "FLOAT16", "sizes": [4], "strides": [0], "data": [1.5, 1.5, 1.5, 1.5]},
  "IndicesTensor": {"dtype": "INT32", "sizes": [2], "data": [0, -1]},
  "OutputTensor": {"dtype": "FLOAT16"}}}
EOF
if expect_rc rounded 0 show "$tmp/rounded.json"; then
    has rounded out "  after the last element: 1 slot (the total size rounds up to 4 bytes, R-TD-10, or is given larger)"
    lacks rounded out "padding:"
fi

# ---- feature levels ----------------------------------------------------------------------

doc=$vectors/gather_elements/float32/2d/doc_example.json
if expect_rc level 0 show --level 2_0 "$doc"; then
    quiet level
    has level out "  feature level:   2_0 (the case is valid from 3_0)"
    has level out "  validation:      dmlref refuses the case at feature level 2_0: GATHER_ELEMENTS:"
    has level out "[[4, 8, 3],"
fi
if expect_rc level_valid 0 show --level 3_0 "$doc"; then
    lacks level_valid out "validation:"
fi

# ---- cases the reader refuses, with expected values ---------------------------------------

# edit NAME PYTHON: $tmp/NAME.json, doc_example changed by the Python
# statement (v: the vector as a dict)
edit() {
    /usr/bin/python3 - "$doc" "$tmp/$1.json" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(v, open(sys.argv[2], "w"))
PY
}

# A vector that dmlref refuses at its own feature level is read without its
# expected values: each row is doc_example, which carries them, broken one
# way, and the rule the header must name.  Shown with the inputs and the
# reason, exit 0, nothing on stderr; never a crash.
while IFS='|' read -r row change rule; do
    edit "refused_$row" "$change"
    if expect_rc "refused_$row" 0 show "$tmp/refused_$row.json"; then
        quiet "refused_$row"
        has "refused_$row" out "  outputs:         none shown: dmlref refuses the case, and does not read the expected"
        has "refused_$row" out "($rule)"
        has "refused_$row" out "   [7, 8, 9]]"
        lacks "refused_$row" out "[[4, 8, 3],"
    fi
    if expect_rc "explain_refused_$row" 0 explain "$tmp/refused_$row.json"; then
        has "explain_refused_$row" out "refused: "
    fi
done <<'ROWS'
feature_level|v["feature_level"] = "2_1"|R-GE-5
axis|v["attributes"]["Axis"] = 5|R-GE-2
dtype|v["tensors"]["InputTensor"]["dtype"] = "INT32"|R-GE-4
index_dtype|v["tensors"]["IndicesTensor"]["dtype"] = "INT8"|R-IX-1
alignment|v["tensors"]["InputTensor"]["alignment"] = 3|R-TD-14
flags|v["tensors"]["OutputTensor"]["flags"] = 2|R-TD-15
expected_only|v["feature_level"] = "2_1"; del v["tensors"]["OutputTensor"]["xxh3"]|R-GE-5
ROWS

# --level to where the case is valid: the values are computed, and the header
# says why the vector's own are not shown
if expect_rc refused_then_valid 0 show --level 6_4 "$tmp/refused_feature_level.json"; then
    has refused_then_valid out "computed by dmlref: it does not read the expected values of a case it"
    has refused_then_valid out "[[4, 8, 3],"
    lacks refused_then_valid out "by its digest only"
fi

# no expected values, and inputs too large to place: the header says there
# are none, not "the expected values the vector gives"
edit no_values 'v["feature_level"] = "2_1"; t = v["tensors"]; del t["OutputTensor"]["expected"]; del t["OutputTensor"]["xxh3"]; del t["InputTensor"]["data"]; t["InputTensor"]["sizes"] = [100000, 100000, 100000]; t["InputTensor"]["generator"] = {"kind": "bits", "seed": 1}'
if expect_rc no_values 0 show "$tmp/no_values.json"; then
    quiet no_values
    has no_values out "  outputs:         none: dmlref refuses to execute the case: GATHER_ELEMENTS:"
    lacks no_values out "the expected values the vector gives"
fi

# values and a digest that contradict what dmlref computes: said, as verify
# says it
edit given_digest_wrong 'v["tensors"]["OutputTensor"]["xxh3"] = "0123456789abcdef"'
if expect_rc given_digest_wrong 0 show "$tmp/given_digest_wrong.json"; then
    has given_digest_wrong out "the expected values the vector gives, which do NOT match what dmlref computes:"
    has given_digest_wrong out "                   \$.tensors.OutputTensor.xxh3: OutputTensor: expected digest 0123456789abcdef, got"
fi
edit given_values_wrong 'v["tensors"]["OutputTensor"]["expected"][4] = 9; del v["tensors"]["OutputTensor"]["xxh3"]'
if expect_rc given_values_wrong 0 show "$tmp/given_values_wrong.json"; then
    has given_values_wrong out "which do NOT match what dmlref computes:"
    has given_values_wrong out "                   \$.tensors.OutputTensor.expected[4]: OutputTensor[1, 1]: expected 9 (0x41100000),"
fi
lacks doc_example out "NOT"

# ---- text the vector gives ------------------------------------------------------------------

# notes reach the terminal escaped: no escape sequence, carriage return, bell
# or bidirectional control of the vector's is printed as it is
edit notes_controls 'v["notes"] = "red \u001b[31m cr \r bell \u0007 nl \n tab \t rtl \u202e bs \\ caf\u00e9 del \u007f c1 \u009b"'
if expect_rc notes_controls 0 show "$tmp/notes_controls.json"; then
    has notes_controls out '  notes:           red \x1b[31m cr \r bell \x07 nl \n tab \t rtl \u202e bs \\ café del \x7f c1'
    has notes_controls out '                   \u009b'
    if LC_ALL=C grep -q "$(printf '[\033\r\007\177]')" "$tmp/notes_controls.out"; then
        bad "show printed a control character of the notes" "$tmp/notes_controls.out"
    else
        ok
    fi
fi
if expect_rc explain_notes_controls 0 explain "$tmp/notes_controls.json"; then
    has explain_notes_controls out '  notes: red \x1b[31m cr \r bell \x07'
    if LC_ALL=C grep -q "$(printf '[\033\r\007\177]')" "$tmp/explain_notes_controls.out"; then
        bad "explain printed a control character of the notes" "$tmp/explain_notes_controls.out"
    else
        ok
    fi
fi

# ---- several paths ---------------------------------------------------------------------------

if expect_rc twice 0 show "$doc" "$doc"; then
    { cat "$tmp/doc_example.expected" && echo && cat "$tmp/doc_example.expected"; } >"$tmp/twice.expected"
    if cmp -s "$tmp/twice.expected" "$tmp/twice.out"; then
        ok
    else
        bad "show of a vector twice is not its text twice, a blank line between" "$tmp/twice.out"
    fi
fi
folder=$vectors/scatter_elements/float32/1d
if expect_rc folder 0 show "$folder"; then
    quiet folder
    headers "$tmp/folder.out" >"$tmp/folder.names"
    (cd "$vectors" && find scatter_elements/float32/1d -name '*.json' | sed 's/\.json$//' |
        LC_ALL=C sort) >"$tmp/folder.files"
    if [ -s "$tmp/folder.files" ] && cmp -s "$tmp/folder.files" "$tmp/folder.names"; then
        ok
    else
        bad "show of a folder: the vectors shown are not its files, in order" "$tmp/folder.names"
    fi
fi

# ---- bad input and usage errors ---------------------------------------------------------------

printf '{"format": "dmlref-vector-1", "name": ' >"$tmp/truncated.json"
if expect_rc malformed 2 show "$tmp/truncated.json"; then
    has malformed err "$tmp/truncated.json: "
    if [ -s "$tmp/malformed.out" ]; then
        bad "show of a malformed file wrote to stdout" "$tmp/malformed.out"
    else
        ok
    fi
fi
sed 's/"UINT32"/"UINT33"/' "$doc" >"$tmp/bad_dtype.json"
if expect_rc bad_dtype 2 show "$tmp/bad_dtype.json"; then
    has bad_dtype err "$tmp/bad_dtype.json: \$.tensors.IndicesTensor.dtype"
    if [ "$(wc -l <"$tmp/bad_dtype.err")" -eq 1 ]; then
        ok
    else
        bad "bad_dtype: the message is not one line" "$tmp/bad_dtype.err"
    fi
fi
# the other files are still shown
if expect_rc malformed_among 2 show "$doc" "$tmp/truncated.json" "$doc"; then
    has malformed_among err "$tmp/truncated.json: "
    if cmp -s "$tmp/twice.expected" "$tmp/malformed_among.out"; then
        ok
    else
        bad "the files around a malformed one are not shown" "$tmp/malformed_among.out"
    fi
fi
expect_rc missing 2 show "$tmp/no_such_case.json" && has missing err "$tmp/no_such_case.json: cannot open"
# an operand that cannot be read, first or between: the others are shown all
# the same, it is named, exit 2
for order in first between; do
    if [ "$order" = first ]; then
        set -- "$tmp/no_such_case.json" "$doc" "$doc"
    else
        set -- "$doc" "$tmp/no_such_case.json" "$doc"
    fi
    if expect_rc "missing_$order" 2 show "$@"; then
        has "missing_$order" err "$tmp/no_such_case.json: cannot open"
        if cmp -s "$tmp/twice.expected" "$tmp/missing_$order.out"; then
            ok
        else
            bad "show with a missing operand $order: the others are not shown" "$tmp/missing_$order.out"
        fi
    fi
done

expect_rc no_path 3 show && has no_path err "show needs at least one path"
expect_rc bad_option 3 show --frobnicate "$doc" && has bad_option err "show: unknown option"
expect_rc bad_level 3 show --level 9_9 "$doc" && has bad_level err "--level takes a feature level"
expect_rc no_level 3 show "$doc" --level && has no_level err "--level"
expect_rc help_show 0 help show && has help_show out "usage: dmlref show [--level L] PATH..." &&
    has help_show out "{a|b}"

# ---- every vector -------------------------------------------------------------------------------

if OMP_NUM_THREADS=1 run all show "$vectors" && expect_exit all 0 "$tmp/all.err"; then
    quiet all
    headers "$tmp/all.out" >"$tmp/all.names"
    (cd "$vectors" && find . -name '*.json' ! -name schema.json | sed 's#^\./##; s/\.json$//' |
        LC_ALL=C sort) >"$tmp/all.files"
    if [ "$(wc -l <"$tmp/all.files")" -gt 2000 ] && cmp -s "$tmp/all.files" "$tmp/all.names"; then
        ok
    else
        diff "$tmp/all.files" "$tmp/all.names" >"$tmp/all.diff"
        bad "show of vectors/: the vectors shown are not its files, in order" "$tmp/all.diff"
    fi
    largest=$(awk 'NR == 1 || previous == "" { if ($0 ~ /^[a-z0-9_]+\/[^ ]*$/) { if (n > most) most = n; n = 0 } }
                   { n += length($0) + 1; previous = $0 } END { if (n > most) most = n; print most + 0 }' "$tmp/all.out")
    if [ "$largest" -gt 0 ] && [ "$largest" -le 65536 ]; then
        ok
    else
        fail "show of vectors/: a vector's text is $largest bytes, above 64 KiB"
    fi
    if OMP_NUM_THREADS=3 run all3 show "$vectors" && expect_exit all3 0 "$tmp/all3.err"; then
        if cmp -s "$tmp/all.out" "$tmp/all3.out"; then
            ok
        else
            bad "show of vectors/ differs between 1 thread and 3"
        fi
    fi
fi

finish
