# tests/fuzz/common.sh - what run_smoke.sh and run_long.sh share; sourced
# (". tests/fuzz/common.sh"), not run.  POSIX sh.
#
#   fuzz_setup BUILD_DIR SECONDS   checks the arguments; sets build (absolute
#                                  BUILD_DIR), repo, fuzz (BUILD_DIR/fuzz),
#                                  seconds, timeout; cds to the repository
#   fuzz_build                     1. the library, with ASan, UBSan and
#                                  coverage instrumentation, into BUILD_DIR
#                                  (the flags of the Makefile's SANITIZED:
#                                  its build/sanitize is made this way);
#                                  2. the targets of $fuzz_targets against it,
#                                  into BUILD_DIR/fuzz/, those not current
#   fuzz_seeds                     3. the seeds (seeds.sh) into
#                                  BUILD_DIR/fuzz/seeds/, unless those there
#                                  are newer than what they are made of
#   fuzz_environment               the sanitizers' options for the runs
#   fuzz_target_options TARGET     sets max_len and dict (a -dict= flag or
#                                  empty) for TARGET; creates its corpus and
#                                  artifacts folders
#   fuzz_log_stats LOG             sets execs, cov, corpus and artifact from a
#                                  libFuzzer log (empty when it does not say)
#   fuzz_failure_report TARGET LOG  prints why a run failed: the report's
#                                  first line, its first stack frames, and
#                                  whether the saved input fails again alone
#
# Environment: FUZZ_TARGETS (which targets to build and run, default all
# four), FUZZ_TIMEOUT (seconds one input may take, default 30),
# FUZZ_SEED_EVERY (the vector sample, default every 4th), FUZZ_MAKE_JOBS
# (parallel compiles of the library, default the number of processors).
#
# shellcheck shell=sh
# shellcheck disable=SC2034 # the variables set here are used by the scripts that source it

fuzz_targets=${FUZZ_TARGETS:-fuzz_vector fuzz_validate fuzz_execute fuzz_reply}

fuzz_setup() {
    case $2 in
    '' | *[!0-9]* | 0) echo "$0: SECONDS must be a positive integer" >&2; exit 2 ;;
    esac
    seconds=$2
    timeout=${FUZZ_TIMEOUT:-30}
    mkdir -p "$1" || exit 2
    build=$(cd "$1" && pwd) || exit 2
    repo=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
    fuzz=$build/fuzz
    cd "$repo" || exit 2
}

fuzz_build() {
    # 1. the library, sanitized and instrumented for coverage
    sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    sanitize="$sanitize -fsanitize=fuzzer-no-link"
    force=
    if [ -f "$build/libdmlref.a" ] &&
        ! nm "$build/libdmlref.a" 2>/dev/null | grep -q __sanitizer_cov_trace_cmp; then
        force=-B # built earlier without coverage instrumentation: rebuild
    fi
    jobs=${FUZZ_MAKE_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 4)}
    make --no-print-directory -j"$jobs" $force BUILD="$build" CC=clang OPT="-O1 -g" \
        SANITIZE="$sanitize" "$build/libdmlref.a" ||
        { echo "$0: building the library failed" >&2; exit 2; }

    # 2. the targets; fuzz_reply also takes the protocol's line framing
    mkdir -p "$fuzz" || exit 2
    libs=$(pkg-config --libs jansson libxxhash 2>/dev/null || echo -ljansson -lxxhash)
    for target in $fuzz_targets; do
        fuzz_target_is_current "$target" && continue
        extra=
        case $target in
        fuzz_reply) extra="conformance/line_reader.c" ;;
        esac
        # shellcheck disable=SC2086 # $libs and $extra are lists of flags and files
        clang -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
            -g -O1 -std=c99 -pedantic -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Wundef -Wpointer-arith -Wwrite-strings \
            -Iinclude -Isrc -I. "tests/fuzz/$target.c" $extra "$build/libdmlref.a" $libs -lm -fopenmp \
            -o "$fuzz/$target" || { echo "$0: building $target failed" >&2; exit 2; }
    done
}

