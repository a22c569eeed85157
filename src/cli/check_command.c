/*
 * check_command.c - dmlref check: its options, parsed here; the harness runs
 * in conformance/ (check_run).
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const check_help =
    "usage: dmlref check (--backend LIB.so | --exec 'CMD') [options] PATH...\n"
    "\n"
    "Runs another implementation over the vectors under each PATH and judges every\n"
    "case at the backend's feature level, asking the reference what is right there:\n"
    "pass, fail (wrong bits in a defined element, a write past an output or into an\n"
    "input, a valid case refused, an invalid case accepted), skip (unsupported, or\n"
    "out-of-range data whose outputs DirectML leaves undefined) or error (a crash, a\n"
    "hang, a malformed reply). Unsupported (a process's \"unsupported\", or\n"
    "DMLREF_ERROR_UNSUPPORTED_* from either interface) is a skip, not a refusal,\n"
    "unless the reference refuses the case with that very status. A failure names\n"
    "the first wrong element and the dmlref explain command that derives it.\n"
    "See docs/conformance.md.\n"
    "\n"
    "  --backend LIB.so        a plug-in (include/dmlref/backend.h), run in a child process\n"
    "  --exec 'CMD'            a process speaking JSON Lines on its stdin and stdout\n"
    "  --backend-options TEXT  passed to the plug-in's create()\n"
    "  --feature-level L       the backend's level (e.g. 3_0): cases invalid there must be\n"
    "                          refused (a plug-in's max_feature_level lowers it too)\n"
    "  --filter GLOB           only the cases whose name matches (repeatable: any of them)\n"
    "  --exclude GLOB          not the cases whose name matches (repeatable)\n"
    "  --rerun-failed REPORT   only the cases a --json REPORT lists as failed or errored\n"
    "                          (each must still be given; REPORT at most 32 MiB)\n"
    "  --shard K/N             only the files of shard K of N (disjoint; together, all)\n"
    "  --list                  print the selected cases' names and stop\n"
    "  --jobs N                run N backends at once (default 1); the same reports,\n"
    "                          in the same order\n"
    "  --max-failures N        stop right after the Nth failed case (in the files' order)\n"
    "  --strict-status         a refusal must name the status dmlref gives (and its rule,\n"
    "                          when it names one)\n"
    "  --timeout SECONDS       per case (default 60); a hung backend is killed and restarted\n"
    "  --junit FILE            a JUnit XML report;  --json FILE  a JSON report (two files)\n"
    "  --verbose               print passing cases too\n"
    "\n"
    "Ends with \"N passed, N failed, N skipped\" (errors count as failed). Exit 0 when\n"
    "cases were judged and none failed; 1 when one failed or errored; 2 when a vector\n"
    "cannot be read, no case was selected, no case was judged (every selected case\n"
    "was skipped, or passed only by answering \"unsupported\"), the backend cannot run (it failed "
    "its first 3 cases the same way\n"
    "before answering any), a --rerun-failed report cannot be read or names a case\n"
    "no longer given, or a report cannot be written (or two name one file); 3 for a\n"
    "usage error.\n";

static int parse_seconds(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (!*text || *end || !(v > 0 && v <= 86400))
        return 0;
    *out = v;
    return 1;
}

static int parse_number(const char *text, unsigned long low, unsigned long high, unsigned long *out)
{
    char *end;
    unsigned long v;
    if (!*text || *text == '-' || *text == '+')
        return 0;
    errno = 0;
    v = strtoul(text, &end, 10);
    if (*end || errno || v < low || v > high)
        return 0;
    *out = v;
    return 1;
}

enum {
    OPT_BACKEND = 256,
    OPT_EXEC,
    OPT_BACKEND_OPTIONS,
    OPT_FILTER,
    OPT_EXCLUDE,
    OPT_RERUN,
    OPT_SHARD,
    OPT_JOBS,
    OPT_MAX_FAILURES,
    OPT_JUNIT,
    OPT_JSON,
    OPT_LEVEL,
    OPT_TIMEOUT,
    OPT_STRICT_STATUS,
    OPT_LIST
};

static const struct option k_check_options[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"exec", required_argument, NULL, OPT_EXEC},
    {"backend-options", required_argument, NULL, OPT_BACKEND_OPTIONS},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"exclude", required_argument, NULL, OPT_EXCLUDE},
    {"rerun-failed", required_argument, NULL, OPT_RERUN},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"max-failures", required_argument, NULL, OPT_MAX_FAILURES},
    {"junit", required_argument, NULL, OPT_JUNIT},
    {"json", required_argument, NULL, OPT_JSON},
    {"feature-level", required_argument, NULL, OPT_LEVEL},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"strict-status", no_argument, NULL, OPT_STRICT_STATUS},
    {"list", no_argument, NULL, OPT_LIST},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

static int bad(int option, const char *what)
{
    return option_error("check", option, k_check_options, what);
}

/* K/N of --shard into o->shard and o->shards. */
static int parse_shard(const char *text, check_options *o)
{
    const char *slash = strchr(text, '/');
    char first[32];
    if (!slash || (size_t)(slash - text) >= sizeof first)
        return 0;
    memcpy(first, text, (size_t)(slash - text));
    first[slash - text] = '\0';
    return parse_number(slash + 1, 1, 1000000, &o->shards) &&
           parse_number(first, 1, o->shards, &o->shard);
}

