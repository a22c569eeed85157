/*
 * check.c - dmlref check: runs another implementation over golden vectors
 * and judges every case (the backends are in backend.c, the judge in
 * judge.c).
 *
 *   dmlref check (--backend LIB.so | --exec 'CMD') [options] PATH...
 *
 * Each case ends as pass, fail (wrong bits in a defined element, a write
 * outside an output, a valid case refused, an invalid case accepted), skip
 * (unsupported, or out-of-range data whose outputs DirectML leaves undefined)
 * or error (crash, timeout, malformed reply).  What is right is decided by
 * the oracle at the level the backend runs: a vector valid at 3_0 is a
 * must-refuse case for a backend at 2_1.
 *
 * Nothing comes out green by accident: a selection of no case, a run in which
 * every case was skipped or passed only by saying "unsupported", a backend
 * that fails its first cases the same way before answering any, and a report
 * that cannot be written all end with exit 2 and the reason.  Exit 0 when
 * cases were judged and none failed or errored, 1 otherwise, 3 for a usage
 * error.
 */
#include "conformance/conformance.h"
#include "base/printf_like.h"
#include "conformance/line_reader.h"
#include "platform/console.h"
#include "platform/files.h"
#include "platform/process.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A backend that fails this many cases in a row, the same way, before it has
   answered any, cannot run: the run stops. */
#define FAILURES_BEFORE_GIVING_UP 3

/* ---- results --------------------------------------------------------------- */

typedef struct result {
    size_t file; /* index into the file list: reports keep the files' order */
    char name[256];
    char op[24]; /* the suite a JUnit report puts it in */
    case_result outcome;
    int bad_input;
    int unsupported; /* a pass by saying "unsupported" where dmlref refuses so */
    double seconds;
    char message[DMLREF_ERROR_MESSAGE_CAPACITY + 768];
    char element[128]; /* a failure's first wrong element, "OutputTensor[0,1]", or "" */
} result;

typedef struct results {
    result *items;
    size_t count, capacity;
    unsigned long passed, failed, skipped, errors;
    unsigned long passed_unsupported; /* of passed: by an "unsupported" answer alone */
    int bad_input;
} results;

static const char *const k_outcome_names[] = {"PASS", "FAIL", "SKIP", "ERROR"};

/* Copies text as valid UTF-8 on one line: invalid bytes become U+FFFD, control
   characters a space.  Reports quote backends' messages, which can be any
   bytes. */
static void clean_text(char *out, size_t capacity, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t used = 0;
    while (*s && used + 4 < capacity) {
        size_t length = *s < 0x80             ? 1
                        : (*s & 0xE0) == 0xC0 ? 2
                        : (*s & 0xF0) == 0xE0 ? 3
                        : (*s & 0xF8) == 0xF0 ? 4
                                              : 0;
        size_t k;
        int valid = length > 0;
        for (k = 1; valid && k < length; ++k)
            valid = (s[k] & 0xC0) == 0x80;
        if (valid && length > 1) { /* no overlong forms, surrogates or values past U+10FFFF */
            unsigned long c = length == 2   ? (s[0] & 0x1Fu)
                              : length == 3 ? (s[0] & 0x0Fu)
                                            : (s[0] & 0x07u);
            for (k = 1; k < length; ++k)
                c = (c << 6) | (s[k] & 0x3Fu);
            valid = !((length == 2 && c < 0x80) || (length == 3 && c < 0x800) ||
                      (length == 4 && c < 0x10000) || (c >= 0xD800 && c <= 0xDFFF) ||
                      c > 0x10FFFF || c == 0xFFFE || c == 0xFFFF);
        }
        if (!valid) {
            memcpy(out + used, "\xEF\xBF\xBD", 3);
            used += 3, s += 1;
        } else if (length == 1) {
            out[used++] = *s < 0x20 || *s == 0x7F ? ' ' : (char)*s;
            s += 1;
        } else {
            memcpy(out + used, s, length);
            used += length, s += length;
        }
    }
    out[used] = '\0';
}

static void count(results *all, const result *r)
{
    switch (r->outcome) {
    case CASE_PASS:
        ++all->passed;
        all->passed_unsupported += r->unsupported != 0;
        break;
    case CASE_FAIL:
        ++all->failed;
        break;
    case CASE_SKIP:
        ++all->skipped;
        break;
    default:
        ++all->errors;
        break;
    }
    all->bad_input |= r->bad_input;
}

static int add(results *all, const result *r)
{
    if (all->count == all->capacity) {
        size_t capacity = all->capacity ? 2 * all->capacity : 256;
        result *grown = realloc(all->items, capacity * sizeof *grown);
        if (!grown)
            return 0;
        all->items = grown;
        all->capacity = capacity;
    }
    all->items[all->count++] = *r;
    count(all, r);
    return 1;
}

/* ---- progress on a terminal ------------------------------------------------- */

typedef struct progress {
    int on; /* stderr is a terminal */
    size_t done, total;
} progress;

static void progress_clear(const progress *p)
{
    if (p->on)
        fputs("\r\033[K", stderr);
}

static void progress_show(const progress *p, const results *all)
{
    if (p->on)
        fprintf(stderr, "\rdmlref check: %zu/%zu files, %lu passed, %lu failed, %lu skipped",
                p->done, p->total, all->passed, all->failed + all->errors, all->skipped);
}

/* A shell word: 'text' with every ' written as '\''. */
static void shell_word(char *out, size_t capacity, const char *text)
{
    size_t used = 0;
    out[used++] = '\'';
    for (; *text && used + 6 < capacity; ++text) {
        if (*text == '\'') {
            memcpy(out + used, "'\\''", 4);
            used += 4;
        } else {
            out[used++] = *text;
        }
    }
    out[used++] = '\'';
    out[used] = '\0';
}

/* text as one word of a POSIX shell: as it is when no byte of it means
   anything to the shell, else shell_word's. */
static void shell_argument(char *out, size_t capacity, const char *text)
{
    const char *c = text;
    while (*c && (isalnum((unsigned char)*c) || strchr("_./+-:@%,=", *c)))
        ++c;
    if (*text && !*c && strlen(text) < capacity)
        memcpy(out, text, strlen(text) + 1);
    else
        shell_word(out, capacity, text);
}

/* The command that derives a failure's first wrong element:
   "dmlref explain VECTOR --element 'OutputTensor[0,1]'", or "" when the
   failure names no element. */
static void explain_command(const result *r, const char *path, char *out, size_t capacity)
{
    char path_word[1024], element_word[sizeof r->element + 8];
    out[0] = '\0';
    if (r->outcome != CASE_FAIL || !r->element[0])
        return;
    shell_argument(path_word, sizeof path_word, path);
    shell_word(element_word, sizeof element_word, r->element);
    snprintf(out, capacity, "dmlref explain %s --element %s", path_word, element_word);
}

static void print_result(const check_options *o, const result *r, const char *path)
{
    char command[1400], clean[1400];
    explain_command(r, path, command, sizeof command);
    clean_text(clean, sizeof clean, command);
    if (r->outcome != CASE_PASS || r->message[0] || o->verbose) /* a pass may name a variant */
        printf("%-5s %s%s%s%s%s\n", k_outcome_names[r->outcome], r->name, r->message[0] ? ": " : "",
               r->message, clean[0] ? "; derive it: " : "", clean);
    fflush(stdout);
}

