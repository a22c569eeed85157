/*
 * main.c - the dmlref command: a thin client of the library and of the
 * layers below (suite, conformance).  This file parses eval, verify and gen
 * and dispatches the others (check_command.c, fuzz_command.c, bench.c).
 *
 *   dmlref eval CASE.json [-o OUT.json] [--threads N] [--kernels reference|fast]
 *   dmlref verify [--threads N] [--kernels reference|fast] PATH...
 *   dmlref gen [--out DIR] [--seed N] [--profile NAME] [--threads N]
 *   dmlref check | fuzz | bench | explain | show ...
 *   dmlref --version | help [COMMAND]
 *
 * Exit codes: 0 success, 1 a comparison failed, 2 bad input, 3 usage.
 */
#include "base/printf_like.h"
#include "cli/cli.h"
#include "platform/console.h"
#include "platform/files.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const k_help_eval =
    "usage: dmlref eval CASE.json [-o OUT.json] [--threads N] [--kernels reference|fast]\n"
    "\n"
    "Fills in a case's expected outputs with the reference: reads CASE.json (a\n"
    "vector whose outputs lack \"expected\" and may lack \"sizes\"), validates it,\n"
    "computes it and writes the complete vector to OUT.json (default: standard\n"
    "output), with the permitted variants that apply (NonZero with subnormal\n"
    "inputs flushed to zero, R-NZ-10: format \"dmlref-vector-2\"). A case with\n"
    "\"expect_error\" is checked to be refused exactly so.\n"
    "OUT.json is written whole or not at all: a temporary file beside it, renamed\n"
    "over it once complete, so a failed write (a full disk) leaves the previous\n"
    "file intact (a device or a pipe, such as /dev/stdout, is written directly).\n"
    "--kernels fast also executes the case with the fast kernels (src/kernels/) and\n"
    "the reference kernels (reference/) side by side, on output buffers prefilled\n"
    "with one pattern: they must give the same status, rule and message and the\n"
    "same bytes in every output buffer, or nothing is written. The expected outputs\n"
    "always come from the reference kernels, the definition (default: reference,\n"
    "which runs them alone).\n"
    "Exit 0, or 2 for a case that is malformed or invalid (the message names the\n"
    "file and the JSON path), that is not a regular file, or for output that\n"
    "cannot be written (standard output included), 1 when an expect_error case is\n"
    "not refused as it says or the fast kernels differ from the reference kernels.\n";

static const char *const k_help_verify =
    "usage: dmlref verify [--threads N] [--kernels reference|fast] PATH...\n"
    "\n"
    "Recomputes every vector under each PATH (files, or folders searched for\n"
    "*.json) with the reference and compares: expected elements bit for bit,\n"
    "digests, min_feature_level, expected errors, permitted variants (each\n"
    "recomputed, and exactly those eval adds). --kernels fast runs every vector on\n"
    "the fast kernels (src/kernels/) instead: their outputs must be the vector's\n"
    "expected ones bit for bit (digests included; not a permitted variant), or\n"
    "their refusal its expected error, status and rule; and they must agree with\n"
    "the reference kernels (reference/) run beside them on output buffers\n"
    "prefilled with one pattern: the same status, rule and message, the same bytes\n"
    "in every output buffer, padding included. A folder holding a MANIFEST is\n"
    "a suite: its listed files are verified, every digest is checked, and a\n"
    "vector missing from the list is a failure. A MANIFEST line must be exactly\n"
    "as gen writes it: \"<16 lowercase hex digits>  <path>\" and a newline (LF),\n"
    "at most 4096 bytes, its path inside the suite (relative, no empty, . or ..\n"
    "part, no leading space, no control character) and listed once: any other\n"
    "line is a failure naming it and the rule; a MANIFEST over 64 MiB is refused.\n"
    "Folders are searched for regular files only (a FIFO is never opened), at\n"
    "most 256 folders deep (a deeper one, or a path longer than the system takes,\n"
    "is a failure naming it); links are followed, but a folder is entered once: a\n"
    "link back to a folder on the way (a loop) or to one already searched is\n"
    "skipped with a note on stderr, not a failure. Prints each failure and ends with\n"
    "\"N passed, N failed, N skipped\". Exit 0, 1 if a vector failed, 2 if one\n"
    "could not be read (or a path is not a regular file or a folder), a MANIFEST\n"
    "line is wrong, or standard output cannot be written.\n";

