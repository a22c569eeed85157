#!/bin/sh
# tests/cli/test_files.sh DMLREF_BINARY
#
# The command never loses or half-writes a file, and its walks never hang:
#   - eval -o OUT on a full disk: exit 2 naming OUT and the reason, the
#     previous OUT intact, no temporary file left;
#   - eval and verify to a full standard output (/dev/full): exit 2;
#   - gen on a full disk: exit 2, nothing left behind; gen into a folder that
#     is not empty: refused (exit 2), the folder untouched; two gens at once
#     into one folder: one suite, whole (one run exits 0, the other 2);
#   - check --json/--junit on a full disk: exit 2, the previous report
#     intact; a report path that is a FIFO is written into, not replaced;
#   - fuzz --out under a regular file, on a full disk and on a read-only one:
#     exit 2, and every file the output names exists;
#   - verify and check --list of a folder with two links to "." (a loop), or
#     with a FIFO named *.json, end at once; a FIFO named MANIFEST, listed in
#     a MANIFEST or named on the command line (verify, eval, check) is
#     refused, never opened;
#   - verify, show and gen of folders that cannot be listed, or whose entries
#     cannot be looked at: each named with the reason, exit 2, never taken
#     for an empty folder (root drops its capabilities with setpriv);
#   - MANIFEST entries: a path outside the suite (.., absolute), a duplicate
#     and a line longer than 4096 bytes are each a FAIL naming the line, exit 2;
#   - every reader of a named file (eval, verify, show, explain, check, a
#     MANIFEST and the files it lists) refuses a FIFO and /dev/zero at once,
#     and a MANIFEST past 64 MiB or a listed file past 1 GiB is refused;
#   - verify, show and check of a folder 2,100 deep, or of a path past
#     PATH_MAX: one line naming the limit, exit 2, never a crash;
#   - gen into an empty mount point (which rename cannot replace): the suite
#     lands whole (skipped, and said, where no tmpfs can be mounted).
# The full disks are small tmpfs mounts (root, or `unshare -rm` otherwise; when
# neither works those checks fail, saying why).  Every command runs under
# `timeout`, so a hang is a failure, not a stuck test.  Uses python3 for a
# process backend that refuses every case.
# Ends with "N passed, N failed"; exits 1 if any check failed.

set -u

# shellcheck source=tests/cli/dmlref_binary.sh
. "$(dirname "$0")/dmlref_binary.sh" # tests/cli/lib.sh, and $bin

vectors=$root/vectors
python=/usr/bin/python3

# Mounting needs root; elsewhere the whole script reruns in a private user and
# mount namespace, once.
if [ "$(id -u)" != 0 ] && [ -z "${DMLREF_FILES_UNSHARED:-}" ] && unshare -rm true 2>/dev/null; then
    DMLREF_FILES_UNSHARED=1 exec unshare -rm sh "$0" "$bin"
fi

make_tmp files
mounts=""
cleanup() {
    for m in $mounts; do
        umount "$m" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/unit/lsan.supp}
export LSAN_OPTIONS

# run NAME SECONDS ARGS...: the binary under timeout, output in $tmp/NAME.out
# and .err, status in $rc; 1 (and a failure) when it hung or a sanitizer spoke
run() {
    name=$1 limit=$2
    shift 2
    run_command "$name" "$limit" "$bin" "$@"
}

# check NAME WANT_RC CONDITION DESCRIPTION: one line, ok or FAIL
# (CONDITION is a shell command run after the status matched)
check() {
    name=$1 want=$2 condition=$3 what=$4
    if [ "$rc" -ne "$want" ]; then
        bad "$name: $what: exit $rc, not $want" "$tmp/$name.err" "$tmp/$name.out"
    elif ! eval "$condition"; then
        bad "$name: $what" "$tmp/$name.err" "$tmp/$name.out"
    else
        ok "$name: $what"
    fi
}

has() { grep -F -q -e "$2" "$tmp/$1.$3"; }
listing() { (cd "$1" && ls -A | tr '\n' ' '); }

# ---- small disks ---------------------------------------------------------------------

# mount_tmpfs DIR OPTIONS: a tmpfs at DIR (unmounted on exit); 1 with the
# reason in $tmp/mount.err when it cannot be
mount_tmpfs() {
    mkdir -p "$1" && mount -t tmpfs -o "$2" tmpfs "$1" 2>"$tmp/mount.err" || return 1
    mounts="$1 $mounts"
}
disk=$tmp/disk
if mount_tmpfs "$disk" size=256k; then
    have_disk=1