static int take_check_option(void *context, int option, const char *value)
{
    check_options *o = context;
    switch (option) {
    case OPT_BACKEND:
        o->backend = value;
        break;
    case OPT_EXEC:
        o->exec = value;
        break;
    case OPT_BACKEND_OPTIONS:
        o->backend_options = value;
        break;
    case OPT_FILTER:
        return list_add(&o->filters, value) ? EXIT_OK : EXIT_BAD_INPUT;
    case OPT_EXCLUDE:
        return list_add(&o->excludes, value) ? EXIT_OK : EXIT_BAD_INPUT;
    case OPT_RERUN:
        o->rerun = value;
        break;
    case OPT_JUNIT:
        o->junit = value;
        break;
    case OPT_JSON:
        o->json = value;
        break;
    case OPT_LEVEL:
        if (!dmlref_feature_level_from_name(value, &o->level))
            return bad(option, "takes a feature level such as 4_1");
        break;
    case OPT_TIMEOUT:
        if (!parse_seconds(value, &o->timeout))
            return bad(option, "takes seconds, more than 0 and at most 86400");
        break;
    case OPT_JOBS:
        if (!parse_number(value, 1, CHECK_MAX_JOBS, &o->jobs))
            return bad(option, "takes a number from 1 to 64");
        break;
    case OPT_MAX_FAILURES:
        if (!parse_number(value, 1, (unsigned long)-1, &o->max_failures))
            return bad(option, "takes a number, 1 or more");
        break;
    case OPT_SHARD:
        if (!parse_shard(value, o))
            return bad(option, "takes K/N with 1 <= K <= N, such as 2/4");
        break;
    case OPT_STRICT_STATUS:
        o->strict_status = 1;
        break;
    case OPT_LIST:
        o->list = 1;
        break;
    case 'v':
        o->verbose = 1;
        break;
    default: /* 'h' */
        fputs(check_help, stdout);
        return -1; /* stop: help was asked for */
    }
    return EXIT_OK;
}

int command_check(int argc, char **argv)
{
    check_options o;
    path_list paths = {NULL, 0, 0};
    int code;

    memset(&o, 0, sizeof o);
    o.timeout = 60, o.jobs = 1, o.shard = 1, o.shards = 1;
    code =
        parse_arguments("check", argc, argv, "vh", k_check_options, take_check_option, &o, &paths);
    if (code == -1)
        code = EXIT_OK;
    else if (code == EXIT_OK && !o.list && !o.backend == !o.exec)
        code = usage_error("check takes --backend LIB.so or --exec 'CMD'");
    else if (code == EXIT_OK && !paths.count)
        code = usage_error("check needs a path of vectors");
    else if (code == EXIT_OK)
        code = check_run(&o, &paths);
    list_free(&paths);
    list_free(&o.filters);
    list_free(&o.excludes);
    return code;
}