/* ---- selection ------------------------------------------------------------- */

/* Whether byte c is in the class of a bracket expression ("alpha" of
   "[:alpha:]"); an unknown class holds nothing. */
static int in_class(const char *name, size_t length, unsigned char c)
{
    static const struct {
        const char *name;
        int (*test)(int);
    } classes[] = {{"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank},
                   {"cntrl", iscntrl}, {"digit", isdigit}, {"graph", isgraph},
                   {"lower", islower}, {"print", isprint}, {"punct", ispunct},
                   {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit}};
    size_t i;
    for (i = 0; i < sizeof classes / sizeof *classes; ++i)
        if (strlen(classes[i].name) == length && memcmp(classes[i].name, name, length) == 0)
            return classes[i].test(c) != 0;
    return 0;
}

/* One byte of a bracket expression at *p, moving *p past it: [.c.] (a
   collating symbol: in the C locale, c), \c, or c. */
static unsigned char bracket_byte(const char **p)
{
    const char *q = *p;
    if (q[0] == '[' && q[1] == '.' && q[2] && q[3] == '.' && q[4] == ']') {
        *p = q + 5;
        return (unsigned char)q[2];
    }
    if (q[0] == '\\' && q[1])
        ++q;
    *p = q + 1;
    return (unsigned char)*q;
}

enum { BRACKET_NONE, BRACKET_IN, BRACKET_OUT };

/* The bracket expression after p's '[' for byte c: BRACKET_IN or
   BRACKET_OUT with *end after its ']'; BRACKET_NONE when no ']' ends it (the
   '[' is then an ordinary byte).  A ']' first in the set is a member. */
static int match_bracket(const char *p, unsigned char c, const char **end)
{
    int negate = *p == '!' || *p == '^', found = 0, first = 1;
    if (negate)
        ++p;
    for (;; first = 0) {
        unsigned char low, high;
        if (*p == '\0')
            return BRACKET_NONE;
        if (*p == ']' && !first)
            break;
        if (p[0] == '[' && p[1] == ':') {
            size_t n = 0;
            while (isalpha((unsigned char)p[2 + n]))
                ++n;
            if (p[2 + n] == ':' && p[3 + n] == ']') {
                found |= in_class(p + 2, n, c);
                p += n + 4;
                continue;
            }
        }
        if (p[0] == '[' && p[1] == '=' && p[2] && p[3] == '=' && p[4] == ']') {
            found |= (unsigned char)p[2] == c; /* [=c=]: in the C locale, c alone */
            p += 5;
            continue;
        }
        low = high = bracket_byte(&p);
        if (p[0] == '-' && p[1] && p[1] != ']') {
            ++p;
            high = bracket_byte(&p);
        }
        found |= low <= c && c <= high;
    }
    *end = p + 1;
    return found != negate ? BRACKET_IN : BRACKET_OUT;
}

/* Whether `name` matches the shell pattern as fnmatch(pattern, name, 0)
   decides in the C locale: '*' any run of bytes ('/' too), '?' any one byte,
   [...] one byte of a set ('!' or '^' first negates it; ranges such as a-z
   by byte value; [:alpha:] and the other classes of <ctype.h>; [=c=] and
   [.c.] as c), a backslash the next byte as it is (a pattern ending in one
   matches nothing), and a '[' that no ']' closes an ordinary byte.  (fnmatch is
   POSIX; this is dmlref's own, the same on every system.) */
static int glob_matches(const char *pattern, const char *name)
{
    const char *p = pattern, *n = name;
    const char *star = NULL, *star_name = NULL; /* the last '*' and where it stands in name */
    for (;;) {
        if (*p == '*') {
            while (*p == '*')
                ++p;
            star = p, star_name = n;
            continue;
        }
        if (*n != '\0' && *p != '\0') {
            const char *next = p + 1;
            int in;
            if (*p == '?') {
                in = 1;
            } else if (*p == '[') {
                int bracket = match_bracket(p + 1, (unsigned char)*n, &next);
                in = bracket == BRACKET_IN || (bracket == BRACKET_NONE && *n == '[');
                if (bracket == BRACKET_NONE)
                    next = p + 1;
            } else if (*p == '\\') {
                if (!p[1])
                    return 0; /* a pattern that ends in an escape matches nothing */
                in = p[1] == *n, next = p + 2;
            } else {
                in = *p == *n;
            }
            if (in) {
                p = next, ++n;
                continue;
            }
        } else if (*n == '\0' && *p == '\0') {
            return 1;
        }
        if (!star || *star_name == '\0')
            return 0;
        p = star, n = ++star_name; /* the '*' takes one more byte */
    }
}

static int matches_any(const path_list *globs, const char *name)
{
    size_t i;
    for (i = 0; i < globs->count; ++i)
        if (glob_matches(globs->items[i], name))
            return 1;
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int selected(const check_options *o, const char *name)
{
    const char *key = name;
    if (o->filters.count && !matches_any(&o->filters, name))
        return 0;
    if (matches_any(&o->excludes, name))
        return 0;
    return !o->rerun || bsearch(&key, o->rerun_names.items, o->rerun_names.count,
                                sizeof *o->rerun_names.items, compare_names) != NULL;
}

/* A --rerun-failed report is read whole, and parsed into a tree: both are
   bounded.  A report of the whole suite is under 1 MB. */
#define RERUN_MAX_BYTES (32ul << 20)
#define RERUN_MAX_TREE_BYTES (512ul << 20)

/* What jansson may allocate for the parse tree of `text`: its tokens
   counted, each charged what jansson allocates for one (the vector reader's
   charges, src/vector/read.c). */
static double parse_tree_bytes(const char *text, size_t length)
{
    double bytes = 1024, string_bytes = 0, longest = 0;
    size_t i, start = 0;
    int in_string = 0, in_word = 0;
    for (i = 0; i < length; ++i) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = 0;
                string_bytes += (double)(i - start);
                if ((double)(i - start) > longest)
                    longest = (double)(i - start);
            }
            continue;
        }
        if (c == '"') {
            in_string = 1, in_word = 0, start = i + 1;
            bytes += 128;
        } else if (isalnum((unsigned char)c) || c == '-' || c == '+' || c == '.') {
            bytes += in_word ? 0 : 64; /* a number, true, false or null */
            in_word = 1;
        } else {
            in_word = 0;
            bytes += c == '[' ? 192 : c == '{' ? 320 : c == ':' ? 64 : 0;
        }
    }
    return bytes + string_bytes + 4 * longest;
}

/* The report's text, read whole (a regular file, at most RERUN_MAX_BYTES);
   NULL with a message on stderr. */
static char *read_report(const char *path, size_t *length)
{
    FILE *f;
    char *text;
    int reason = open_regular_file(path, &f);
    if (reason) {
        fprintf(stderr, "dmlref check: %s: cannot read the --rerun-failed report: %s\n", path,
                reason_text(reason));
        return NULL;
    }
    if (!(text = malloc(RERUN_MAX_BYTES + 1))) {
        fclose(f);
        fprintf(stderr, "dmlref check: %s: out of memory\n", path);
        return NULL;
    }
    *length = fread(text, 1, RERUN_MAX_BYTES + 1, f);
    reason = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (reason) {
        fprintf(stderr, "dmlref check: %s: cannot read the --rerun-failed report: %s\n", path,
                reason_text(reason));
    } else if (*length > RERUN_MAX_BYTES) {
        fprintf(stderr,
                "dmlref check: %s: more than %lu MiB, more than a --rerun-failed report may "
                "have (a report of the whole suite is under 1 MiB)\n",
                path, RERUN_MAX_BYTES >> 20);
    } else if (parse_tree_bytes(text, *length) > (double)RERUN_MAX_TREE_BYTES) {
        fprintf(stderr,
                "dmlref check: %s: $: its %zu bytes of JSON would take %.0f MiB to parse, more "
                "than the %lu MiB a --rerun-failed report may take\n",
                path, *length, parse_tree_bytes(text, *length) / (1 << 20),
                RERUN_MAX_TREE_BYTES >> 20);
    } else {
        return text;
    }
    free(text);
    return NULL;
}