else
    have_disk=0
    why_no_disk="cannot mount a tmpfs (needs root, or unshare -rm): $(head -n 1 "$tmp/mount.err")"
fi
readonly_disk=$tmp/readonly
if mount_tmpfs "$readonly_disk" ro,size=64k; then
    have_readonly=1
else
    have_readonly=0
    why_no_readonly="cannot mount a read-only tmpfs: $(head -n 1 "$tmp/mount.err")"
fi

empty_disk() { rm -rf "$disk"/* "$disk"/.[!.]* 2>/dev/null; }
fill_disk() { dd if=/dev/zero of="$disk/filler" bs=4096 >/dev/null 2>&1; }

# ---- test data -------------------------------------------------------------------------

sub=gather_elements/float32/1d
vector=$vectors/$sub/axis0_uint64_packed.json
# more than a page (4 KiB): when truncating the old file frees its page on a
# full disk, writing in place still runs out of space halfway
big_vector=$vectors/scatter_elements/int64/5d/axis2_uint64_strided_output.json
# make_suite DIR: a copy of vectors/$sub with its own MANIFEST (9 vectors)
make_suite() {
    mkdir -p "$1" && cp -R "$vectors/$sub/." "$1/" &&
        grep "^[0-9a-f]\{16\}  $sub/" "$vectors/MANIFEST" | sed "s#  $sub/#  #" >"$1/MANIFEST"
}
make_suite "$tmp/suite" || bad "cannot copy $vectors/$sub"
count=$(wc -l <"$tmp/suite/MANIFEST" | tr -d ' ')

# a process backend that refuses every case: valid cases fail (check exits 1,
# fuzz finds differences to shrink)
cat >"$tmp/refuse_all.py" <<'EOF'
import json, sys
for line in sys.stdin:
    reply = {"name": json.loads(line)["name"], "status": "error", "message": "refused"}
    print(json.dumps(reply), flush=True)
EOF
refuse_all="$python $tmp/refuse_all.py"

# ---- eval -o: whole or not at all ------------------------------------------------------

if [ "$have_disk" = 1 ]; then
    empty_disk
    printf 'previous\n' >"$disk/out.json"
    fill_disk
    if run eval_full_disk 20 eval "$big_vector" -o "$disk/out.json"; then
        check eval_full_disk 2 \
            'has eval_full_disk "$disk/out.json: cannot write: No space left on device" err &&
             [ "$(cat "$disk/out.json")" = previous ] && [ "$(listing "$disk")" = "filler out.json " ]' \
            "eval -o on a full disk: exit 2 with the reason, the previous file intact, no temporary left"
    fi
else
    bad "eval -o on a full disk: $why_no_disk"
fi

# ---- standard output ---------------------------------------------------------------------

if [ -c /dev/full ]; then
    timeout 20 "$bin" eval "$vector" >/dev/full 2>"$tmp/eval_stdout_full.err"
    rc=$?
    check eval_stdout_full 2 'has eval_stdout_full "standard output: cannot write: No space left on device" err' \
        "eval > /dev/full: exit 2 with the reason"
    timeout 20 "$bin" verify "$vector" >/dev/full 2>"$tmp/verify_stdout_full.err"
    rc=$?
    check verify_stdout_full 2 'has verify_stdout_full "standard output: cannot write" err' \
        "verify > /dev/full: exit 2 with the reason"
else
    bad "standard output to a full device: /dev/full is missing"
fi

# ---- gen ---------------------------------------------------------------------------------

if [ "$have_disk" = 1 ]; then
    empty_disk
    if run gen_full_disk 120 gen --out "$disk/suite"; then
        check gen_full_disk 2 'has gen_full_disk "No space left on device" err && [ -z "$(listing "$disk")" ]' \
            "gen on a full disk: exit 2 with the reason, nothing left behind"
    fi
else
    bad "gen on a full disk: $why_no_disk"
fi

mkdir -p "$tmp/gen_stale"
printf 'stale\n' >"$tmp/gen_stale/old.json"
if run gen_not_empty 120 gen --out "$tmp/gen_stale"; then
    check gen_not_empty 2 'has gen_not_empty "the folder is not empty" err && [ "$(listing "$tmp/gen_stale")" = "old.json " ]' \
        "gen into a folder that is not empty: refused, the folder untouched"
fi

# two runs with different seeds at once into one (empty) folder: exactly one
# suite lands, whole, and nothing is left beside it (on a tmpfs where one can
# be mounted: syncing every file to a real disk is slow)
mount_tmpfs "$tmp/race" size=64m || mkdir -p "$tmp/race"
mkdir -p "$tmp/race/suite"
timeout 120 "$bin" gen --seed 1 --out "$tmp/race/suite" >"$tmp/race1.out" 2>"$tmp/race1.err" &
first=$!
timeout 120 "$bin" gen --seed 2 --out "$tmp/race/suite" >"$tmp/race2.out" 2>"$tmp/race2.err" &
second=$!
wait "$first"
rc1=$?
wait "$second"
rc2=$?
if [ "$rc1$rc2" = 02 ] || [ "$rc1$rc2" = 20 ]; then
    if run gen_race 60 verify "$tmp/race/suite"; then
        lines=$(wc -l <"$tmp/race/suite/MANIFEST" | tr -d ' ')
        check gen_race 0 'has gen_race "$lines passed, 0 failed, 0 skipped" out && [ "$(listing "$tmp/race")" = "suite " ]' \
            "two gens into one folder: one exits 0, the other 2, the suite verifies whole"
    fi
else
    bad "two gens into one folder: exits $rc1 and $rc2, not 0 and 2" "$tmp/race1.err" "$tmp/race2.err"
fi

# ---- check's reports ---------------------------------------------------------------------

filter=gather_elements/float32/1d/axis0_uint64_packed
if [ "$have_disk" = 1 ]; then
    empty_disk
    printf 'previous json\n' >"$disk/report.json"
    printf 'previous junit\n' >"$disk/report.xml"
    fill_disk
    if run check_report_full_disk 60 check --exec "$refuse_all" --filter "$filter" \
        --json "$disk/report.json" --junit "$disk/report.xml" "$vectors"; then
        check check_report_full_disk 2 \
            'has check_report_full_disk "report.json: cannot write: No space left on device" err &&
             has check_report_full_disk "report.xml: cannot write: No space left on device" err &&
             [ "$(cat "$disk/report.json")" = "previous json" ] &&
             [ "$(cat "$disk/report.xml")" = "previous junit" ] &&
             [ "$(listing "$disk")" = "filler report.json report.xml " ]' \
            "check --json/--junit on a full disk: exit 2, the previous reports intact"
    fi
else
    bad "check --json/--junit on a full disk: $why_no_disk"
fi

# a report path that is a FIFO: written into (a reader gets the report), not
# replaced by a regular file
mkfifo "$tmp/report.fifo"
timeout 60 cat "$tmp/report.fifo" >"$tmp/report.fifo.copy" &
reader=$!
exec 4>"$tmp/report.fifo" # returns once the reader has the FIFO open
run check_report_fifo 60 check --exec "$refuse_all" --filter "$filter" --json "$tmp/report.fifo" \
    "$vectors"
status=$?
exec 4>&- # the reader sees the end once dmlref closed it too
wait "$reader"
if [ "$status" = 0 ]; then
    check check_report_fifo 1 '[ -p "$tmp/report.fifo" ] && grep -q "\"tool\": \"dmlref check\"" "$tmp/report.fifo.copy"' \
        "check --json FIFO: the report goes through the FIFO, which stays a FIFO"
fi

# ---- fuzz --out -------------------------------------------------------------------------

# fuzz_out NAME DIR WHY WHERE: a run whose shrunk vectors cannot go to DIR
# (WHERE says what DIR is; WHY is the reason expected on stderr)
fuzz_out() {
    name=$1 out=$2 why=$3 where=$4
    run "$name" 120 fuzz --exec "$refuse_all" --seed 1 --cases 4 --shrink 2 --out "$out" || return
    claimed=$(sed -n 's/^    shrunk in [0-9]* runs to \([^:]*\): .*/\1/p' "$tmp/$name.out")
    missing=""
    for f in $claimed; do
        [ -f "$f" ] || missing="$missing $f"
    done
    check "$name" 2 'has "$name" "$why" err && [ -z "$missing" ] && has "$name" "could not be written to" err' \
        "fuzz --out $where: exit 2 with the reason, no file named that was not written${missing:+ (named:$missing)}"
}
printf 'a file\n' >"$tmp/plain_file"
fuzz_out fuzz_out_under_file "$tmp/plain_file/failures" "Not a directory" "under a regular file"
if [ "$have_disk" = 1 ]; then
    empty_disk
    mkdir "$disk/failures"
    fill_disk
    fuzz_out fuzz_out_full_disk "$disk/failures" "No space left on device" "on a full disk"
