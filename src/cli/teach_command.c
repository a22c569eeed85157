/*
 * teach_command.c - dmlref explain and dmlref show: read one file, hand it
 * to src/teach, print the text.
 *
 *   dmlref explain CASE.json [--element 'OutputTensor[1,0,2]'] [--level L]
 *   dmlref show VECTOR.json [--level L]
 */
#include "cli/cli.h"
#include "teach/teach.h"

#include <stdlib.h>
#include <string.h>

const char *const explain_help =
    "usage: dmlref explain CASE.json [--element 'TENSOR[c0,c1,...]'] [--level L]\n"
    "\n"
    "Explains a case or a vector, with or without expected outputs: the operator's\n"
    "rule, then for one output element (--element), or for every element of the\n"
    "case (the first 64 of a larger one), where its value comes from, in numbers:\n"
    "the index read, its normalisation, the input element; for Scatter the update\n"
    "that won and those that lost; for NonZero the input element of each row and\n"
    "why each element was or was not counted.  A case that is refused is\n"
    "explained by the rule it breaks and where.  --level runs the case at another\n"
    "feature level (2_1, 3_0, ...).\n"
    "Exit 0, 2 when the file cannot be read or the element does not exist, 3 for\n"
    "a usage error.\n";

const char *const show_help =
    "usage: dmlref show VECTOR.json [--level L]\n"
    "\n"
    "Prints every tensor of a case or vector as a nested array with its shape and\n"
    "layout; where strides, padding or broadcast make memory differ from the\n"
    "logical view, the buffer too.  Outputs show their expected values, with\n"
    "undefined elements as '?' and any_of elements as {a|b}; without them (a\n"
    "case), what dmlref computes.\n"
    "Exit 0, 2 when the file cannot be read, 3 for a usage error.\n";

enum { OPT_ELEMENT = 256, OPT_LEVEL };

typedef struct teach_options {
    const char *element;
    int has_level;
    dmlref_feature_level level;
} teach_options;

static int take_teach_option(void *context, int option, const char *value)
{
    teach_options *o = context;
    if (option == OPT_ELEMENT) {
        o->element = value;
        return EXIT_OK;
    }
    if (!dmlref_feature_level_from_name(value, &o->level))
        return usage_error("--level takes a feature level such as 3_0");
    o->has_level = 1;
    return EXIT_OK;
}

static const struct option k_explain_options[] = {{"element", required_argument, NULL, OPT_ELEMENT},
                                                  {"level", required_argument, NULL, OPT_LEVEL},
                                                  {NULL, 0, NULL, 0}};
static const struct option k_show_options[] = {{"level", required_argument, NULL, OPT_LEVEL},
                                               {NULL, 0, NULL, 0}};

/* Loads the one operand of `command`, renders it with explain or show and
   prints the text. */
static int teach_command(const char *command, int argc, char **argv, const struct option *options)
{
    teach_options o = {NULL, 0, DMLREF_FEATURE_LEVEL_LATEST};
    path_list operands = {NULL, 0, 0};
    dmlref_vector_read_options read = read_options(DMLREF_VECTOR_READ_CASE);
    dmlref_vector *v = NULL;
    dmlref_error err;
    dmlref_status status;
    char message[128], *text = NULL;
    size_t length = 0;
    int code = parse_arguments(command, argc, argv, "", options, take_teach_option, &o, &operands);

    if (code == EXIT_OK && operands.count != 1) {
        snprintf(message, sizeof message, "%s takes one case file", command);
        code = usage_error(message);
    }
    if (code != EXIT_OK) {
        list_free(&operands);
        return code;
    }
    status = dmlref_vector_load(operands.items[0], &read, &v, &err);
    if (status == DMLREF_OK) {
        if (o.has_level)
            dmlref_vector_set_feature_level(v, o.level);
        status = strcmp(command, "show") == 0 ? show_vector(v, &text, &length, &err)
                                              : explain_case(v, o.element, &text, &length, &err);
    }
    if (status != DMLREF_OK) {
        fprintf(stderr, "%s\n", err.message);
        code = EXIT_BAD_INPUT;
    } else if (fwrite(text, 1, length, stdout) != length) {
        code = EXIT_BAD_INPUT; /* main says why, as for any write to stdout */
    }
    free(text);
    dmlref_vector_free(v);
    list_free(&operands);
    return code;
}

int command_explain(int argc, char **argv)
{
    return teach_command("explain", argc, argv, k_explain_options);
}

int command_show(int argc, char **argv)
{
    return teach_command("show", argc, argv, k_show_options);
}