/* The names of the failed and erroring cases of a --json report. */
static int read_rerun_list(const char *path, path_list *names)
{
    json_error_t jerr;
    json_t *root, *list, *item;
    size_t i, length = 0;
    char *text = read_report(path, &length);
    if (!text)
        return 0;
    memset(&jerr, 0, sizeof jerr);
    root = json_loadb(text, length, 0, &jerr);
    free(text);
    if (!root && !jerr.text[0]) {
        fprintf(stderr, "dmlref check: %s: $: out of memory parsing %zu bytes of JSON\n", path,
                length);
        return 0;
    }
    if (!root) {
        fprintf(stderr, "dmlref check: %s: line %d, column %d: %s\n", path, jerr.line, jerr.column,
                jerr.text);
        return 0;
    }
    list = json_object_get(root, "results");
    if (!json_is_array(list)) {
        fprintf(stderr,
                "dmlref check: %s: $.results: a dmlref check --json report has an array "
                "of results\n",
                path);
        json_decref(root);
        return 0;
    }
    json_array_foreach(list, i, item)
    {
        const char *name = json_string_value(json_object_get(item, "name"));
        const char *outcome = json_string_value(json_object_get(item, "result"));
        if (!name || !outcome) {
            fprintf(stderr, "dmlref check: %s: $.results[%zu]: needs \"name\" and \"result\"\n",
                    path, i);
            json_decref(root);
            return 0;
        }
        if ((strcmp(outcome, "fail") == 0 || strcmp(outcome, "error") == 0) &&
            !list_add(names, name)) {
            json_decref(root);
            fprintf(stderr, "dmlref check: %s: out of memory\n", path);
            return 0;
        }
    }
    json_decref(root);
    if (names->count > 1) /* an empty list's items are NULL, which qsort may not take */
        qsort(names->items, names->count, sizeof *names->items, compare_names);
    return 1;
}

/* Every name of the --rerun-failed report is a vector's among `files` (all
   shards): 0, naming the first that is not and how many, when the suite
   has lost some, which a rerun would otherwise pass over in silence. */
static int rerun_names_found(const check_options *o, const path_list *files)
{
    unsigned char *found = calloc(o->rerun_names.count + 1, 1);
    size_t i, missing = 0, first = 0;
    if (!found) {
        fprintf(stderr, "dmlref check: out of memory\n");
        return 0;
    }
    for (i = 0; i < files->count; ++i) {
        dmlref_vector *v;
        dmlref_error err;
        dmlref_vector_read_options read = read_options(0);
        const char *name;
        char **at;
        if (dmlref_vector_load(files->items[i], &read, &v, &err) != DMLREF_OK)
            continue; /* the run reports it */
        name = dmlref_vector_name(v);
        at = bsearch(&name, o->rerun_names.items, o->rerun_names.count,
                     sizeof *o->rerun_names.items, compare_names);
        if (at)
            found[at - o->rerun_names.items] = 1;
        dmlref_vector_free(v);
    }
    for (i = o->rerun_names.count; i-- > 0;)
        if (!found[i])
            ++missing, first = i;
    if (missing) {
        char name[256];
        clean_text(name, sizeof name, o->rerun_names.items[first]);
        fprintf(stderr,
                "dmlref check: %s: %zu of its %zu failed cases are not among the vectors given, "
                "the first: %s (run the whole suite for a new report)\n",
                o->rerun, missing, o->rerun_names.count, name);
    }
    free(found);
    return missing == 0;
}

/* The last '/' of a path, or '\\' (a separator on Windows; on POSIX, in
   a name, it only makes two spellings of one new file look like two). */
static const char *last_separator(const char *path)
{
    const char *slash = strrchr(path, '/'), *backslash = strrchr(path, '\\');
    if (!slash || (backslash && backslash > slash))
        return backslash;
    return slash;
}

/* Whether two paths name one file: the same text, the same file, or, for
   files not there yet, the same name in the same folder. */
static int same_report_file(const char *a, const char *b)
{
    file_facts fa, fb;
    const char *base_a, *base_b;
    char folder_a[4096], folder_b[4096];
    int ra, rb;
    if (strcmp(a, b) == 0)
        return 1;
    ra = path_facts(a, &fa), rb = path_facts(b, &fb);
    if (ra == 0 && rb == 0)
        return same_file(&fa.identity, &fb.identity);
    if (ra == 0 || rb == 0)
        return 0;
    base_a = last_separator(a), base_b = last_separator(b);
    snprintf(folder_a, sizeof folder_a, "%.*s", base_a ? (int)(base_a - a + 1) : 1,
             base_a ? a : ".");
    snprintf(folder_b, sizeof folder_b, "%.*s", base_b ? (int)(base_b - b + 1) : 1,
             base_b ? b : ".");
    base_a = base_a ? base_a + 1 : a, base_b = base_b ? base_b + 1 : b;
    return strcmp(base_a, base_b) == 0 && path_facts(folder_a, &fa) == 0 &&
           path_facts(folder_b, &fb) == 0 && same_file(&fa.identity, &fb.identity);
}

/* ---- one case ------------------------------------------------------------------ */

typedef struct runner {
    const check_options *o;
    backend *b;
    int answered; /* the backend has answered a case */
    unsigned long same_failures;
    char last_failure[sizeof((backend_run *)0)->message];
    int fatal; /* the backend cannot run: stop */
    char fatal_reason[DMLREF_ERROR_MESSAGE_CAPACITY + 768];
    /* A result waits until the next case has started (or the run ended): a
       backend that writes after its reply is charged to the case it replied
       to. */
    result held;
    int holding;
} runner;

/* Notes a backend that fails every case the same way before it answers any. */
static void watch_for_a_dead_backend(runner *rn, const backend_run *run)
{
    if (run->kind != RUN_ERROR) {
        rn->answered = 1;
        return;
    }
    if (run->fatal) {
        rn->fatal = 1;
        snprintf(rn->fatal_reason, sizeof rn->fatal_reason, "%s", run->message);
        return;
    }
    if (rn->answered)
        return;
    if (strcmp(run->message, rn->last_failure) == 0) {
        ++rn->same_failures;
    } else {
        rn->same_failures = 1;
        snprintf(rn->last_failure, sizeof rn->last_failure, "%s", run->message);
    }
    if (rn->same_failures >= FAILURES_BEFORE_GIVING_UP) {
        rn->fatal = 1;
        snprintf(rn->fatal_reason, sizeof rn->fatal_reason,
                 "the backend failed its first %d cases the same way without answering any: %s",
                 FAILURES_BEFORE_GIVING_UP, run->message);
    }
}