else
    bad "fuzz --out on a full disk: $why_no_disk"
fi
if [ "$have_readonly" = 1 ]; then
    fuzz_out fuzz_out_read_only "$readonly_disk/failures" "Read-only file system" "on a read-only disk"
else
    bad "fuzz --out on a read-only disk: $why_no_readonly"
fi

# ---- walks ---------------------------------------------------------------------------------

# two links to "." make a naive walk exponential
mkdir -p "$tmp/loops/sub"
cp "$vector" "$tmp/loops/"
cp "$vectors/$sub/axis0_int32_permuted.json" "$tmp/loops/sub/"
ln -s . "$tmp/loops/a"
ln -s . "$tmp/loops/b"
ln -s .. "$tmp/loops/sub/up"
if run verify_loops 20 verify "$tmp/loops"; then
    check verify_loops 0 'has verify_loops "2 passed, 0 failed, 0 skipped" out && has verify_loops "skipped: a folder already walked" err' \
        "verify of a folder with links to . and ..: each vector once, the loops noted"
fi
if run check_loops 20 check --list "$tmp/loops"; then
    check check_loops 0 '[ "$(wc -l <"$tmp/check_loops.out" | tr -d " ")" = 2 ]' \
        "check --list of a folder with links to . and ..: each vector once"