static const char *const k_help_gen =
    "usage: dmlref gen [--out DIR] [--seed N] [--profile NAME] [--threads N]\n"
    "\n"
    "Writes a whole golden suite to DIR (default: vectors): one vector per case,\n"
    "DIR/MANIFEST and DIR/README.md (the coverage table). The output is the same,\n"
    "byte for byte, for the same seed and profile, on any thread count.\n"
    "DIR must be new or an empty folder; a folder holding anything is refused.\n"
    "The suite is built in a temporary folder beside DIR and renamed into place\n"
    "once complete: on any failure (a full disk) it is removed and DIR is left as\n"
    "it was, and of two runs into one folder at once, one fails (exit 2). An empty\n"
    "DIR that cannot be replaced (a mount point) is filled instead: the suite is\n"
    "copied into a hidden folder inside DIR, then its entries are moved into DIR.\n"
    "(make vectors regenerates vectors/, which also holds FORMAT.md and\n"
    "schema.json, through a new folder.) Exit 0, 2 on any failure.\n"
    "Profiles: default (the committed suite).\n";

static const char *const k_help_fuzz =
    "usage: dmlref fuzz (--backend LIB.so | --exec 'CMD' | --kernels fast) [--seed N]\n"
    "                   [--cases N | --time S] [--operator NAME] [--out DIR] [--timeout S]\n"
    "                   [--shrink N]\n"
    "\n"
    "Differential fuzzing: random cases (operators, data types with NaN payloads, -0.0,\n"
    "infinities and subnormals, index types, ranks 1 to 8, layouts) run on the reference\n"
    "and on the backend. Besides valid cases it draws invalid descriptors (one rule\n"
    "broken; the reference's refusal is the expectation), boundary indices (-s, -1, s-1)\n"
    "and out-of-range ones under both policies. A difference is shrunk (simpler layouts,\n"
    "smaller sizes, fewer dimensions, simpler values, single elements) to a small vector\n"
    "written to --out (default fuzz-failures), which `dmlref check` replays. The first\n"
    "--shrink differences (default 10) are shrunk. The same seed gives the same cases.\n"
    "--kernels fast: the backend is this library's fast kernels (src/kernels/), run in\n"
    "this process beside the reference kernels (reference/) at 1 and 3 threads, on\n"
    "output buffers prefilled with one pattern; besides the judge's verdict, any other\n"
    "status, rule or message, or any other byte in an output buffer (padding included),\n"
    "is a difference, shrunk the same way; `dmlref verify --kernels fast` replays it.\n"
    "Default: 1000 cases. Exit 0 when cases were compared and none differed, 1 when a\n"
    "difference was found, 2 when no case was compared (all skipped, or none run) or\n"
    "a shrunk vector could not be written (the run names only the files it wrote).\n"
    "See docs/fuzz.md.\n";