/* The held result, an error now: the backend wrote after its reply. */
static void charge_late(runner *rn, const char *what)
{
    result *r = &rn->held;
    char message[sizeof r->message + 256];
    if (!rn->holding)
        return;
    snprintf(message, sizeof message, "%s%s%s", r->outcome == CASE_PASS ? "" : r->message,
             r->outcome == CASE_PASS || !r->message[0] ? "" : "; and ", what);
    r->outcome = CASE_ERROR;
    clean_text(r->message, sizeof r->message, message);
}

/* Hands on the held result (if any) and holds r (if not NULL) instead;
   `hand_on` takes one result: 0 when it cannot. */
static int pass_on(runner *rn, const result *r, int (*hand_on)(void *, const result *), void *to)
{
    int ok = !rn->holding || hand_on(to, &rn->held);
    rn->holding = r != NULL;
    if (r)
        rn->held = *r;
    return ok;
}

/* After the last case: the backend's last writes, then the held result. */
static int finish(runner *rn, int (*hand_on)(void *, const result *), void *to)
{
    backend_run late;
    backend_finish(rn->b, &late);
    if (late.late)
        charge_late(rn, late.late_message);
    return pass_on(rn, NULL, hand_on, to);
}

/* Runs the vector of files[index] if the selection takes it: 1 with *r set,
   0 when it is not selected. */
static int run_file(runner *rn, const char *path, size_t index, result *r)
{
    const check_options *o = rn->o;
    dmlref_vector *v;
    dmlref_error err;
    dmlref_feature_level level;
    dmlref_vector_read_options read = read_options(0);
    expectation e;
    backend_run run;
    char message[sizeof r->message];

    memset(r, 0, sizeof *r);
    r->file = index;
    if (dmlref_vector_load(path, &read, &v, &err) != DMLREF_OK) {
        clean_text(r->name, sizeof r->name, path);
        snprintf(r->op, sizeof r->op, "unreadable");
        r->outcome = CASE_ERROR;
        r->bad_input = 1;
        snprintf(message, sizeof message, "cannot read the vector: %s", err.message);
        clean_text(r->message, sizeof r->message, message);
        return 1;
    }
    if (!selected(o, dmlref_vector_name(v))) {
        dmlref_vector_free(v);
        return 0;
    }
    clean_text(r->name, sizeof r->name, dmlref_vector_name(v));
    snprintf(r->op, sizeof r->op, "%s", dmlref_operator_name(dmlref_vector_operator(v)->Type));
    /* the vector's own level, or the backend's when that is lower */
    level = dmlref_vector_feature_level(v);
    if (o->level && o->level < level)
        level = o->level;
    if (backend_max_level(rn->b) < level)
        level = backend_max_level(rn->b);
    expectation_at(v, level, &e);
    if (!e.must_refuse && !dmlref_vector_has_data(v)) {
        r->outcome = CASE_ERROR;
        r->bad_input = 1;
        snprintf(r->message, sizeof r->message, "the vector has no data");
        dmlref_vector_free(v);
        return 1;
    }
    backend_run_case(rn->b, v, level, &run);
    r->seconds = run.seconds;
    if (run.late)
        charge_late(rn, run.late_message);
    watch_for_a_dead_backend(rn, &run);
    r->outcome = judge_run_naming(v, &e, &run, o->strict_status, message, sizeof message,
                                  r->element, sizeof r->element);
    r->unsupported = r->outcome == CASE_PASS && run_says_unsupported(&run);
    clean_text(r->message, sizeof r->message, message);
    dmlref_vector_free(v);
    return 1;
}

/* ---- running the selection: serially, or in --jobs worker processes ------------ */

typedef struct run_state {
    results all;
    progress shown;
    int stopped_fatal;
    char fatal_reason[sizeof((runner *)0)->fatal_reason];
    int stopped_at_max;
    const path_list *files;
    /* --jobs: what the jobs answered for each file, until the files before
       it are answered too: results are taken in the files' order, so the
       report, and where --max-failures stops it, are a serial run's */
    result **waiting;
    unsigned char *answered;
    size_t next; /* the first file not taken yet */
} run_state;

static int reached_max_failures(const check_options *o, const results *all)
{
    return o->max_failures && all->failed + all->errors >= o->max_failures;
}

/* Takes one result: counts, prints, stores; 0 when memory ran out. */
static int take(run_state *st, const check_options *o, const result *r)
{
    progress_clear(&st->shown);
    print_result(o, r, st->files->items[r->file]);
    if (!add(&st->all, r))
        return 0;
    progress_show(&st->shown, &st->all);
    return 1;
}

static int in_shard(const check_options *o, size_t index)
{
    return index % o->shards == o->shard - 1;
}

typedef struct serial_sink {
    run_state *st;
    const check_options *o;
} serial_sink;

static int take_result(void *to, const result *r)
{
    serial_sink *sink = to;
    return take(sink->st, sink->o, r);
}

/* Whether the result held back (until the next case starts) failed. */
static unsigned long held_failure(const runner *rn)
{
    return rn->holding && (rn->held.outcome == CASE_FAIL || rn->held.outcome == CASE_ERROR);
}

static void run_serially(run_state *st, const check_options *o, backend *b, const path_list *files)
{
    runner rn;
    serial_sink sink;
    size_t i;
    int ok = 1;
    memset(&rn, 0, sizeof rn);
    rn.o = o, rn.b = b;
    sink.st = st, sink.o = o;
    for (i = 0; i < files->count && ok && !st->stopped_fatal && !st->stopped_at_max; ++i) {
        result r;
        if (!in_shard(o, i))
            continue;
        ++st->shown.done;
        if (run_file(&rn, files->items[i], i, &r))
            ok = pass_on(&rn, &r, take_result, &sink);
        if (rn.fatal) {
            st->stopped_fatal = 1;
            snprintf(st->fatal_reason, sizeof st->fatal_reason, "%s", rn.fatal_reason);
        }
        /* the held result counts: the run stops right after the failure */
        st->stopped_at_max = o->max_failures &&
                             st->all.failed + st->all.errors + held_failure(&rn) >= o->max_failures;
    }
    if (!finish(&rn, take_result, &sink) || !ok) {
        st->stopped_fatal = 1;
        snprintf(st->fatal_reason, sizeof st->fatal_reason, "out of memory");
    }
}

/* ---- --jobs ---------------------------------------------------------------------
 * Each job is a worker process of dmlref's own (src/platform/process.h: a
 * fork on POSIX, dmlref started again on Windows) with a backend of its own.
 * It is told everything over its link, the same way on every system: the
 * options that decide a case's verdict, then files (each with its place in
 * the files' order), dealt as the jobs ask for them: each job holds at most
 * JOB_FILES_AHEAD files not yet answered, so a job on a slow case does not
 * hold back files the other jobs could run.  The parent closes the link
 * when no file is left.  The job answers with one record a line, fields
 * split by tabs (the text fields are clean_text()'s output, which holds no
 * tab):
 *   R <file> <outcome> <bad_input> <seconds> <name> <op> <message> <element>
 *   F <reason>          the backend cannot run
 *   N <file>            a file not selected
 *   W                   a file done: the job wants another
 * and the parent takes the results in the files' order: each waits until
 * every file before it is answered. */

/* The work sent down a job's link: texts, each a 4-byte length in the
   machine's order (JOB_NO_TEXT for none) and its bytes; numbers as decimal
   texts, which read back exactly. */