fi
make_suite "$tmp/suite_loop"
ln -s . "$tmp/suite_loop/again"
if run verify_suite_loop 20 verify "$tmp/suite_loop"; then
    check verify_suite_loop 0 'has verify_suite_loop "$count passed, 0 failed, 0 skipped" out' \
        "verify of a suite with a link to itself: every vector once, none unlisted"
fi

# FIFOs are never opened
mkdir -p "$tmp/fifo_folder"
cp "$vector" "$tmp/fifo_folder/"
mkfifo "$tmp/fifo_folder/pipe.json"
if run verify_fifo_in_folder 20 verify "$tmp/fifo_folder"; then
    check verify_fifo_in_folder 0 'has verify_fifo_in_folder "1 passed, 0 failed, 0 skipped" out && has verify_fifo_in_folder "pipe.json: skipped: not a regular file" err' \
        "verify of a folder holding a FIFO named *.json: skipped with a note"
fi
if run check_fifo_in_folder 20 check --list "$tmp/fifo_folder"; then
    check check_fifo_in_folder 0 '[ "$(wc -l <"$tmp/check_fifo_in_folder.out" | tr -d " ")" = 1 ]' \
        "check --list of a folder holding a FIFO named *.json: skipped"
fi

make_suite "$tmp/fifo_manifest"
rm -f "$tmp/fifo_manifest/MANIFEST"
mkfifo "$tmp/fifo_manifest/MANIFEST"
if run verify_fifo_manifest 20 verify "$tmp/fifo_manifest"; then
    check verify_fifo_manifest 2 'has verify_fifo_manifest "MANIFEST: cannot open: not a regular file" err' \
        "verify of a suite whose MANIFEST is a FIFO: exit 2, not a hang"
fi

make_suite "$tmp/fifo_listed"
mkfifo "$tmp/fifo_listed/pipe.json"
echo "0123456789abcdef  pipe.json" >>"$tmp/fifo_listed/MANIFEST"
if run verify_fifo_listed 20 verify "$tmp/fifo_listed"; then
    check verify_fifo_listed 2 'has verify_fifo_listed "pipe.json: cannot read: not a regular file" err && has verify_fifo_listed "$count passed, 1 failed" out' \
        "verify of a suite listing a FIFO: exit 2, the FIFO named"
fi

mkfifo "$tmp/named.json"
if run verify_fifo_named 20 verify "$tmp/named.json"; then
    check verify_fifo_named 2 'has verify_fifo_named "named.json: cannot open: not a regular file" err' \
        "verify FIFO: exit 2, not a hang"