static const char *const k_help_bench =
    "usage: dmlref bench [--quick] [--threads LIST] [--size LOG2] [--filter TEXT] [--reps N]\n"
    "                    [--oob error|clamp] [--kernels fast|both] [--json FILE] [--csv FILE]\n"
    "                    [--list]\n"
    "\n"
    "Times the library through its public API (index checks included) over a\n"
    "matrix of GatherElements, Scatter, GatherND and NonZeroCoordinates cases: index\n"
    "patterns, layouts, element sizes 1/2/4/8 and INT32/INT64 indices, at 2^24\n"
    "elements and in cache at 2^16. Every case runs with the fast kernels\n"
    "(src/kernels/) and the reference kernels (reference/) side by side, each timed\n"
    "run after a parallel memcpy at the same thread count; throughput counts logical\n"
    "bytes (every tensor read or written once) and the ratio is to the copy's rate\n"
    "(2 bytes per byte copied). Columns: fast_ms, fast_GB/s, fast_ratio, ref_ms,\n"
    "ref_GB/s, ref_ratio, copy_GB/s, and speedup (the reference's time over the fast\n"
    "kernels'); --json and --csv keep the fast kernels as median_ms, gbps, ratio and\n"
    "add reference_median_ms, reference_gbps, reference_ratio and speedup, and\n"
    "index_read_gbps: the index tensor read alone by a plain loop after the same\n"
    "copy (the strict policy's own pass, which requests its lines ahead, may read\n"
    "faster), and\n"
    "case_sized_copy_gbps: a copy of buffers of its own that moves as many bytes\n"
    "as the case, after the same copy (the rate its bytes could at best move at).\n"
    "\n"
    "  --quick         a reduced matrix (2^24, a few in-cache cases), 5 reps\n"
    "  --threads LIST  thread counts, such as 1,2 (default: 1, 2, 4, ... and the maximum)\n"
    "  --size LOG2     only the class of 2^LOG2 elements (12 to 28)\n"
    "  --filter TEXT   only the cases whose name contains TEXT\n"
    "  --reps N        timed runs per case (default 11): the median and the minimum\n"
    "  --oob POLICY    error (default: every index is checked before anything is\n"
    "                  written, a pass of its own) or clamp (the kernels alone)\n"
    "  --kernels fast  time the fast kernels alone: the reference columns show -, and\n"
    "                  --json and --csv leave them null or empty (default: both)\n"
    "  --json FILE, --csv FILE  every result (scripts/report/plot.py draws the JSON)\n"
    "  --list          print the case names and exit\n"
    "\n"
    "The last line is \"worst ratio to copy (sequential cases): R\", the fast kernels'\n"
    "over the packed seq cases of GatherElements and Scatter at the largest size.\n"
    "Exit 0, 2 when a case cannot run or a file cannot be written, 3 for a usage\n"
    "error.\n";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmlref COMMAND [ARGS]\n"
            "\n"
            "  eval CASE.json [-o OUT.json]   fill in the expected outputs of one case\n"
            "  verify [--kernels fast] PATH...  recompute every vector under PATH, compare\n"
            "  gen [--out DIR] [--seed N]     write the golden suite\n"
            "  check (--backend LIB.so | --exec 'CMD') PATH...  run another implementation\n"
            "  fuzz (--backend LIB.so | --exec 'CMD' | --kernels fast) [--seed N] [--cases N]\n"
            "                                 hunt for differences\n"
            "  bench [--quick] [--threads LIST]  time the library against memcpy\n"
            "  explain CASE.json [--element 'OutputTensor[1,0,2]']\n"
            "                                 where each output element comes from, in numbers\n"
            "  show [--level L] PATH...       every tensor of each vector as a nested array\n"
            "  --version                      print the version\n"
            "  help [COMMAND]                 this text, or a command's\n"
            "\n"
            "Exit codes: 0 success, 1 a comparison failed, 2 bad input, 3 usage error.\n"
            "DMLREF_MEMORY_CAP=BYTES caps what one case may make dmlref allocate: its parse tree,\n"
            "buffers and expected values (default 4 GiB).\n");
}

/* The options of eval, verify and gen, parsed with parse_arguments. */
enum { OPT_THREADS = 256, OPT_KERNELS, OPT_OUT, OPT_PROFILE, OPT_SEED };

typedef struct command_options {
    const char *output; /* eval -o, gen --out */
    const char *profile;
    uint64_t threads, seed;
    dmlref_kernels kernels;
} command_options;

static int take_command_option(void *context, int option, const char *value)
{
    command_options *o = context;
    switch (option) {
    case 'o':
    case OPT_OUT:
        o->output = value;
        break;
    case OPT_PROFILE:
        o->profile = value;
        break;
    case OPT_THREADS:
        if (!parse_count(value, DMLREF_MAX_THREADS, &o->threads))
            return usage_error("--threads takes a number from 0 to 1024");
        break;
    case OPT_SEED:
        if (!parse_count(value, UINT64_MAX, &o->seed))
            return usage_error("--seed takes an unsigned number");
        break;
    default: /* OPT_KERNELS */
        if (strcmp(value, "reference") == 0)
            o->kernels = DMLREF_KERNELS_REFERENCE;
        else if (strcmp(value, "fast") == 0)
            o->kernels = DMLREF_KERNELS_FAST;
        else
            return usage_error("--kernels takes reference or fast");
        break;
    }
    return EXIT_OK;
}

static const struct option k_eval_options[] = {{"threads", required_argument, NULL, OPT_THREADS},
                                               {"kernels", required_argument, NULL, OPT_KERNELS},
                                               {NULL, 0, NULL, 0}};
static const struct option k_verify_options[] = {{"threads", required_argument, NULL, OPT_THREADS},
                                                 {"kernels", required_argument, NULL, OPT_KERNELS},
                                                 {NULL, 0, NULL, 0}};
static const struct option k_gen_options[] = {{"out", required_argument, NULL, OPT_OUT},
                                              {"profile", required_argument, NULL, OPT_PROFILE},
                                              {"seed", required_argument, NULL, OPT_SEED},
                                              {"threads", required_argument, NULL, OPT_THREADS},
                                              {NULL, 0, NULL, 0}};

/* The command's options into *o and its operands into *operands: EXIT_OK, or
   the exit code of a usage error (said). */