#define JOB_NO_TEXT 0xFFFFFFFFu

typedef struct job_work {
    unsigned char *bytes;
    size_t length, capacity;
    int failed; /* memory ran out */
} job_work;

static void put_bytes(job_work *w, const void *bytes, size_t length)
{
    if (w->failed)
        return;
    if (w->length + length > w->capacity) {
        size_t capacity = w->capacity ? w->capacity : 4096;
        unsigned char *grown;
        while (w->length + length > capacity)
            capacity *= 2;
        if (!(grown = realloc(w->bytes, capacity))) {
            w->failed = 1;
            return;
        }
        w->bytes = grown, w->capacity = capacity;
    }
    memcpy(w->bytes + w->length, bytes, length);
    w->length += length;
}

static void put_text(job_work *w, const char *text)
{
    uint32_t length = text ? (uint32_t)strlen(text) : JOB_NO_TEXT;
    put_bytes(w, &length, sizeof length);
    if (text)
        put_bytes(w, text, length);
}

static void put_number(job_work *w, double number)
{
    char text[64];
    snprintf(text, sizeof text, "%.17g", number);
    put_text(w, text);
}

static void put_list(job_work *w, const path_list *l)
{
    size_t i;
    put_number(w, (double)l->count);
    for (i = 0; i < l->count; ++i)
        put_text(w, l->items[i]);
}

/* Files a job holds at once: the one it runs and the next, so it never
   waits for the parent between two. */
#define JOB_FILES_AHEAD 2

/* What every job is told first: the options. */
static void make_work(job_work *w, const check_options *o)
{
    put_text(w, o->backend);
    put_text(w, o->exec);
    put_text(w, o->backend_options);
    put_number(w, (double)o->level);
    put_number(w, o->timeout);
    put_number(w, o->strict_status);
    put_list(w, &o->filters);
    put_list(w, &o->excludes);
    put_number(w, o->rerun != NULL);
    put_list(w, &o->rerun_names);
}

/* A job's reading of its work.  A text (caller frees), NULL for none; *ok
   becomes 0 when the link ends or memory runs out. */
static char *take_text(worker_link *link, int *ok)
{
    uint32_t length;
    char *text;
    if (!*ok || !worker_link_read(link, &length, sizeof length))
        return *ok = 0, NULL;
    if (length == JOB_NO_TEXT)
        return NULL;
    if (!(text = malloc((size_t)length + 1)) || !worker_link_read(link, text, length)) {
        free(text);
        return *ok = 0, NULL;
    }
    text[length] = '\0';
    return text;
}

static double take_number(worker_link *link, int *ok)
{
    char *text = take_text(link, ok);
    double number = text ? strtod(text, NULL) : 0;
    if (!text)
        *ok = 0;
    free(text);
    return number;
}

static void take_list(worker_link *link, path_list *l, int *ok)
{
    double n = take_number(link, ok), i;
    for (i = 0; *ok && i < n; ++i) {
        char *text = take_text(link, ok);
        if (!text || !list_add(l, text))
            *ok = 0;
        free(text);
    }
}

/* One record down the link: 0 when the parent is gone. */
static int send_record(worker_link *link, const char *format, ...) PRINTF_LIKE(2, 3);
static int send_record(worker_link *link, const char *format, ...)
{
    char line[sizeof(result) + 128]; /* any record fits */
    va_list args;
    int n;
    va_start(args, format);
    n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    return n > 0 && (size_t)n < sizeof line && worker_link_write(link, line, (size_t)n);
}

static int send_result(void *to, const result *r)
{
    return send_record(to, "R\t%zu\t%d\t%d\t%d\t%.6f\t%s\t%s\t%s\t%s\n", r->file, (int)r->outcome,
                       r->bad_input, r->unsupported, r->seconds, r->name, r->op, r->message,
                       r->element);
}

/* The job's side: reads the options, then runs the files it is dealt, one
   at a time, on a backend of its own, sends the records of each and asks
   for another, until the parent closes the link. */
int check_job_worker(worker_link *link, int argc, char **argv)
{
    check_options o;
    char *backend_path, *exec, *backend_options, *path = NULL;
    int ok = 1, rerun;
    runner rn;
    (void)argc, (void)argv;

    memset(&o, 0, sizeof o);
    memset(&rn, 0, sizeof rn);
    backend_path = take_text(link, &ok);
    exec = take_text(link, &ok);
    backend_options = take_text(link, &ok);
    o.backend = backend_path, o.exec = exec, o.backend_options = backend_options;
    o.level = (dmlref_feature_level)take_number(link, &ok);
    o.timeout = take_number(link, &ok);
    o.strict_status = (int)take_number(link, &ok);
    take_list(link, &o.filters, &ok);
    take_list(link, &o.excludes, &ok);
    rerun = take_number(link, &ok) != 0;
    o.rerun = rerun ? "" : NULL; /* the names below are what counts */
    take_list(link, &o.rerun_names, &ok);
    o.jobs = o.shards = o.shard = 1;
    rn.o = &o;
    if (ok && !(rn.b = backend_open(o.backend, o.exec, o.backend_options, o.timeout))) {
        send_record(link, "F\ta job cannot open the backend\n");
        ok = 0;
    }
    while (ok) {
        result r;
        /* a file: its place in the files' order, its path; none when the
           parent has closed the link */
        size_t place = (size_t)take_number(link, &ok);
        free(path);
        path = NULL; /* freed: the link may end here */
        if (!ok || !(path = take_text(link, &ok)))
            break;
        if (!run_file(&rn, path, place, &r))
            ok = send_record(link, "N\t%zu\n", place);
        else
            ok = pass_on(&rn, &r, send_result, link);
        ok = ok && send_record(link, "W\n");
        if (rn.fatal) {
            char reason[sizeof rn.fatal_reason];
            clean_text(reason, sizeof reason, rn.fatal_reason);
            finish(&rn, send_result, link);
            send_record(link, "F\t%s\n", reason);
            ok = 0;
        }
    }
    if (rn.b && !rn.fatal)
        finish(&rn, send_result, link);
    backend_close(rn.b);
    free(backend_path), free(exec), free(backend_options), free(path);
    list_free(&o.filters), list_free(&o.excludes), list_free(&o.rerun_names);
    return 0;
}

static const worker_kind k_check_job = {CHECK_JOB_WORKER, check_job_worker};

/* Takes, in the files' order, every answered file not taken yet: 0 when
   memory ran out. */
static int take_in_order(run_state *st, const check_options *o)
{
    const path_list *files = st->files;
    for (; st->next < files->count && !st->stopped_at_max; ++st->next) {
        result *r = st->waiting[st->next];
        if (!in_shard(o, st->next))
            continue;
        if (!st->answered[st->next])
            break;
        st->waiting[st->next] = NULL;
        if (r) {
            int taken;
            ++st->shown.done;
            taken = take(st, o, r);
            free(r);
            if (!taken)
                return 0;
        } else { /* not selected */
            ++st->shown.done;
            progress_show(&st->shown, &st->all);
        }
        st->stopped_at_max = reached_max_failures(o, &st->all);
    }
    return 1;
}

/* A job's answer for a file: 0 when it names no file dealt and not yet
   answered. */