fi
if run eval_fifo_named 20 eval "$tmp/named.json"; then
    check eval_fifo_named 2 'has eval_fifo_named "named.json: cannot open: not a regular file" err' \
        "eval FIFO: exit 2, not a hang"
fi
if run check_fifo_named 20 check --list "$tmp/named.json"; then
    check check_fifo_named 2 'has check_fifo_named "named.json: cannot open: not a regular file" err' \
        "check --list FIFO: exit 2, not a hang"
fi

# Every reader of a file the user names refuses what is not a regular file,
# at once: each command, with a FIFO and with /dev/zero (and what links to
# them), never waits or reads on.
ln -s /dev/zero "$tmp/zero.json"
for command in eval verify show explain "check --list"; do
    for what in fifo zero; do
        name=$(echo "reader_${command}_$what" | tr ' -' '__')
        if [ "$what" = fifo ]; then target=$tmp/named.json; else target=/dev/zero; fi
        # shellcheck disable=SC2086 # $command: the command and its options
        if run "$name" 20 $command "$target"; then
            check "$name" 2 'has "$name" "not a regular file" err' \
                "$command $target: refused as not a regular file, exit 2, not a hang"
        fi
    done
done
if run reader_show_zero_link 20 show "$tmp/zero.json"; then
    check reader_show_zero_link 2 'has reader_show_zero_link "zero.json: cannot open: not a regular file" err' \
        "show of a *.json link to /dev/zero: refused, exit 2"
fi
make_suite "$tmp/zero_manifest"
rm -f "$tmp/zero_manifest/MANIFEST"
ln -s /dev/zero "$tmp/zero_manifest/MANIFEST"
if run verify_zero_manifest 20 verify "$tmp/zero_manifest"; then
    check verify_zero_manifest 2 'has verify_zero_manifest "MANIFEST: cannot open: not a regular file" err' \
        "verify of a suite whose MANIFEST is /dev/zero: refused, exit 2, not read on"
fi
make_suite "$tmp/zero_listed"
ln -s /dev/zero "$tmp/zero_listed/zero.json"
echo "0123456789abcdef  zero.json" >>"$tmp/zero_listed/MANIFEST"
if run verify_zero_listed 20 verify "$tmp/zero_listed"; then
    check verify_zero_listed 2 'has verify_zero_listed "zero.json: cannot read: not a regular file" err' \
        "verify of a suite listing /dev/zero: exit 2, named, not read on"
fi
# files larger than any reader takes: a MANIFEST past 64 MiB, a listed vector
# past 1 GiB (sparse files: nothing is written to the disk)
make_suite "$tmp/huge_manifest"
if truncate -s 65M "$tmp/huge_manifest/MANIFEST" 2>/dev/null; then
    if run verify_huge_manifest 30 verify "$tmp/huge_manifest"; then
        check verify_huge_manifest 2 'has verify_huge_manifest "MANIFEST: larger than 67108864 bytes: not read" err' \
            "verify of a suite whose MANIFEST is 65 MiB: refused, exit 2"
    fi
fi
make_suite "$tmp/huge_listed"
if truncate -s 1100M "$tmp/huge_listed/huge.json" 2>/dev/null; then
    echo "0123456789abcdef  huge.json" >>"$tmp/huge_listed/MANIFEST"
    if run verify_huge_listed 60 verify "$tmp/huge_listed"; then
        check verify_huge_listed 2 'has verify_huge_listed "huge.json: cannot read: File too large" err' \
            "verify of a suite listing a 1.1 GB file: refused, exit 2"
    fi
fi

# ---- deep folders ----------------------------------------------------------------------------