static int parse_command(const char *command, int argc, char **argv, const char *short_options,
                         const struct option *long_options, command_options *o, path_list *operands)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->kernels = DMLREF_KERNELS_REFERENCE;
    return parse_arguments(command, argc, argv, short_options, long_options, take_command_option, o,
                           operands);
}

static int exit_for(dmlref_status status)
{
    return status == DMLREF_OK               ? EXIT_OK
           : status == DMLREF_ERROR_MISMATCH ? EXIT_DIFFERENCE
                                             : EXIT_BAD_INPUT;
}

/* ---- eval ------------------------------------------------------------------ */

/* eval of one case file into o->output, or stdout. */
static int eval_file(const char *input, const command_options *o)
{
    const char *output = o->output;
    uint64_t threads = o->threads;
    dmlref_kernels kernels = o->kernels;
    dmlref_vector_read_options options = read_options(DMLREF_VECTOR_READ_CASE);
    dmlref_vector *v;
    dmlref_error err;
    dmlref_status status;
    file_facts facts;
    char *text;
    size_t length;
    int code = EXIT_OK;

    if (path_facts(input, &facts) == 0 && facts.kind != FILE_KIND_REGULAR) {
        /* the loader would wait on a FIFO forever */
        fprintf(stderr, "%s: cannot open: not a regular file\n", input);
        return EXIT_BAD_INPUT;
    }

    status = dmlref_vector_load(input, &options, &v, &err);
    if (status != DMLREF_OK) {
        fprintf(stderr, "%s\n", err.message);
        return exit_for(status == DMLREF_ERROR_MISMATCH ? DMLREF_ERROR_VECTOR_SCHEMA : status);
    }
    status = dmlref_vector_eval_with(v, (uint32_t)threads, DMLREF_VECTOR_EVAL_DIGESTS, &err);
    if (status == DMLREF_OK && kernels == DMLREF_KERNELS_FAST) {
        /* the fast kernels must agree with the reference kernels, or nothing is written */
        kernels_comparison k;
        int same = kernels_compare_vector(v, (uint32_t)threads, &k);
        kernels_comparison_free(&k);
        if (!same) {
            fprintf(stderr, "%s: the fast kernels differ from the reference kernels: %s\n", input,
                    k.difference);
            dmlref_vector_free(v);
            return EXIT_DIFFERENCE;
        }
    }
    if (status == DMLREF_OK)
        status = dmlref_vector_write(v, &text, &length, &err);
    if (status != DMLREF_OK) {
        fprintf(stderr, "%s\n", err.message);
        dmlref_vector_free(v);
        return exit_for(status);
    }
    if (output) {
        if (!write_file(output, text, length))
            code = EXIT_BAD_INPUT;
    } else if (fwrite(text, 1, length, stdout) != length) {
        code = EXIT_BAD_INPUT; /* main says why, as for any write to stdout */
    }
    free(text);
    dmlref_vector_free(v);
    return code;
}

static int command_eval(int argc, char **argv)
{
    command_options o;
    path_list operands = {NULL, 0, 0};
    int code = parse_command("eval", argc, argv, "o:", k_eval_options, &o, &operands);
    if (code == EXIT_OK && operands.count > 1)
        code = usage_error("eval takes one case");
    else if (code == EXIT_OK && operands.count == 0)
        code = usage_error("eval needs a case file");
    else if (code == EXIT_OK)
        code = eval_file(operands.items[0], &o);
    list_free(&operands);
    return code;
}

/* ---- verify ------------------------------------------------------------------ */

typedef struct tally {
    unsigned long passed, failed, skipped;
    int bad_input;
} tally;

PRINTF_LIKE(2, 3)
static dmlref_status mismatch(dmlref_error *err, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
    err->status = DMLREF_ERROR_MISMATCH;
    err->rule[0] = '\0';
    return DMLREF_ERROR_MISMATCH;
}

/* verify --kernels fast: the vector's case on the fast kernels, against what
   the vector states (its expected outputs, bit for bit, or its expected
   error) and against the reference kernels run beside them
   (kernels_compare_vector: status, rule, message, every output byte). */