static int answer(run_state *st, const char *file_text, const result *r, int *out_of_memory)
{
    char *end;
    unsigned long long file = strtoull(file_text, &end, 10);
    if (!*file_text || *end || file >= st->files->count || st->answered[file])
        return 0;
    if (r && !(st->waiting[file] = malloc(sizeof *r))) {
        *out_of_memory = 1;
        return 1;
    }
    if (r)
        *st->waiting[file] = *r;
    st->answered[file] = 1;
    return 1;
}

/* One record line of a job; 0 when it is not one. */
static int parse_record(run_state *st, const check_options *o, char *line)
{
    char *field[10], *cursor = line;
    int n = 0, out_of_memory = 0, known;
    result r;
    while (n < 10 && (field[n] = cursor) != NULL) {
        cursor = strchr(cursor, '\t');
        ++n;
        if (cursor)
            *cursor++ = '\0';
    }
    if (n == 2 && strcmp(field[0], "F") == 0) {
        st->stopped_fatal = 1;
        snprintf(st->fatal_reason, sizeof st->fatal_reason, "%s", field[1]);
        return 1;
    }
    if (n == 2 && strcmp(field[0], "N") == 0) {
        known = answer(st, field[1], NULL, &out_of_memory);
    } else if (n == 10 && strcmp(field[0], "R") == 0) {
        memset(&r, 0, sizeof r);
        r.file = (size_t)strtoull(field[1], NULL, 10);
        r.outcome = (case_result)atoi(field[2]);
        r.bad_input = atoi(field[3]);
        r.unsupported = atoi(field[4]);
        r.seconds = strtod(field[5], NULL);
        snprintf(r.name, sizeof r.name, "%s", field[6]);
        snprintf(r.op, sizeof r.op, "%s", field[7]);
        snprintf(r.message, sizeof r.message, "%s", field[8]);
        snprintf(r.element, sizeof r.element, "%s", field[9]);
        known = r.outcome >= CASE_PASS && r.outcome <= CASE_ERROR &&
                answer(st, field[1], &r, &out_of_memory);
    } else {
        return 0;
    }
    if (!known)
        return 0;
    return !out_of_memory && take_in_order(st, o);
}

static int by_file(const void *a, const void *b)
{
    const result *x = a, *y = b;
    return x->file < y->file ? -1 : x->file > y->file;
}

/* The parent's side of one job. */
typedef struct job {
    child *process;
    channel *to, *from; /* from: NULL once the job's records have ended */
    line_reader records;
    size_t files, answered; /* the files it was given; its R and N records */
} job;

/* The files not dealt yet: the selection's from `next` on. */
typedef struct dealer {
    const path_list *files;
    size_t next;
} dealer;

/* Sends a job the next file of the selection, or, when none is left, closes
   its link: 1, or 0 when the job cannot be told. */
static int deal_file(job *jb, const check_options *o, dealer *d)
{
    job_work w = {NULL, 0, 0, 0};
    int sent;
    if (!jb->to)
        return 1;
    while (d->next < d->files->count && !in_shard(o, d->next))
        ++d->next;
    if (d->next == d->files->count) {
        channel_close(jb->to); /* the end of its work */
        jb->to = NULL;
        return 1;
    }
    put_number(&w, (double)d->next);
    put_text(&w, d->files->items[d->next]);
    ++d->next;
    ++jb->files;
    sent = !w.failed && channel_write(jb->to, w.bytes, w.length, NULL) == CHANNEL_DONE;
    free(w.bytes);
    return sent;
}

/* Starts job j and sends it the options and its first files: 1, or 0 when
   it cannot. */
static int job_start(job *jb, const check_options *o, dealer *d, unsigned long j)
{
    job_work w = {NULL, 0, 0, 0};
    char number[32];
    const char *argv[1];
    int sent, k;
    snprintf(number, sizeof number, "%lu", j); /* only to tell the jobs apart */
    argv[0] = number;
    if (!(jb->process = child_start_worker(&k_check_job, 1, argv, NULL, NULL,
                                           CHILD_STOP_TERMINATE_FIRST, &jb->to, &jb->from)))
        return 0;
    make_work(&w, o);
    sent = !w.failed && channel_write(jb->to, w.bytes, w.length, NULL) == CHANNEL_DONE;
    free(w.bytes);
    for (k = 0; sent && k < JOB_FILES_AHEAD; ++k)
        sent = deal_file(jb, o, d);
    return sent;
}

/* Takes what job j sent: its whole records, dealing it a file for each W.
   0 when its records have ended. */
static int job_receive(run_state *st, const check_options *o, job *jb, dealer *d)
{
    size_t room, got;
    char *space = line_reader_space(&jb->records, &room), *line;
    size_t length;
    channel_result end;
    if (!space) {
        st->stopped_fatal = 1;
        snprintf(st->fatal_reason, sizeof st->fatal_reason,
                 "a job sent a record dmlref cannot read");
        return 0;
    }
    end = channel_read_now(jb->from, space, room, &got);
    if (end == CHANNEL_NOTHING)
        return 1;
    if (end != CHANNEL_DONE)
        return 0;
    line_reader_received(&jb->records, got);
    while (!st->stopped_fatal && !st->stopped_at_max &&
           line_reader_next(&jb->records, &line, &length) == LINE_READY) {
        jb->answered += line[0] == 'R' || line[0] == 'N';
        if (length == 1 && line[0] == 'W') {
            if (!deal_file(jb, o, d)) {
                st->stopped_fatal = 1;
                snprintf(st->fatal_reason, sizeof st->fatal_reason,
                         "dmlref cannot send a job its next file");
            }
            continue;
        }
        if (!parse_record(st, o, line)) {
            st->stopped_fatal = 1;
            snprintf(st->fatal_reason, sizeof st->fatal_reason,
                     "a job sent a record dmlref cannot read, or memory ran out");
        }
    }
    return 1;
}

/* --jobs N: N jobs take the files of the selection as they finish the ones
   before. */
static void run_in_jobs(run_state *st, const check_options *o, const path_list *files)
{
    job jobs[CHECK_MAX_JOBS];
    channel *from[CHECK_MAX_JOBS];
    unsigned long j, open_jobs = 0;
    dealer d;
    size_t i;

    d.files = files, d.next = 0;
    memset(jobs, 0, sizeof jobs);
    st->waiting = calloc(files->count + 1, sizeof *st->waiting);
    st->answered = calloc(files->count + 1, 1);
    if (!st->waiting || !st->answered) {
        free(st->waiting), free(st->answered);
        st->stopped_fatal = 1;
        snprintf(st->fatal_reason, sizeof st->fatal_reason, "out of memory");
        return;
    }
    for (j = 0; j < o->jobs; ++j) {
        line_reader_init(&jobs[j].records, 1 << 16);
        if (!job_start(&jobs[j], o, &d, j)) {
            st->stopped_fatal = 1;
            snprintf(st->fatal_reason, sizeof st->fatal_reason, "cannot start %lu jobs", o->jobs);
            break;
        }
        ++open_jobs;
    }
    while (open_jobs && !st->stopped_fatal && !st->stopped_at_max) {
        int ready;
        for (j = 0; j < o->jobs; ++j)
            from[j] = jobs[j].from;
        if ((ready = channel_wait_readable(from, o->jobs, NULL)) < 0)
            break;
        if (!job_receive(st, o, &jobs[ready], &d)) {
            channel_close(jobs[ready].from);
            jobs[ready].from = NULL;
            --open_jobs;
            if (jobs[ready].answered < jobs[ready].files && !st->stopped_fatal) {
                st->stopped_fatal = 1;
                snprintf(st->fatal_reason, sizeof st->fatal_reason,
                         "a job ended before it had run its cases");
            }
        }
    }
    for (j = 0; j < o->jobs; ++j) {
        /* a job that was told everything ends by itself; one stopped early
           ends its backend first (CHILD_STOP_TERMINATE_FIRST) */
        if (jobs[j].process && !st->stopped_fatal && !st->stopped_at_max)
            child_wait(jobs[j].process, 10);
        child_stop(jobs[j].process);
        channel_close(jobs[j].to);
        channel_close(jobs[j].from);
        line_reader_free(&jobs[j].records);
    }
    /* a run cut short: what was answered after a file that was not is
       still reported, in order */
    for (i = st->next; i < files->count; ++i) {
        if (st->waiting[i] && !st->stopped_at_max && !take(st, o, st->waiting[i]) &&
            !st->stopped_fatal) {
            st->stopped_fatal = 1;
            snprintf(st->fatal_reason, sizeof st->fatal_reason, "out of memory");
        }
        free(st->waiting[i]);
    }
    free(st->waiting), free(st->answered);
    st->waiting = NULL, st->answered = NULL;
    if (st->all.count > 1)
        qsort(st->all.items, st->all.count, sizeof *st->all.items, by_file);
}

