/*
 * teach_command.c - dmlref explain and dmlref show: read one file, hand it
 * to src/teach, print the text.
 *
 *   dmlref explain CASE.json [--element 'OutputTensor[1,0,2]'] [--level L]
 *   dmlref show [--level L] PATH...
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
    "feature level (2_1, 3_0, ...).  The vector's notes, and an --element argument\n"
    "quoted in a message, are printed with control characters and bytes that are\n"
    "not UTF-8 escaped (\\n, \\xNN, \\uXXXX).\n"
    "Exit 0, 2 when the file cannot be read or the element does not exist, 3 for\n"
    "a usage error.\n";

const char *const show_help =
    "usage: dmlref show [--level L] PATH...\n"
    "\n"
    "Shows a case or vector as a person reads it: a header (name, operator,\n"
    "feature level, attributes, notes; for a case that must be refused, the status\n"
    "and rule), then every tensor in binding order with its dtype, sizes and\n"
    "layout (packed, or its strides and what they mean: broadcast, permuted,\n"
    "padding, TotalTensorSizeInBytes) and its elements as a nested array, numpy's\n"
    "way, a tensor of more than 1000 elements by its first and last elements along\n"
    "each dimension.  Where strides, padding or broadcast make memory differ from\n"
    "that logical view, the element offset of every element and the buffer slot\n"
    "by slot follow ('.' where no element lies).  Outputs show their expected\n"
    "values, '?' where any value passes and {a|b} where any one of these does;\n"
    "NonZero's count as a number and its coordinates as a numbered matrix whose\n"
    "columns name the input dimensions.  Where a case gives no expected values, or\n"
    "a vector gives an output by its digest alone, dmlref computes them and says\n"
    "so; values or a digest the vector gives that differ from what dmlref computes\n"
    "are said in the header, as verify says them.  A vector that dmlref refuses at\n"
    "its own feature level is shown with the reason and without its expected\n"
    "values, which are not read.  A vector's permitted variants are shown last.\n"
    "Notes are printed with control characters and bytes that are not UTF-8\n"
    "escaped (\\n, \\xNN, \\uXXXX).  Elements are written as\n"
    "vectors/FORMAT.md writes them, without quotes.  --level shows the case at\n"
    "another feature level (2_1, 3_0, ...).\n"
    "Each PATH is a file, or a folder searched for *.json; several vectors are\n"
    "separated by a blank line.\n"
    "Exit 0, 2 when a file or folder cannot be read (the others are still shown)\n"
    "or no vector is found under the paths, 3 for a usage error.\n";

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

/* Loads `path` with its options, renders it with explain or show into
   *text; the message on stderr and EXIT_BAD_INPUT when that fails.  A case
   that dmlref refuses is read too, so that it can be explained. */
static int render(const char *command, const char *path, const teach_options *o, char **text,
                  size_t *length)
{
    dmlref_vector_read_options read =
        read_options(DMLREF_VECTOR_READ_CASE | DMLREF_VECTOR_READ_REFUSED);
    dmlref_vector *v = NULL;
    dmlref_error err;
    dmlref_status status = dmlref_vector_load(path, &read, &v, &err);
    if (status == DMLREF_OK) {
        if (o->has_level)
            dmlref_vector_set_feature_level(v, o->level);
        status = strcmp(command, "show") == 0 ? show_vector(v, text, length, &err)
                                              : explain_case(v, o->element, text, length, &err);
    }
    dmlref_vector_free(v);
    if (status != DMLREF_OK) {
        /* a message may quote the vector's text or the user's: escaped, so
           that none of it acts on the terminal (a path keeps its \) */
        char shown[4 * DMLREF_ERROR_MESSAGE_CAPACITY];
        escape_text(err.message, 0, shown, sizeof shown);
        fprintf(stderr, "%s\n", shown);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* explain: renders its one operand.  show: every vector of its operands,
   files or folders, one after another; an operand or a file that cannot be
   read is reported and the others are still shown. */
static int teach_command(const char *command, int argc, char **argv, const struct option *options)
{
    teach_options o = {NULL, 0, DMLREF_FEATURE_LEVEL_LATEST};
    path_list operands = {NULL, 0, 0}, files = {NULL, 0, 0};
    int show = strcmp(command, "show") == 0, shown = 0;
    size_t i;
    int code = parse_arguments(command, argc, argv, "", options, take_teach_option, &o, &operands);

    if (code == EXIT_OK && !show && operands.count != 1)
        code = usage_error("explain takes one case file");
    if (code == EXIT_OK && show && operands.count == 0)
        code = usage_error("show needs at least one path");
    for (i = 0; (code == EXIT_OK || code == EXIT_BAD_INPUT) && i < operands.count; ++i) {
        if (show ? !collect_vectors(operands.items[i], &files)
                 : !list_add(&files, operands.items[i]))
            code = EXIT_BAD_INPUT;
    }
    if (code != EXIT_OK && code != EXIT_BAD_INPUT) {
        list_free(&operands);
        return code;
    }
    for (i = 0; i < files.count; ++i) {
        char *text = NULL;
        size_t length = 0;
        if (render(command, files.items[i], &o, &text, &length) != EXIT_OK) {
            code = EXIT_BAD_INPUT;
            continue;
        }
        /* a failed write: main says why, as for any write to stdout */
        if ((shown++ && fputs("\n", stdout) == EOF) || fwrite(text, 1, length, stdout) != length)
            code = EXIT_BAD_INPUT;
        free(text);
    }
    if (show && files.count == 0) {
        fprintf(stderr, "dmlref show: no vector under the paths: nothing was shown\n");
        code = EXIT_BAD_INPUT;
    }
    list_free(&files);
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