# fuzz_target_is_current TARGET: 0 when BUILD_DIR/fuzz/TARGET is newer than
# the library and than every file it is built from (make check's smoke run
# takes the targets its build made)
fuzz_target_is_current() {
    [ -f "$fuzz/$1" ] && ! [ "$build/libdmlref.a" -nt "$fuzz/$1" ] || return 1
    # a find that fails (its message shown) makes the target not current
    newer=$(find include src conformance tests/fuzz \( -name '*.[ch]' -o -name common.sh \) \
        -newer "$fuzz/$1") && [ -z "$newer" ]
}

fuzz_seeds() {
    # 3. the seeds, and the inputs that once found a bug (tests/fuzz/regressions/TARGET/),
    # written again only when what they are made of changed since (the stamp
    # names the sample)
    stamp=$fuzz/seeds/made-from
    every=${FUZZ_SEED_EVERY:-4}
    if [ "$(cat "$stamp" 2>/dev/null)" = "every $every" ] &&
        [ -z "$(find vectors tests/cli/malformed tests/fuzz/seeds.sh tests/fuzz/regressions \
                    -newer "$stamp" 2>/dev/null | head -n 1)" ]; then
        echo "seeds: as made before, in $fuzz/seeds"
        return
    fi
    rm -f "$stamp"
    sh "$repo/tests/fuzz/seeds.sh" "$fuzz/seeds" "$every" 16384 || exit 2
    for found in "$repo"/tests/fuzz/regressions/*/*; do
        [ -f "$found" ] || continue
        target=$(basename "$(dirname "$found")")
        mkdir -p "$fuzz/seeds/$target" && cp "$found" "$fuzz/seeds/$target/" || exit 2
    done
    echo "every $every" > "$stamp"
}

fuzz_environment() {
    # LLVM's OpenMP runtime keeps its thread buffers until exit: the
    # project's suppression file tells LeakSanitizer.
    LSAN_OPTIONS=suppressions=$repo/tests/unit/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
    UBSAN_OPTIONS=print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
    export LSAN_OPTIONS UBSAN_OPTIONS
}

fuzz_target_options() {
    dict=
    case $1 in
    fuzz_vector) max_len=16384 dict=-dict=$repo/tests/fuzz/fuzz_vector.dict ;;
    fuzz_validate) max_len=512 ;;
    fuzz_reply) max_len=4096 dict=-dict=$repo/tests/fuzz/fuzz_reply.dict ;;
    *) max_len=4096 ;;
    esac
    mkdir -p "$fuzz/corpus/$1" "$fuzz/artifacts/$1" || exit 2
}

fuzz_log_stats() {
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -n 1)
    if [ -z "$execs" ]; then # no final stats after a crash: the last status line
        execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$1" | tail -n 1)
    fi
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$1" | tail -n 1)
    corpus=$(grep -o 'corp: [0-9]*/[0-9]*[bKM]*' "$1" | tail -n 1)
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$1" | tail -n 1)
}

fuzz_failure_report() {
    # what the sanitizer, libFuzzer or the OpenMP runtime said, indented
    grep -m 1 -E '^==[0-9]+== ?ERROR|^OMP: Error|deadly signal|^SUMMARY' "$2" | sed 's/^/    /'
    grep -E '^ *#[0-9]+ 0x' "$2" | head -n 6 | sed 's/^ */    /'
    if [ -n "${artifact:-}" ] && [ -f "$artifact" ]; then
        if "$fuzz/$1" -runs=3 "$artifact" > "$2.again" 2>&1; then
            echo "    the input alone passes 3 runs: the failure depends on more than the input; log: $2.again"
        else
            echo "    the input alone fails again: $fuzz/$1 $artifact"
        fi
    fi
}