/* ---- reports ----------------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f); /* clean_text() left no control character */
        }
    }
}

static void json_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* The command that runs one vector again on the same backend. */
static void reproduce_command(const check_options *o, const char *path, char *out, size_t capacity)
{
    char backend_word[1024], options_word[1024] = "", path_word[1024];
    shell_word(backend_word, sizeof backend_word, o->backend ? o->backend : o->exec);
    if (o->backend_options) {
        char quoted[1000];
        shell_word(quoted, sizeof quoted, o->backend_options);
        snprintf(options_word, sizeof options_word, " --backend-options %s", quoted);
    }
    shell_word(path_word, sizeof path_word, path);
    snprintf(out, capacity, "dmlref check %s %s%s%s%s%s %s", o->backend ? "--backend" : "--exec",
             backend_word, options_word, o->level ? " --feature-level " : "",
             o->level ? dmlref_feature_level_name(o->level) : "",
             o->strict_status ? " --strict-status" : "", path_word);
}

typedef struct report {
    const check_options *o;
    const results *all;
    const path_list *files;
    const char *tested, *tested_version;
} report;

static void tally_suite(const results *all, const char *op, unsigned long *n, unsigned long *failed,
                        unsigned long *errors, unsigned long *skipped, double *seconds)
{
    size_t i;
    *n = *failed = *errors = *skipped = 0, *seconds = 0;
    for (i = 0; i < all->count; ++i) {
        const result *r = &all->items[i];
        if (strcmp(r->op, op) != 0)
            continue;
        ++*n, *seconds += r->seconds;
        *failed += r->outcome == CASE_FAIL;
        *errors += r->outcome == CASE_ERROR;
        *skipped += r->outcome == CASE_SKIP;
    }
}

/* JUnit XML: one <testsuite> per operator, each case with its time; a failure
   or error names the vector's file and the command that reproduces it, and a
   wrong element the command that derives it. */