# A walk keeps its own stack: a folder 2,100 deep (a path past PATH_MAX) is
# a failure that names the depth limit, not a crash; the vector above it is
# still found.
#
# deep_tree DIR COUNT NAME: COUNT nested folders NAME below DIR, a copy of
# the vector at the bottom; made one level at a time by moving down, as no
# one path to the bottom fits PATH_MAX (nor does the shell's cd take one)
deep_tree() {
    "$python" - "$1" "$2" "$3" "$vector" <<'PY'
import os, shutil, sys
top, count, name, vector = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.makedirs(top, exist_ok=True)
shutil.copy(vector, top)
with open(vector, "rb") as f:
    text = f.read()
os.chdir(top)
for _ in range(count):
    os.mkdir(name)
    os.chdir(name)
with open("bottom.json", "wb") as f:
    f.write(text)
PY
}
deep_tree "$tmp/deep" 2100 a || bad "cannot make a folder 2,100 deep"
deep_why="not walked: deeper than 256 folders below $tmp/deep"
for command in verify show "check --list"; do
    name=$(echo "deep_$command" | tr ' -' '__')
    # shellcheck disable=SC2086 # $command: the command and its options
    if run "$name" 60 $command "$tmp/deep"; then
        check "$name" 2 'has "$name" "$deep_why" err && [ "$(grep -c "" "$tmp/$name.err")" -eq 1 ]' \
            "$command of a folder 2,100 deep: one line naming the depth limit, exit 2, no crash"
    fi
done
if run deep_verify_count 60 verify "$tmp/deep"; then
    check deep_verify_count 2 'has deep_verify_count "1 passed, 1 failed, 0 skipped" out' \
        "verify of a folder 2,100 deep: the vector above the limit is verified"
fi
# names of 250 bytes: 18 folders make a path past PATH_MAX well within the
# depth limit
deep_tree "$tmp/long_names" 18 "$(printf 'b%.0s' $(seq 250))" || bad "cannot make a path longer than PATH_MAX"
if run long_names_verify 60 verify "$tmp/long_names"; then
    check long_names_verify 2 'has long_names_verify "the path is longer than the system takes (PATH_MAX): not walked" err' \
        "verify of a folder whose path passes PATH_MAX: named with the limit, exit 2"
fi

# ---- gen into a mount point ----------------------------------------------------------------

# An empty mount point cannot be renamed onto (EBUSY): gen fills it from a
# hidden folder inside it.  Mounting needs root or a user namespace: where
# neither is permitted the check is skipped, said, and counted neither way.
mkdir -p "$tmp/mount_point"
if mount -t tmpfs -o size=64m tmpfs "$tmp/mount_point" 2>"$tmp/mount.err"; then
    mounts="$tmp/mount_point $mounts"
    if run gen_mount_point 180 gen --out "$tmp/mount_point"; then
        check gen_mount_point 0 'cmp -s "$vectors/MANIFEST" "$tmp/mount_point/MANIFEST" &&
             [ -z "$(cd "$tmp/mount_point" && ls -A | grep "^\.")" ] && [ -z "$(cd "$tmp" && ls -A | grep "^\.mount_point")" ]' \
            "gen into an empty mount point: the suite lands whole, nothing left beside or hidden"
    fi
    if diff -r -q -x FORMAT.md -x schema.json "$vectors" "$tmp/mount_point" >"$tmp/mount_point.diff" 2>&1; then
        ok "gen_mount_point_same: the suite gen wrote into a mount point is vectors/, byte for byte"
    else
        bad "gen_mount_point_same: the suite gen wrote into a mount point differs from vectors/" \
            "$tmp/mount_point.diff"
    fi
    umount "$tmp/mount_point"
else
    echo "skip gen into a mount point: cannot mount a tmpfs: $(head -n 1 "$tmp/mount.err")"
fi

# ---- folders that cannot be read --------------------------------------------------------

# A folder that cannot be listed, or whose entries cannot be looked at, is
# said with its path and the reason, and is exit 2: never an empty folder,
# never a vector silently left out; the walk still takes the vectors beside
# it.  Root reads any folder, so its runs drop the capabilities that let it
# (setpriv), and the permission bits hold.
unreadable=$tmp/unreadable
mkdir -p "$unreadable/locked" "$unreadable/unsearchable" "$unreadable/readable"
for d in locked unsearchable readable; do
    cp "$vector" "$unreadable/$d/"
done
chmod 000 "$unreadable/locked"
chmod 644 "$unreadable/unsearchable" # listed, but its entries cannot be looked at
as_user=""
if ls "$unreadable/locked" >/dev/null 2>&1; then
    as_user="setpriv --bounding-set -dac_override,-dac_read_search"