static dmlref_status verify_fast(const char *path, dmlref_vector *v, uint32_t threads,
                                 dmlref_error *err)
{
    kernels_comparison k;
    dmlref_status want, status = DMLREF_OK;
    const char *rule;
    int same = kernels_compare_vector(v, threads, &k);
    const dmlref_error *fast = &k.fast_error;

    if (k.out_of_memory) {
        status = mismatch(err, "%s: %s", path, k.difference);
    } else if (dmlref_vector_expects_error(v, &want, &rule)) {
        if (k.fast_status == DMLREF_OK || k.fast_status != want || strcmp(fast->rule, rule) != 0)
            status = mismatch(err,
                              "%s: $.expect_error: the case expects %s (%s), the fast "
                              "kernels %s %s%s%s%s",
                              path, dmlref_status_name(want), rule,
                              k.fast_status == DMLREF_OK ? "return" : "report",
                              dmlref_status_name(k.fast_status), fast->rule[0] ? " (" : "",
                              fast->rule, fast->rule[0] ? ")" : "");
    } else if (k.fast_status != DMLREF_OK) {
        status = mismatch(err, "%s: $: the fast kernels refuse the case: %s", path, fast->message);
    } else if (dmlref_vector_compare(v, k.outputs, k.output_count, NULL, err) != DMLREF_OK) {
        status = DMLREF_ERROR_MISMATCH; /* the message names the file and the element */
    } else if (k.damage) {
        status = mismatch(err, "%s: the fast kernels %s", path, k.difference);
    }
    if (status == DMLREF_OK && !same)
        status = mismatch(err, "%s: the fast kernels differ from the reference kernels: %s", path,
                          k.difference);
    kernels_comparison_free(&k);
    return status;
}

static void verify_file(const char *path, uint32_t threads, dmlref_kernels kernels, tally *t)
{
    dmlref_vector *v;
    dmlref_error err;
    dmlref_vector_read_options options = read_options(0);
    dmlref_status status = dmlref_vector_load(path, &options, &v, &err);
    if (status == DMLREF_OK) {
        status = kernels == DMLREF_KERNELS_FAST ? verify_fast(path, v, threads, &err)
                                                : dmlref_vector_verify(v, threads, &err);
        dmlref_vector_free(v);
    } else {
        t->bad_input = 1;
    }
    if (status == DMLREF_OK) {
        ++t->passed;
        return;
    }
    ++t->failed;
    fprintf(stderr, "FAIL %s\n", err.message);
}

/* The longest MANIFEST line taken (without its newline); a longer one is a
   failure of its own, never read as two entries. */
#define MANIFEST_LINE_MAX 4096
/* The most of a MANIFEST read: 64 MiB, some 600,000 entries; past it the
   file is refused, not read on into memory. */
#define MANIFEST_MAX_BYTES (64ul << 20)

/* One MANIFEST entry: "<16 hex digits>  <path relative to the suite>". */
typedef struct manifest_entry {
    char *name;
    unsigned long line, first_line; /* first_line: where a duplicate was listed first, or 0 */
    uint64_t digest;
} manifest_entry;

/* A name that stays inside the suite: relative, and no part of it empty,
   "." or ".." (so that every file has one spelling, and a duplicate shows);
   parts end at a separator of the system's (on Windows \ too). */
static int is_inside_suite(const char *name)
{
    const char *part = name;
    if (path_root_length(name) > 0) /* "/x"; on Windows "C:x" and "\\x" too */
        return 0;
    for (;;) {
        size_t length = 0;
        while (part[length] && !is_path_separator(part[length]))
            ++length;
        if (length == 0 || (length == 1 && part[0] == '.') ||
            (length == 2 && part[0] == '.' && part[1] == '.'))
            return 0;
        if (!part[length])
            return 1;
        part += length + 1;
    }
}

static int compare_entry_names(const void *a, const void *b)
{
    const manifest_entry *x = *(manifest_entry *const *)a, *y = *(manifest_entry *const *)b;
    int order = strcmp(x->name, y->name);
    return order ? order : x->line < y->line ? -1 : x->line > y->line;
}

/* Why a MANIFEST line (NUL-terminated, its newline taken off; `length`
   bytes, a NUL among them included) is not an entry as dmlref gen writes
   it, "<16 lowercase hex digits>  <path>": NULL when it is one. */