static int write_junit(FILE *f, const void *context)
{
    const report *rep = context;
    const results *all = rep->all;
    size_t i, k;
    double total = 0;
    for (i = 0; i < all->count; ++i)
        total += all->items[i].seconds;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dmlref check ");
    xml_text(f, rep->tested);
    fprintf(f, "\" tests=\"%zu\" failures=\"%lu\" errors=\"%lu\" skipped=\"%lu\" time=\"%.6f\">\n",
            all->count, all->failed, all->errors, all->skipped, total);
    for (i = 0; i < all->count; ++i) {
        const char *op = all->items[i].op;
        unsigned long n, failed, errors, skipped;
        double seconds;
        for (k = 0; k < i && strcmp(all->items[k].op, op) != 0; ++k)
            ;
        if (k < i)
            continue; /* this operator's suite is written */
        tally_suite(all, op, &n, &failed, &errors, &skipped, &seconds);
        fprintf(f,
                "  <testsuite name=\"%s\" tests=\"%lu\" failures=\"%lu\" errors=\"%lu\" "
                "skipped=\"%lu\" time=\"%.6f\">\n",
                op, n, failed, errors, skipped, seconds);
        for (k = i; k < all->count; ++k) {
            const result *r = &all->items[k];
            const char *path = rep->files->items[r->file];
            char command[4096], clean[4096];
            if (strcmp(r->op, op) != 0)
                continue;
            fprintf(f, "    <testcase classname=\"%s\" name=\"", op);
            xml_text(f, r->name);
            fprintf(f, "\" file=\"");
            clean_text(clean, sizeof clean, path);
            xml_text(f, clean);
            fprintf(f, "\" time=\"%.6f\"", r->seconds);
            if (r->outcome == CASE_PASS) {
                fprintf(f, "/>\n");
                continue;
            }
            if (r->outcome == CASE_SKIP) {
                fprintf(f, ">\n      <skipped message=\"");
                xml_text(f, r->message);
                fprintf(f, "\"/>\n    </testcase>\n");
                continue;
            }
            reproduce_command(rep->o, path, command, sizeof command);
            clean_text(clean, sizeof clean, command);
            fprintf(f, ">\n      <%s message=\"", r->outcome == CASE_FAIL ? "failure" : "error");
            xml_text(f, r->message);
            fprintf(f, "\">");
            xml_text(f, r->message);
            fprintf(f, "\nvector: ");
            clean_text(command, sizeof command, path);
            xml_text(f, command);
            fprintf(f, "\nreproduce: ");
            xml_text(f, clean);
            explain_command(r, path, command, sizeof command);
            clean_text(clean, sizeof clean, command);
            if (clean[0]) {
                fprintf(f, "\nderive it: ");
                xml_text(f, clean);
            }
            fprintf(f, "</%s>\n    </testcase>\n", r->outcome == CASE_FAIL ? "failure" : "error");
        }
        fprintf(f, "  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
    return 1;
}

static int write_json(FILE *f, const void *context)
{
    static const char *const lower[] = {"pass", "fail", "skip", "error"};
    const report *rep = context;
    const results *all = rep->all;
    size_t i;
    char clean[4096];
    fprintf(f, "{\"tool\": \"dmlref check\", \"version\": \"%s\", \"backend\": {\"name\": ",
            dmlref_version_string());
    clean_text(clean, sizeof clean, rep->tested);
    json_text(f, clean);
    fprintf(f, ", \"version\": ");
    clean_text(clean, sizeof clean, rep->tested_version);
    json_text(f, clean);
    fprintf(f,
            "},\n \"summary\": {\"passed\": %lu, \"failed\": %lu, \"skipped\": %lu, "
            "\"errors\": %lu},\n \"results\": [\n",
            all->passed, all->failed, all->skipped, all->errors);
    for (i = 0; i < all->count; ++i) {
        const result *r = &all->items[i];
        fprintf(f, "  {\"name\": ");
        json_text(f, r->name);
        fprintf(f, ", \"operator\": \"%s\", \"path\": ", r->op);
        clean_text(clean, sizeof clean, rep->files->items[r->file]);
        json_text(f, clean);
        fprintf(f, ", \"result\": \"%s\", \"seconds\": %.6f, \"message\": ", lower[r->outcome],
                r->seconds);
        json_text(f, r->message);
        fprintf(f, "}%s\n", i + 1 < all->count ? "," : "");
    }
    fprintf(f, " ]}\n");
    return 1;
}

/* "<label>: N <message>" for the cases of one outcome, the most frequent
   message first: why cases were skipped, which variants passed. */
static void print_reasons(const results *all, case_result outcome, const char *label)
{
    const result **firsts = malloc(all->count * sizeof *firsts);
    unsigned long *counts = calloc(all->count + 1, sizeof *counts);
    size_t i, k, reasons = 0, shown;
    if (!firsts || !counts) {
        free(firsts);
        free(counts);
        return;
    }
    for (i = 0; i < all->count; ++i) {
        const result *r = &all->items[i];
        if (r->outcome != outcome || !r->message[0])
            continue;
        for (k = 0; k < reasons && strcmp(firsts[k]->message, r->message) != 0; ++k)
            ;
        if (k == reasons)
            firsts[reasons++] = r;
        ++counts[k];
    }
    for (shown = 0; shown < reasons && shown < 10; ++shown) {
        size_t best = shown;
        for (k = shown + 1; k < reasons; ++k)
            if (counts[k] > counts[best])
                best = k;
        if (best != shown) { /* selection sort, most frequent first */
            const result *r = firsts[best];
            unsigned long c = counts[best];
            firsts[best] = firsts[shown], counts[best] = counts[shown];
            firsts[shown] = r, counts[shown] = c;
        }
        printf("%s: %lu %s\n", label, counts[shown], firsts[shown]->message);
    }
    if (reasons > shown)
        printf("%s: %lu more reasons (the reports list every case)\n", label,
               (unsigned long)(reasons - shown));
    free(firsts);
    free(counts);
}

/* ---- the command ------------------------------------------------------------- */

/* --list: the names of the selected cases. */
static int list_cases(const check_options *o, const path_list *files)
{
    size_t i, n = 0;
    int bad = 0;
    for (i = 0; i < files->count; ++i) {
        dmlref_vector *v;
        dmlref_error err;
        dmlref_vector_read_options read = read_options(0);
        if (!in_shard(o, i))
            continue;
        if (dmlref_vector_load(files->items[i], &read, &v, &err) != DMLREF_OK) {
            fprintf(stderr, "dmlref check: %s\n", err.message);
            bad = 1;
            continue;
        }
        if (selected(o, dmlref_vector_name(v))) {
            printf("%s\n", dmlref_vector_name(v));
            ++n;
        }
        dmlref_vector_free(v);
    }
    fprintf(stderr, "dmlref check: %zu cases selected\n", n);
    if (!n)
        fprintf(stderr, "dmlref check: no case selected\n");
    return bad || !n ? EXIT_BAD_INPUT : EXIT_OK;
}

/* Why nothing was judged, in one line. */
static void say_why_nothing_ran(const check_options *o, const path_list *files, const results *all)
{
    if (!files->count)
        fprintf(stderr, "dmlref check: no case selected: the paths hold no vector\n");
    else if (!all->count)
        fprintf(stderr, "dmlref check: no case selected: %zu vector files, none taken by %s\n",
                files->count,
                o->rerun                                ? "--rerun-failed"
                : o->filters.count || o->excludes.count ? "--filter and --exclude"
                                                        : "--shard");
    else if (!all->passed_unsupported)
        fprintf(stderr, "dmlref check: no case was judged: all %lu selected cases were skipped\n",
                all->skipped);
    else
        fprintf(stderr,
                "dmlref check: no case was judged: of %zu selected cases %lu were skipped and "
                "%lu passed only by answering that the backend cannot run them (where dmlref "
                "refuses them so)\n",
                all->count, all->skipped, all->passed_unsupported);
}

int check_run(check_options *o, path_list *paths)
{
    run_state st;
    path_list files = {NULL, 0, 0};
    backend *b = NULL;
    size_t i;
    int code = EXIT_OK, reports_ok = 1;

    memset(&st, 0, sizeof st);
    if (o->junit && o->json && same_report_file(o->junit, o->json)) {
        fprintf(stderr,
                "dmlref check: --junit %s and --json %s name the same file: one report would "
                "replace the other\n",
                o->junit, o->json);
        code = EXIT_BAD_INPUT;
    }
    if (code == EXIT_OK && o->rerun && !read_rerun_list(o->rerun, &o->rerun_names))
        code = EXIT_BAD_INPUT;
    for (i = 0; code == EXIT_OK && i < paths->count; ++i)
        if (!collect_vectors(paths->items[i], &files))
            st.all.bad_input = 1;
    if (code == EXIT_OK && o->rerun && !rerun_names_found(o, &files))
        code = EXIT_BAD_INPUT;
    if (code == EXIT_OK && o->list)
        code = st.all.bad_input ? EXIT_BAD_INPUT : list_cases(o, &files);
    else if (code == EXIT_OK &&
             !(b = backend_open(o->backend, o->exec, o->backend_options, o->timeout)))
        code = EXIT_BAD_INPUT;
    if (code != EXIT_OK || o->list)
        goto done;

    {
        char name[1024], version[256];
        clean_text(name, sizeof name, backend_name(b));
        clean_text(version, sizeof version, backend_version(b));
        printf("dmlref check %s: %s%s%s\n", dmlref_version_string(), name, version[0] ? " " : "",
               version);
    }
    fflush(stdout);
    st.shown.on = is_terminal(stderr);
    st.files = &files;
    for (i = 0; i < files.count; ++i)
        if (in_shard(o, i))
            ++st.shown.total;
    if (o->jobs > 1)
        run_in_jobs(&st, o, &files);
    else
        run_serially(&st, o, b, &files);
    progress_clear(&st.shown);

    {
        report rep;
        rep.o = o, rep.all = &st.all, rep.files = &files;
        rep.tested = backend_name(b), rep.tested_version = backend_version(b);
        /* each whole or not at all, the previous report intact on failure */
        if (o->junit)
            reports_ok &= write_file_with(o->junit, write_junit, &rep);
        if (o->json)
            reports_ok &= write_file_with(o->json, write_json, &rep);
    }
    print_reasons(&st.all, CASE_PASS, "passed");
    print_reasons(&st.all, CASE_SKIP, "skipped");
    if (st.all.errors)
        printf("%lu errors (crashes, timeouts, malformed replies), counted as failed\n",
               st.all.errors);
    if (st.stopped_fatal)
        fprintf(stderr, "dmlref check: stopped: %s\n", st.fatal_reason);
    else if (st.stopped_at_max)
        printf("stopped after %lu failed cases (--max-failures); the rest did not run\n",
               st.all.failed + st.all.errors);
    printf("%lu passed, %lu failed, %lu skipped\n", st.all.passed, st.all.failed + st.all.errors,
           st.all.skipped);
    if (st.all.bad_input || st.stopped_fatal || !reports_ok)
        code = EXIT_BAD_INPUT;
    else if (st.all.failed || st.all.errors)
        code = EXIT_DIFFERENCE;
    else if (st.all.passed == st.all.passed_unsupported) {
        say_why_nothing_ran(o, &files, &st.all);
        code = EXIT_BAD_INPUT;
    }
done:
    free(st.all.items);
    list_free(&files);
    list_free(&o->rerun_names);
    backend_close(b);
    return code;
}
