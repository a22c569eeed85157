/*
 * fuzz_command.c - dmlref fuzz: its options, parsed here; the fuzzer runs in
 * conformance/ (fuzz_run).
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

enum {
    OPT_BACKEND = 256,
    OPT_EXEC,
    OPT_BACKEND_OPTIONS,
    OPT_KERNELS,
    OPT_OUT,
    OPT_OPERATOR,
    OPT_SEED,
    OPT_CASES,
    OPT_SHRINK,
    OPT_TIME,
    OPT_TIMEOUT
};

static const struct option k_fuzz_options[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"exec", required_argument, NULL, OPT_EXEC},
    {"backend-options", required_argument, NULL, OPT_BACKEND_OPTIONS},
    {"kernels", required_argument, NULL, OPT_KERNELS},
    {"out", required_argument, NULL, OPT_OUT},
    {"operator", required_argument, NULL, OPT_OPERATOR},
    {"seed", required_argument, NULL, OPT_SEED},
    {"cases", required_argument, NULL, OPT_CASES},
    {"shrink", required_argument, NULL, OPT_SHRINK},
    {"time", required_argument, NULL, OPT_TIME},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {NULL, 0, NULL, 0}};

static int take_fuzz_option(void *context, int option, const char *value)
{
    fuzz_options *o = context;
    char *end;
    switch (option) {
    case OPT_BACKEND:
        o->library = value;
        break;
    case OPT_EXEC:
        o->command = value;
        break;
    case OPT_BACKEND_OPTIONS:
        o->options = value;
        break;
    case OPT_OUT:
        o->out_dir = value;
        break;
    case OPT_KERNELS:
        if (strcmp(value, "fast") != 0)
            return usage_error("fuzz: --kernels takes fast (the reference kernels are what "
                               "every case is compared with)");
        o->fast_kernels = 1;
        break;
    case OPT_OPERATOR:
        if (!dmlref_operator_from_name(value, &o->op))
            return usage_error("fuzz: --operator takes GATHER_ELEMENTS, SCATTER_ELEMENTS, "
                               "GATHER_ND, GATHER_ND1 or NONZERO_COORDINATES");
        break;
    case OPT_SEED:
    case OPT_CASES:
    case OPT_SHRINK: {
        uint64_t v;
        if (!parse_count(value, UINT64_MAX, &v))
            return usage_error("fuzz: --seed, --cases and --shrink take a number");
        if (option == OPT_SEED)
            o->seed = v;
        else if (option == OPT_CASES)
            o->cases = v, o->cases_given = 1;
        else
            o->shrink_limit = v;
        break;
    }
    default: { /* OPT_TIME, OPT_TIMEOUT */
        double v = strtod(value, &end);
        if (!*value || *end || !(v > 0 && v <= 86400))
            return usage_error("fuzz: --time and --timeout take seconds");
        if (option == OPT_TIME)
            o->seconds = v;
        else
            o->timeout = v;
        break;
    }
    }
    return EXIT_OK;
}

int command_fuzz(int argc, char **argv)
{
    fuzz_options o;
    path_list operands = {NULL, 0, 0};
    int code;

    memset(&o, 0, sizeof o);
    o.out_dir = "fuzz-failures";
    o.seed = 1, o.shrink_limit = 10, o.timeout = 30;
    code = parse_arguments("fuzz", argc, argv, "", k_fuzz_options, take_fuzz_option, &o, &operands);
    if (code == EXIT_OK && operands.count)
        code = usage_error("fuzz takes options only");
    else if (code == EXIT_OK && o.fast_kernels && (o.library || o.command || o.options))
        code = usage_error("fuzz: --kernels fast runs the fast kernels in this process: no "
                           "--backend, --exec or --backend-options with it");
    else if (code == EXIT_OK && !o.fast_kernels && !o.library == !o.command)
        code = usage_error("fuzz takes --backend LIB.so, --exec 'CMD' or --kernels fast");
    else if (code == EXIT_OK)
        code = fuzz_run(&o);
    list_free(&operands);
    return code;
}