fi
# shellcheck disable=SC2086 # $as_user: a command and its arguments, or nothing
if $as_user true 2>/dev/null && ! $as_user ls "$unreadable/locked" >/dev/null 2>&1; then
    locked_why="$unreadable/locked: cannot open: Permission denied"
    unsearchable_why="$unreadable/unsearchable/axis0_uint64_packed.json: cannot open: Permission denied"
    # shellcheck disable=SC2086
    if run_command verify_unreadable 20 $as_user "$bin" verify "$unreadable"; then
        check verify_unreadable 2 'has verify_unreadable "$locked_why" err && has verify_unreadable "$unsearchable_why" err &&
             has verify_unreadable "1 passed, 1 failed, 0 skipped" out' \
            "verify of a folder holding folders that cannot be read: each named with the reason, the readable vector verified, exit 2"
    fi
    # shellcheck disable=SC2086
    if run_command verify_unsearchable 20 $as_user "$bin" verify "$unreadable/unsearchable"; then
        check verify_unsearchable 2 'has verify_unsearchable "$unreadable/unsearchable/MANIFEST: cannot open: Permission denied" err' \
            "verify of a folder whose entries cannot be looked at: its MANIFEST named with the reason, exit 2"
    fi
    # shellcheck disable=SC2086
    if run_command show_unreadable 20 $as_user "$bin" show "$unreadable"; then
        check show_unreadable 2 'has show_unreadable "$locked_why" err && has show_unreadable "$unsearchable_why" err &&
             has show_unreadable "axis0_uint64_packed" out' \
            "show of a folder holding folders that cannot be read: each named, the readable vector shown, exit 2"
    fi
    # shellcheck disable=SC2086
    if run_command gen_unreadable 120 $as_user "$bin" gen --out "$unreadable/locked"; then
        check gen_unreadable 2 'has gen_unreadable "$locked_why" err' \
            "gen into a folder that cannot be read: refused with the reason, not taken for an empty one"
    fi
else
    bad "folders that cannot be read: cannot deny this user a folder (chmod 000${as_user:+, then $as_user})"
fi
chmod 755 "$unreadable/locked" "$unreadable/unsearchable"

# ---- MANIFEST entries -------------------------------------------------------------------

next=$((count + 1))
first_line=$(head -n 1 "$tmp/suite/MANIFEST")
first_name=${first_line#*  }
packed_line=$(grep '  axis0_uint64_packed.json$' "$tmp/suite/MANIFEST")
packed_digest=${packed_line%%  *}

# ../ reaches a real file with the right digest
make_suite "$tmp/dotdot/suite"
cp "$vector" "$tmp/dotdot/outside.json"
echo "$packed_digest  ../outside.json" >>"$tmp/dotdot/suite/MANIFEST"
if run manifest_dotdot 20 verify "$tmp/dotdot/suite"; then
    check manifest_dotdot 2 'has manifest_dotdot "MANIFEST: line $next: ../outside.json: not a path inside the suite" err && has manifest_dotdot "$count passed, 1 failed" out' \
        "a MANIFEST entry with ..: a FAIL naming its line, exit 2"
fi

make_suite "$tmp/absolute"
echo "$packed_digest  $vector" >>"$tmp/absolute/MANIFEST"
if run manifest_absolute 20 verify "$tmp/absolute"; then
    check manifest_absolute 2 'has manifest_absolute "MANIFEST: line $next: $vector: not a path inside the suite" err' \
        "an absolute MANIFEST entry: a FAIL naming its line, exit 2"
fi

make_suite "$tmp/duplicate"
echo "$first_line" >>"$tmp/duplicate/MANIFEST"
if run manifest_duplicate 20 verify "$tmp/duplicate"; then
    check manifest_duplicate 2 'has manifest_duplicate "line $next: $first_name is listed again (first on line 1)" err && has manifest_duplicate "$count passed, 1 failed" out' \
        "a duplicate MANIFEST entry: counted once, a FAIL naming both lines, exit 2"
fi

# a line of 4095 bytes and then a valid entry: read whole, never as two entries
make_suite "$tmp/long"
{
    printf '0000000000000000  '
    head -c 4077 /dev/zero | tr '\0' x
    printf '%s\n' "$packed_line"
} >>"$tmp/long/MANIFEST"
if run manifest_long_line 20 verify "$tmp/long"; then
    check manifest_long_line 2 'has manifest_long_line "MANIFEST: line $next: longer than 4096 bytes" err && has manifest_long_line "$count passed, 1 failed" out' \
        "a MANIFEST line longer than 4096 bytes: a FAIL naming its line, never split"
fi

finish