static const char *manifest_line_fault(const char *line, size_t length)
{
    size_t i;
    if (length > 0 && line[length - 1] == '\r')
        /* the whole suite was converted, most likely: one reason, not "missing" */
        return "ends in a carriage return (CRLF): the suite must be checked out byte for "
               "byte (git: .gitattributes, core.autocrlf)";
    if (length == 0)
        return "an empty line (every line is \"<16 hex digits>  <path>\")";
    for (i = 0; i < 16; ++i)
        if (!((line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f')))
            return "must start with the digest, 16 lowercase hex digits (\"<16 hex digits>  "
                   "<path>\")";
    if (line[16] != ' ' || line[17] != ' ')
        return "the digest must be followed by two spaces (\"<16 hex digits>  <path>\")";
    if (line[18] == '\0' && length == 18)
        return "the path is missing (\"<16 hex digits>  <path>\")";
    if (line[18] == ' ')
        return "the path starts with a space: two spaces, no more, separate it from the digest";
    for (i = 18; i < length; ++i)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            return "the path holds a control character (a NUL or another byte below 0x20, or "
                   "0x7f)";
    return NULL;
}

/* Reads a MANIFEST's entries; every line that is not one (malformed, too
   long, a path outside the suite, no newline at its end) is a FAIL line
   naming it and the rule, and bad input.  A name listed again gets the line
   of its first listing in first_line.  0 when the file cannot be read at
   all, or is larger than MANIFEST_MAX_BYTES. */
static int read_manifest(const char *manifest, manifest_entry **entries, size_t *count, tally *t)
{
    char line[MANIFEST_LINE_MAX + 1], *name;
    unsigned long number = 0, total = 0;
    size_t capacity = 0, i;
    manifest_entry **by_name;
    int reason, ok = 1, c = 0;
    FILE *f;

    *entries = NULL, *count = 0;
    if ((reason = open_regular_file(manifest, &f)) != 0) {
        fprintf(stderr, "FAIL %s: cannot open: %s\n", manifest, reason_text(reason));
        ++t->failed, t->bad_input = 1;
        return 0;
    }
    while (ok && c != EOF) {
        const char *fault;
        size_t length = 0;
        int too_long = 0;
        /* a line read byte by byte, so that a NUL in it is seen */
        while ((c = getc(f)) != EOF && c != '\n') {
            if (++total > MANIFEST_MAX_BYTES)
                break;
            if (length < MANIFEST_LINE_MAX)
                line[length++] = (char)c;
            else
                too_long = 1;
        }
        if (total > MANIFEST_MAX_BYTES) {
            fprintf(stderr, "FAIL %s: larger than %lu bytes: not read\n", manifest,
                    MANIFEST_MAX_BYTES);
            ok = 0;
            break;
        }
        if (c == EOF && length == 0 && !too_long)
            break;
        total += c != EOF; /* the newline */
        line[length] = '\0';
        ++number;
        if (too_long)
            fault = "longer than 4096 bytes";
        else if (c == EOF)
            fault = "does not end in a newline (a MANIFEST ends every line with one)";
        else
            fault = manifest_line_fault(line, length);
        if (fault) {
            fprintf(stderr, "FAIL %s: line %lu: %s\n", manifest, number, fault);
            ++t->failed, t->bad_input = 1;
            continue;
        }
        name = line + 18;
        if (!is_inside_suite(name)) {
            fprintf(stderr,
                    "FAIL %s: line %lu: %s: not a path inside the suite (absolute, or "
                    "with an empty, . or .. part)\n",
                    manifest, number, name);
            ++t->failed, t->bad_input = 1;
            continue;
        }
        if (*count == capacity) {
            manifest_entry *grown;
            capacity = capacity ? 2 * capacity : 1024;
            if (!(grown = realloc(*entries, capacity * sizeof *grown))) {
                ok = 0;
                break;
            }
            *entries = grown;
        }
        if (!((*entries)[*count].name = malloc(strlen(name) + 1))) {
            ok = 0;
            break;
        }
        strcpy((*entries)[*count].name, name);
        (*entries)[*count].line = number;
        (*entries)[*count].first_line = 0;
        (*entries)[(*count)++].digest = strtoull(line, NULL, 16);
    }
    if (ferror(f)) {
        fprintf(stderr, "FAIL %s: cannot read: %s\n", manifest, strerror(errno));
        ok = 0;
    }
    fclose(f);
    if (ok && *count > 1) {
        if (!(by_name = malloc(*count * sizeof *by_name)))
            ok = 0;
        for (i = 0; ok && i < *count; ++i)
            by_name[i] = &(*entries)[i];
        if (ok) {
            qsort(by_name, *count, sizeof *by_name, compare_entry_names);
            for (i = 1; i < *count; ++i)
                if (strcmp(by_name[i]->name, by_name[i - 1]->name) == 0)
                    by_name[i]->first_line = by_name[i - 1]->first_line ? by_name[i - 1]->first_line
                                                                        : by_name[i - 1]->line;
            free(by_name);
        }
    }
    if (!ok)
        ++t->failed, t->bad_input = 1;
    return ok;
}

/* A suite folder: its MANIFEST names every vector with the digest of its
   bytes; verifies each listed file once and reports unlisted ones. */
static void verify_suite(const char *dir, const char *manifest, uint32_t threads,
                         dmlref_kernels kernels, tally *t)
{
    path_list found = {NULL, 0, 0}, listed = {NULL, 0, 0};
    manifest_entry *entries;
    size_t count, i;

    if (!read_manifest(manifest, &entries, &count, t))
        goto done;
    for (i = 0; i < count; ++i) {
        const manifest_entry *e = &entries[i];
        char path[MANIFEST_LINE_MAX + 4096];
        int reason;
        uint64_t got;
        if (e->first_line) {
            fprintf(stderr, "FAIL %s: line %lu: %s is listed again (first on line %lu)\n", manifest,
                    e->line, e->name, e->first_line);
            ++t->failed, t->bad_input = 1;
            continue;
        }
        if (snprintf(path, sizeof path, "%s/%s", dir, e->name) >= (int)sizeof path) {
            fprintf(stderr, "FAIL %s: line %lu: the path is too long\n", manifest, e->line);
            ++t->failed, t->bad_input = 1;
            continue;
        }
        list_add(&listed, path); /* listed, whatever its digest */
        if ((reason = file_digest(path, &got)) != 0) {
            if (reason == ENOENT) {
                fprintf(stderr, "FAIL %s: line %lu: %s is missing\n", manifest, e->line, path);
            } else {
                fprintf(stderr, "FAIL %s: line %lu: %s: cannot read: %s\n", manifest, e->line, path,
                        reason_text(reason));
                t->bad_input = 1;
            }
            ++t->failed;
            continue;
        }
        if (got != e->digest) {
            fprintf(stderr, "FAIL %s: line %lu: %s has digest %016llx, the manifest says %016llx\n",
                    manifest, e->line, path, (unsigned long long)got,
                    (unsigned long long)e->digest);
            ++t->failed;
            continue;
        }
        verify_file(path, threads, kernels, t);
    }
    if (walk_vectors(dir, &found)) {
        sort_paths(&listed, 0);
        for (i = 0; i < found.count; ++i) {
            if (!bsearch(&found.items[i], listed.items, listed.count, sizeof *listed.items,
                         compare_strings)) {
                fprintf(stderr, "FAIL %s: not listed in %s\n", found.items[i], manifest);
                ++t->failed;
            }
        }
    }
done:
    for (i = 0; i < count; ++i)
        free(entries[i].name);
    free(entries);
    list_free(&found);
    list_free(&listed);
}

static int command_verify(int argc, char **argv)
{
    command_options o;
    path_list operands = {NULL, 0, 0};
    uint64_t threads;
    dmlref_kernels kernels;
    tally t = {0, 0, 0, 0};
    size_t i;
    int paths = 0, code = parse_command("verify", argc, argv, "", k_verify_options, &o, &operands);

    if (code != EXIT_OK) {
        list_free(&operands);
        return code;
    }
    threads = o.threads;
    kernels = o.kernels;
    for (i = 0; i < operands.count; ++i) {
        file_facts facts;
        char *path = operands.items[i];
        int reason;
        ++paths;
        if ((reason = path_facts(path, &facts)) != 0) {
            fprintf(stderr, "FAIL %s: cannot open: %s\n", path, strerror(reason));
            ++t.failed, t.bad_input = 1;
        } else if (facts.kind == FILE_KIND_FOLDER) {
            char manifest[4096];
            size_t length = strlen(path), root = path_root_length(path);
            if (length + sizeof "/MANIFEST" > sizeof manifest) {
                fprintf(stderr, "FAIL %s: the path is too long\n", path);
                ++t.failed, t.bad_input = 1;
                continue;
            }
            while (length > 1 && length > root && is_path_separator(path[length - 1]))
                path[--length] = '\0';
            snprintf(manifest, sizeof manifest, "%s/MANIFEST", path);
            if ((reason = path_facts(manifest, &facts)) == 0) {
                verify_suite(path, manifest, (uint32_t)threads, kernels, &t);
            } else if (reason != ENOENT) {
                /* a MANIFEST that cannot be looked at may still be there */
                fprintf(stderr, "FAIL %s: cannot open: %s\n", manifest, strerror(reason));
                ++t.failed, t.bad_input = 1;
            } else {
                path_list files = {NULL, 0, 0};
                size_t k;
                if (!walk_vectors(path, &files))
                    ++t.failed, t.bad_input = 1;
                for (k = 0; k < files.count; ++k)
                    verify_file(files.items[k], (uint32_t)threads, kernels, &t);
                list_free(&files);
            }
        } else if (facts.kind != FILE_KIND_REGULAR) {
            /* the loader would wait on a FIFO forever */
            fprintf(stderr, "FAIL %s: cannot open: not a regular file\n", path);
            ++t.failed, t.bad_input = 1;
        } else {
            verify_file(path, (uint32_t)threads, kernels, &t);
        }
    }
    list_free(&operands);
    if (!paths)
        return usage_error("verify needs at least one path");
    printf("%lu passed, %lu failed, %lu skipped\n", t.passed, t.failed, t.skipped);
    if (!t.passed && !t.failed && !t.skipped) {
        fprintf(stderr, "dmlref verify: no vector under the paths: nothing was verified\n");
        return EXIT_BAD_INPUT;
    }
    return t.bad_input ? EXIT_BAD_INPUT : t.failed ? EXIT_DIFFERENCE : EXIT_OK;
}

/* ---- gen ------------------------------------------------------------------- */

static int command_gen(int argc, char **argv)
{
    command_options o;
    path_list operands = {NULL, 0, 0};
    int code = parse_command("gen", argc, argv, "", k_gen_options, &o, &operands);
    if (code == EXIT_OK && operands.count)
        code = usage_error("gen: unknown argument (gen takes options only)");
    if (code == EXIT_OK)
        code = generate_suite(o.output ? o.output : "vectors", o.seed,
                              o.profile ? o.profile : "default", (uint32_t)o.threads);
    list_free(&operands);
    return code;
}

static int run_command(int argc, char **argv)
{
    /* before any output: the same bytes on every system (no "\r\n") */
    use_binary_standard_streams();
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("dmlref %s\n", dmlref_version_string());
        return EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        const char *topic = argc > 2 ? argv[2] : NULL;
        if (!topic)
            usage(stdout);
        else if (strcmp(topic, "eval") == 0)
            fputs(k_help_eval, stdout);
        else if (strcmp(topic, "verify") == 0)
            fputs(k_help_verify, stdout);
        else if (strcmp(topic, "gen") == 0)
            fputs(k_help_gen, stdout);
        else if (strcmp(topic, "check") == 0)
            fputs(check_help, stdout);
        else if (strcmp(topic, "fuzz") == 0)
            fputs(k_help_fuzz, stdout);
        else if (strcmp(topic, "bench") == 0)
            fputs(k_help_bench, stdout);
        else if (strcmp(topic, "explain") == 0)
            fputs(explain_help, stdout);
        else if (strcmp(topic, "show") == 0)
            fputs(show_help, stdout);
        else
            return usage_error("help: no such command");
        return EXIT_OK;
    }
    if (strcmp(argv[1], "eval") == 0)
        return command_eval(argc - 2, argv + 2);
    if (strcmp(argv[1], "verify") == 0)
        return command_verify(argc - 2, argv + 2);
    if (strcmp(argv[1], "gen") == 0)
        return command_gen(argc - 2, argv + 2);
    if (strcmp(argv[1], "check") == 0)
        return command_check(argc - 2, argv + 2);
    if (strcmp(argv[1], "fuzz") == 0)
        return command_fuzz(argc - 2, argv + 2);
    if (strcmp(argv[1], "bench") == 0)
        return command_bench(argc - 2, argv + 2);
    if (strcmp(argv[1], "explain") == 0)
        return command_explain(argc - 2, argv + 2);
    if (strcmp(argv[1], "show") == 0)
        return command_show(argc - 2, argv + 2);
    return usage_error("unknown command");
}

/* What a command printed may still sit in stdout's buffer, or may have failed
   to go out (a full disk, /dev/full): either way it is lost, which is exit 2
   with the reason, never a silent success. */
static int finish_standard_output(int code)
{
    int reason = 0, failed;
    errno = 0;
    failed = fflush(stdout) != 0 || ferror(stdout);
    if (failed)
        reason = errno;
    if (fclose(stdout) != 0 && !failed && errno != EBADF) /* EBADF: closed, nothing written */
        failed = 1, reason = errno;
    if (!failed)
        return code;
    fprintf(stderr, "dmlref: standard output: cannot write: %s\n",
            reason ? strerror(reason) : "a write failed");
    return code == EXIT_USAGE ? code : EXIT_BAD_INPUT;
}

int main(int argc, char **argv)
{
    if (conformance_is_worker(argc, argv))
        return conformance_worker_main(argc, argv); /* dmlref started again as a worker */
    return finish_standard_output(run_command(argc, argv));
}
