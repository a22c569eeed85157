/*
 * cli.c - the dmlref command: a thin client of the library.
 *
 *   dmlref eval CASE.json [-o OUT.json] [--threads N]
 *   dmlref verify [--threads N] PATH...
 *   dmlref gen [--out DIR] [--seed N] [--profile NAME] [--threads N]
 *   dmlref bench [--quick] [--threads LIST] [--size LOG2] [--filter TEXT] ...
 *   dmlref --version | help [COMMAND]
 *
 * Exit codes: 0 success, 1 a comparison failed, 2 bad input, 3 usage.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <xxhash.h>

static const char *const k_help_eval =
    "usage: dmlref eval CASE.json [-o OUT.json] [--threads N]\n"
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
    "Exit 0, or 2 for a case that is malformed or invalid (the message names the\n"
    "file and the JSON path), that is not a regular file, or for output that\n"
    "cannot be written (standard output included), 1 when an expect_error case is\n"
    "not refused as it says.\n";

static const char *const k_help_verify =
    "usage: dmlref verify [--threads N] PATH...\n"
    "\n"
    "Recomputes every vector under each PATH (files, or folders searched for\n"
    "*.json) with the reference and compares: expected elements bit for bit,\n"
    "digests, min_feature_level, expected errors, permitted variants (each\n"
    "recomputed, and exactly those eval adds). A folder holding a MANIFEST is\n"
    "a suite: its listed files are verified, every digest is checked, and a\n"
    "vector missing from the list is a failure. A MANIFEST line must be\n"
    "\"<16 hex digits>  <path>\", at most 4096 bytes, its path inside the suite\n"
    "(relative, no empty, . or .. part) and listed once: any other line is a\n"
    "failure naming it. Folders are searched for regular files only (a FIFO is\n"
    "never opened); links are followed, but a folder is entered once: a link\n"
    "back to a folder on the way (a loop) or to one already searched is skipped\n"
    "with a note on stderr, not a failure. Prints each failure and ends with\n"
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
    "it was, and of two runs into one folder at once, one fails (exit 2).\n"
    "(make vectors regenerates vectors/, which also holds FORMAT.md and\n"
    "schema.json, through a new folder.) Exit 0, 2 on any failure.\n"
    "Profiles: default (the committed suite).\n";

static const char *const k_help_fuzz =
    "usage: dmlref fuzz (--backend LIB.so | --exec 'CMD') [--seed N] [--cases N | --time S]\n"
    "                   [--operator NAME] [--out DIR] [--timeout S] [--shrink N]\n"
    "\n"
    "Differential fuzzing: random cases (operators, data types with NaN payloads, -0.0,\n"
    "infinities and subnormals, index types, ranks 1 to 8, layouts) run on the reference\n"
    "and on the backend. Besides valid cases it draws invalid descriptors (one rule\n"
    "broken; the reference's refusal is the expectation), boundary indices (-s, -1, s-1)\n"
    "and out-of-range ones under both policies. A difference is shrunk (simpler layouts,\n"
    "smaller sizes, fewer dimensions, simpler values, single elements) to a small vector\n"
    "written to --out (default fuzz-failures), which `dmlref check` replays. The first\n"
    "--shrink differences (default 10) are shrunk. The same seed gives the same cases.\n"
    "Default: 1000 cases. Exit 0 when cases were compared and none differed, 1 when a\n"
    "difference was found, 2 when no case was compared (all skipped, or none run) or\n"
    "a shrunk vector could not be written (the run names only the files it wrote).\n"
    "See docs/fuzz.md.\n";

static const char *const k_help_bench =
    "usage: dmlref bench [--quick] [--threads LIST] [--size LOG2] [--filter TEXT] [--reps N]\n"
    "                    [--oob error|clamp] [--json FILE] [--csv FILE] [--plot FILE.png]\n"
    "                    [--list]\n"
    "\n"
    "Times the library through its public API (index checks included) over a\n"
    "matrix of GatherElements, Scatter, GatherND and NonZeroCoordinates cases: index\n"
    "patterns, layouts, element sizes 1/2/4/8 and INT32/INT64 indices, at 2^24\n"
    "elements and in cache at 2^16. Each case alternates with a parallel memcpy at\n"
    "the same thread count; throughput counts logical bytes (every tensor read or\n"
    "written once) and the ratio is to the copy's rate (2 bytes per byte copied).\n"
    "\n"
    "  --quick         a reduced matrix (2^24, a few in-cache cases), 5 reps\n"
    "  --threads LIST  thread counts, such as 1,2 (default: 1, 2, 4, ... and the maximum)\n"
    "  --size LOG2     only the class of 2^LOG2 elements (12 to 28)\n"
    "  --filter TEXT   only the cases whose name contains TEXT\n"
    "  --reps N        timed runs per case (default 11): the median and the minimum\n"
    "  --oob POLICY    error (default: every index is checked before anything is\n"
    "                  written, a pass of its own) or clamp (the kernels alone)\n"
    "  --json FILE, --csv FILE  every result;  --plot FILE.png  a chart (needs gnuplot)\n"
    "  --list          print the case names and exit\n"
    "\n"
    "The last line is \"worst ratio to copy (sequential cases): R\", over the packed\n"
    "seq cases of GatherElements and Scatter at the largest size. Exit 0, 2 when a\n"
    "case cannot run or a file cannot be written, 3 for a usage error.\n";

static void usage(FILE *f)
{
    fprintf(f, "usage: dmlref COMMAND [ARGS]\n"
               "\n"
               "  eval CASE.json [-o OUT.json]   fill in the expected outputs of one case\n"
               "  verify PATH...                 recompute every vector under PATH, compare\n"
               "  gen [--out DIR] [--seed N]     write the golden suite\n"
               "  check (--backend LIB.so | --exec 'CMD') PATH...  run another implementation\n"
               "  fuzz (--backend LIB.so | --exec 'CMD') [--seed N] [--cases N]  hunt for differences\n"
               "  bench [--quick] [--threads LIST]  time the library against memcpy\n"
               "  --version                      print the version\n"
               "  help [COMMAND]                 this text, or a command's\n"
               "\n"
               "Exit codes: 0 success, 1 a comparison failed, 2 bad input, 3 usage error.\n"
               "DMLREF_MEMORY_CAP=BYTES caps what one case may make dmlref allocate: its parse tree,\n"
               "buffers and expected values (default 4 GiB).\n");
}

int usage_error(const char *message)
{
    fprintf(stderr, "dmlref: %s (dmlref help)\n", message);
    return EXIT_USAGE;
}

static int exit_for(dmlref_status status)
{
    return status == DMLREF_OK         ? EXIT_OK
           : status == DMLREF_ERROR_MISMATCH ? EXIT_DIFFERENCE
                                              : EXIT_BAD_INPUT;
}

static int parse_count(const char *text, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (!text || !*text || *text == '-')
        return 0;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno || *end || v > max)
        return 0;
    *out = v;
    return 1;
}

/* ---- files ------------------------------------------------------------- */

/* The permission bits that open(path, O_CREAT, `requested`) would give under
   the process's umask: mkstemp and mkdtemp make 0600 and 0700, which a file
   or folder that replaces another must not keep. */
static mode_t under_umask(mode_t requested)
{
    mode_t mask = umask(0);
    umask(mask);
    return requested & ~mask;
}

static int make_parents(const char *path)
{
    char *copy = malloc(strlen(path) + 1), *p;
    if (!copy)
        return 0;
    strcpy(copy, path);
    for (p = copy + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "dmlref: %s: cannot create: %s\n", copy, strerror(errno));
            free(copy);
            return 0;
        }
        *p = '/';
    }
    free(copy);
    return 1;
}

/* A copy of path without trailing slashes ("/" stays), or NULL when out of
   memory: "out/" names the folder "out", whose temporary twin is "./.out.*",
   not "out/..*". */
static char *without_trailing_slashes(const char *path)
{
    size_t length = strlen(path);
    char *copy = malloc(length + 1);
    if (!copy)
        return NULL;
    strcpy(copy, path);
    while (length > 1 && copy[length - 1] == '/')
        copy[--length] = '\0';
    return copy;
}

/* "<folder>/.<name>.XXXXXX" beside path, for mkstemp or mkdtemp: in the same
   folder, so that rename() moves it into place in one step (and hidden, so
   that a walk never takes it for a vector).  The caller frees it. */
static char *temporary_beside(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t folder = slash ? (size_t)(slash - path) + 1 : 0;
    char *name = malloc(strlen(path) + sizeof "..XXXXXX");
    if (!name)
        return NULL;
    memcpy(name, path, folder);
    sprintf(name + folder, ".%s.XXXXXX", path + folder);
    return name;
}

/* Runs writer on fd (which it takes over and closes): 0, or the errno of the
   first failure; `sync` also waits for the bytes to reach the disk. */
static int write_through(int fd, file_writer writer, const void *context, int sync)
{
    FILE *f = fdopen(fd, "wb");
    int reason = 0;
    if (!f) {
        reason = errno;
        close(fd);
        return reason;
    }
    errno = 0;
    if (!writer(f, context) || fflush(f) != 0 || ferror(f))
        reason = errno ? errno : EIO;
    else if (sync && fsync(fd) != 0)
        reason = errno;
    if (fclose(f) != 0 && !reason)
        reason = errno;
    return reason;
}

int write_file_with(const char *path, file_writer writer, const void *context)
{
    struct stat existing;
    char *resolved = NULL, *temporary = NULL;
    const char *target = path;
    mode_t mode = under_umask(0666);
    int fd, reason;

    if (stat(path, &existing) == 0) {
        if (!S_ISREG(existing.st_mode) && !S_ISDIR(existing.st_mode)) {
            /* a device or a pipe cannot be replaced, only written; O_NONBLOCK:
               a FIFO without a reader fails (ENXIO) instead of waiting */
            fd = open(path, O_WRONLY | O_NONBLOCK);
            if (fd < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
                reason = errno;
                if (fd >= 0)
                    close(fd);
            } else {
                reason = write_through(fd, writer, context, 0);
            }
            goto done;
        }
        mode = existing.st_mode & 07777;
        /* through a symbolic link: the file it names is replaced, not the link */
        if ((resolved = realpath(path, NULL)) != NULL)
            target = resolved;
    }
    if (!(temporary = temporary_beside(target))) {
        reason = ENOMEM;
        goto done;
    }
    if ((fd = mkstemp(temporary)) < 0) {
        reason = errno;
        free(temporary);
        temporary = NULL; /* nothing to remove */
        goto done;
    }
    reason = fchmod(fd, mode) != 0 ? errno : 0;
    if (reason)
        close(fd);
    else
        reason = write_through(fd, writer, context, 1);
    if (!reason && rename(temporary, target) != 0)
        reason = errno;
    if (reason)
        remove(temporary);
done:
    if (reason)
        fprintf(stderr, "dmlref: %s: cannot write: %s\n", path, strerror(reason));
    free(temporary);
    free(resolved);
    return !reason;
}

typedef struct byte_span {
    const char *data;
    size_t length;
} byte_span;

static int write_bytes(FILE *f, const void *context)
{
    const byte_span *b = context;
    return fwrite(b->data, 1, b->length, f) == b->length;
}

int write_file(const char *path, const char *data, size_t length)
{
    byte_span b;
    b.data = data, b.length = length;
    return make_parents(path) && write_file_with(path, write_bytes, &b);
}

/* Removes a folder that this process built, and all it holds (links are
   removed, never followed). */
static void remove_tree(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *entry;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode) && (d = opendir(path)) != NULL) {
        while ((entry = readdir(d)) != NULL) {
            char *inner;
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
                continue;
            inner = malloc(strlen(path) + strlen(entry->d_name) + 2);
            if (!inner)
                break;
            sprintf(inner, "%s/%s", path, entry->d_name);
            remove_tree(inner);
            free(inner);
        }
        closedir(d);
    }
    remove(path);
}

/* 1 when path does not exist or is an empty folder; else 0, saying why. */
static int is_new_or_empty_folder(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *entry;
    int empty = 1;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return 1;
        fprintf(stderr, "dmlref: %s: cannot open: %s\n", path, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "dmlref: %s: exists and is not a folder\n", path);
        return 0;
    }
    if (!(d = opendir(path))) {
        fprintf(stderr, "dmlref: %s: cannot open: %s\n", path, strerror(errno));
        return 0;
    }
    while (empty && (entry = readdir(d)) != NULL)
        empty = strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0;
    closedir(d);
    if (!empty)
        fprintf(stderr, "dmlref: %s: the folder is not empty: a new suite goes into a new or "
                        "empty folder only\n", path);
    return empty;
}

char *begin_new_folder(const char *target)
{
    char *folder = without_trailing_slashes(target), *temporary = NULL;
    if (!folder || !is_new_or_empty_folder(folder) || !make_parents(folder))
        goto done;
    if (!(temporary = temporary_beside(folder)))
        goto done;
    if (!mkdtemp(temporary)) {
        fprintf(stderr, "dmlref: %s: cannot create a folder beside it: %s\n", folder,
                strerror(errno));
        free(temporary);
        temporary = NULL;
    }
done:
    free(folder);
    return temporary;
}

int finish_new_folder(char *temporary, const char *target, int complete)
{
    char *folder = without_trailing_slashes(target);
    int in_place = 0;
    if (complete && folder) {
        if (chmod(temporary, under_umask(0777)) != 0)
            fprintf(stderr, "dmlref: %s: cannot set its permissions: %s\n", temporary,
                    strerror(errno));
        else if (rename(temporary, folder) == 0)
            in_place = 1;
        else if (errno == ENOTEMPTY || errno == EEXIST)
            fprintf(stderr, "dmlref: %s: the folder is no longer empty (written by another "
                            "process meanwhile)\n", folder);
        else
            fprintf(stderr, "dmlref: %s: cannot put the new folder in place: %s\n", folder,
                    strerror(errno));
    }
    if (!in_place)
        remove_tree(temporary);
    free(temporary);
    free(folder);
    return in_place;
}

const char *open_regular_file(const char *path, int *fd)
{
    struct stat st;
    *fd = -1;
    if (stat(path, &st) != 0)
        return strerror(errno);
    if (!S_ISREG(st.st_mode)) {
        errno = 0;
        return "not a regular file";
    }
    /* the path may have become a FIFO since: O_NONBLOCK opens one without
       waiting for a writer, and fstat then refuses it */
    if ((*fd = open(path, O_RDONLY | O_NONBLOCK)) < 0)
        return strerror(errno);
    if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(*fd);
        *fd = -1;
        errno = 0;
        return "not a regular file";
    }
    return NULL;
}

const char *file_digest(const char *path, uint64_t *digest)
{
    XXH3_state_t *state;
    unsigned char chunk[65536];
    ssize_t got;
    int fd;
    const char *why = open_regular_file(path, &fd);
    if (why)
        return why;
    if (!(state = XXH3_createState())) {
        close(fd);
        return "out of memory";
    }
    XXH3_64bits_reset(state);
    while ((got = read(fd, chunk, sizeof chunk)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            why = strerror(errno);
            break;
        }
        XXH3_64bits_update(state, chunk, (size_t)got);
    }
    close(fd);
    *digest = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return why;
}

int list_add(path_list *l, const char *path)
{
    char *copy;
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? 2 * l->capacity : 64;
        char **grown = realloc(l->items, capacity * sizeof *grown);
        if (!grown)
            return 0;
        l->items = grown;
        l->capacity = capacity;
    }
    if (!(copy = malloc(strlen(path) + 1)))
        return 0;
    strcpy(copy, path);
    l->items[l->count++] = copy;
    return 1;
}

void list_free(path_list *l)
{
    size_t i;
    for (i = 0; i < l->count; ++i)
        free(l->items[i]);
    free(l->items);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_paths(path_list *l, size_t first)
{
    if (l->count > first) /* an empty list leaves items NULL */
        qsort(l->items + first, l->count - first, sizeof *l->items, compare_strings);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The folders a walk has entered, by device and inode: a link that leads
   back to one of them (a loop: two links to "." make the walk exponential) or
   a second link to a folder already walked is not entered again. */
typedef struct folder_id {
    dev_t device;
    ino_t inode;
} folder_id;

typedef struct folder_set {
    folder_id *items;
    size_t count, capacity;
} folder_set;

/* 1 if the folder was entered before, else records it: 0, or -1 when out
   of memory. */
static int entered_before(folder_set *s, const struct stat *st)
{
    size_t i;
    for (i = 0; i < s->count; ++i)
        if (s->items[i].device == st->st_dev && s->items[i].inode == st->st_ino)
            return 1;
    if (s->count == s->capacity) {
        size_t capacity = s->capacity ? 2 * s->capacity : 64;
        folder_id *grown = realloc(s->items, capacity * sizeof *grown);
        if (!grown)
            return -1;
        s->items = grown;
        s->capacity = capacity;
    }
    s->items[s->count].device = st->st_dev;
    s->items[s->count++].inode = st->st_ino;
    return 0;
}

/* Every *.json regular file below dir (recursively), relative to `root`;
   schema.json at the top of a suite is the format's schema, not a vector.
   The entries are taken in name order, so that which of two links to one
   folder is walked does not depend on the file system. */
static int find_vectors(const char *dir, size_t root_length, folder_set *entered,
                        path_list *out)
{
    DIR *d = opendir(dir);
    struct dirent *entry;
    path_list names = {NULL, 0, 0};
    size_t i;
    int ok = 1;
    if (!d) {
        fprintf(stderr, "dmlref: %s: cannot open: %s\n", dir, strerror(errno));
        return 0;
    }
    while (ok && (entry = readdir(d)) != NULL)
        if (entry->d_name[0] != '.')
            ok = list_add(&names, entry->d_name);
    closedir(d);
    sort_paths(&names, 0);
    for (i = 0; ok && i < names.count; ++i) {
        char path[4096];
        struct stat st;
        int seen;
        if (snprintf(path, sizeof path, "%s/%s", dir, names.items[i]) >= (int)sizeof path) {
            fprintf(stderr, "dmlref: %s/%s: skipped: the path is too long\n", dir,
                    names.items[i]);
            continue;
        }
        if (stat(path, &st) != 0) /* a dangling link */
            continue;
        if (S_ISDIR(st.st_mode)) {
            if ((seen = entered_before(entered, &st)) < 0)
                ok = 0;
            else if (seen)
                fprintf(stderr, "dmlref: %s: skipped: a folder already walked (a link loop, "
                                "or a second link to it)\n", path);
            else
                ok = find_vectors(path, root_length, entered, out);
        } else if (ends_with(names.items[i], ".json") &&
                   strcmp(path + root_length, "schema.json") != 0) {
            if (S_ISREG(st.st_mode))
                ok = list_add(out, path);
            else
                fprintf(stderr, "dmlref: %s: skipped: not a regular file\n", path);
        }
    }
    list_free(&names);
    return ok;
}

/* find_vectors from a top folder (trailing slashes ignored), sorted. */
static int walk_vectors(const char *dir, path_list *out)
{
    folder_set entered = {NULL, 0, 0};
    struct stat st;
    size_t first = out->count;
    char *top = without_trailing_slashes(dir);
    int ok = top && stat(top, &st) == 0 && entered_before(&entered, &st) == 0 &&
             find_vectors(top, strlen(top) + 1, &entered, out);
    sort_paths(out, first);
    free(entered.items);
    free(top);
    return ok;
}

int collect_vectors(const char *path, path_list *out)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "dmlref: %s: cannot open: %s\n", path, strerror(errno));
        return 0;
    }
    if (S_ISDIR(st.st_mode))
        return walk_vectors(path, out);
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "dmlref: %s: cannot open: not a regular file\n", path);
        return 0;
    }
    return list_add(out, path);
}

dmlref_vector_read_options read_options(uint32_t flags)
{
    dmlref_vector_read_options options;
    const char *cap = getenv("DMLREF_MEMORY_CAP");
    uint64_t bytes = 0;
    options.flags = flags;
    options.memory_cap = cap && parse_count(cap, UINT64_MAX, &bytes) ? bytes : 0;
    return options;
}

/* ---- eval ------------------------------------------------------------------ */

static int command_eval(int argc, char **argv)
{
    const char *input = NULL, *output = NULL;
    uint64_t threads = 0;
    dmlref_vector_read_options options = read_options(DMLREF_VECTOR_READ_CASE);
    dmlref_vector *v;
    dmlref_error err;
    dmlref_status status;
    struct stat st;
    char *text;
    size_t length;
    int i, code = EXIT_OK;

    for (i = 0; i < argc; ++i) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            output = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], DMLREF_MAX_THREADS, &threads))
                return usage_error("--threads takes a number from 0 to 1024");
        } else if (argv[i][0] == '-' && argv[i][1])
            return usage_error("eval: unknown option");
        else if (!input)
            input = argv[i];
        else
            return usage_error("eval takes one case");
    }
    if (!input)
        return usage_error("eval needs a case file");
    if (stat(input, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* the loader would wait on a FIFO forever */
        fprintf(stderr, "%s: cannot open: not a regular file\n", input);
        return EXIT_BAD_INPUT;
    }

    status = dmlref_vector_load(input, &options, &v, &err);
    if (status != DMLREF_OK) {
        fprintf(stderr, "%s\n", err.message);
        return exit_for(status == DMLREF_ERROR_MISMATCH ? DMLREF_ERROR_VECTOR_SCHEMA : status);
    }
    status = dmlref_vector_eval(v, (uint32_t)threads, &err);
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

/* ---- verify ------------------------------------------------------------------ */

typedef struct tally {
    unsigned long passed, failed, skipped;
    int bad_input;
} tally;

static void verify_file(const char *path, uint32_t threads, tally *t)
{
    dmlref_vector *v;
    dmlref_error err;
    dmlref_vector_read_options options = read_options(0);
    dmlref_status status = dmlref_vector_load(path, &options, &v, &err);
    if (status == DMLREF_OK) {
        status = dmlref_vector_verify(v, threads, &err);
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

/* One MANIFEST entry: "<16 hex digits>  <path relative to the suite>". */
typedef struct manifest_entry {
    char *name;
    unsigned long line, first_line; /* first_line: where a duplicate was listed first, or 0 */
    uint64_t digest;
} manifest_entry;

/* A name that stays inside the suite: relative, and no part of it empty,
   "." or ".." (so that every file has one spelling, and a duplicate shows). */
static int is_inside_suite(const char *name)
{
    const char *part = name;
    if (*name == '/')
        return 0;
    for (;;) {
        size_t length = strcspn(part, "/");
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

/* Reads a MANIFEST's entries; every line that is not one (malformed, too
   long, a path outside the suite) is a FAIL line and bad input.  A name
   listed again gets the line of its first listing in first_line.  0 when
   the file cannot be read at all. */
static int read_manifest(const char *manifest, manifest_entry **entries, size_t *count, tally *t)
{
    char line[MANIFEST_LINE_MAX + 2], *name;
    unsigned long number = 0;
    size_t capacity = 0, i;
    manifest_entry **by_name;
    const char *why;
    int fd, ok = 1;
    FILE *f = NULL;

    *entries = NULL, *count = 0;
    if ((why = open_regular_file(manifest, &fd)) != NULL || !(f = fdopen(fd, "r"))) {
        fprintf(stderr, "FAIL %s: cannot open: %s\n", manifest, why ? why : strerror(errno));
        if (!why)
            close(fd);
        ++t->failed, t->bad_input = 1;
        return 0;
    }
    while (ok && fgets(line, sizeof line, f)) {
        unsigned long long want;
        size_t length = strlen(line);
        ++number;
        if (length > MANIFEST_LINE_MAX && line[length - 1] != '\n') {
            int c;
            while ((c = getc(f)) != EOF && c != '\n')
                ;
            fprintf(stderr, "FAIL %s: line %lu: longer than %d bytes\n", manifest, number,
                    MANIFEST_LINE_MAX);
            ++t->failed, t->bad_input = 1;
            continue;
        }
        line[strcspn(line, "\n")] = '\0';
        if (strlen(line) < 19 || line[16] != ' ' || line[17] != ' ' ||
            sscanf(line, "%16llx", &want) != 1) {
            fprintf(stderr, "FAIL %s: line %lu: expected \"<16 hex digits>  <path>\"\n", manifest,
                    number);
            ++t->failed, t->bad_input = 1;
            continue;
        }
        name = line + 18;
        if (!is_inside_suite(name)) {
            fprintf(stderr, "FAIL %s: line %lu: %s: not a path inside the suite (absolute, or "
                            "with an empty, . or .. part)\n", manifest, number, name);
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
        (*entries)[(*count)++].digest = want;
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
                    by_name[i]->first_line = by_name[i - 1]->first_line
                                                 ? by_name[i - 1]->first_line
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
static void verify_suite(const char *dir, const char *manifest, uint32_t threads, tally *t)
{
    path_list found = {NULL, 0, 0}, listed = {NULL, 0, 0};
    manifest_entry *entries;
    size_t count, i;

    if (!read_manifest(manifest, &entries, &count, t))
        goto done;
    for (i = 0; i < count; ++i) {
        const manifest_entry *e = &entries[i];
        char path[MANIFEST_LINE_MAX + 4096];
        const char *why;
        uint64_t got;
        if (e->first_line) {
            fprintf(stderr, "FAIL %s: line %lu: %s is listed again (first on line %lu)\n",
                    manifest, e->line, e->name, e->first_line);
            ++t->failed, t->bad_input = 1;
            continue;
        }
        if (snprintf(path, sizeof path, "%s/%s", dir, e->name) >= (int)sizeof path) {
            fprintf(stderr, "FAIL %s: line %lu: the path is too long\n", manifest, e->line);
            ++t->failed, t->bad_input = 1;
            continue;
        }
        list_add(&listed, path); /* listed, whatever its digest */
        if ((why = file_digest(path, &got)) != NULL) {
            if (errno == ENOENT) {
                fprintf(stderr, "FAIL %s: line %lu: %s is missing\n", manifest, e->line, path);
            } else {
                fprintf(stderr, "FAIL %s: line %lu: %s: cannot read: %s\n", manifest, e->line,
                        path, why);
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
        verify_file(path, threads, t);
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
    uint64_t threads = 0;
    tally t = {0, 0, 0, 0};
    int i, paths = 0;

    for (i = 0; i < argc; ++i) {
        struct stat st;
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], DMLREF_MAX_THREADS, &threads))
                return usage_error("--threads takes a number from 0 to 1024");
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1])
            return usage_error("verify: unknown option");
        ++paths;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "FAIL %s: cannot open: %s\n", argv[i], strerror(errno));
            ++t.failed, t.bad_input = 1;
        } else if (S_ISDIR(st.st_mode)) {
            char manifest[4096];
            size_t length = strlen(argv[i]);
            if (length + sizeof "/MANIFEST" > sizeof manifest) {
                fprintf(stderr, "FAIL %s: the path is too long\n", argv[i]);
                ++t.failed, t.bad_input = 1;
                continue;
            }
            while (length > 1 && argv[i][length - 1] == '/')
                argv[i][--length] = '\0';
            snprintf(manifest, sizeof manifest, "%s/MANIFEST", argv[i]);
            if (stat(manifest, &st) == 0) {
                verify_suite(argv[i], manifest, (uint32_t)threads, &t);
            } else {
                path_list files = {NULL, 0, 0};
                size_t k;
                if (!walk_vectors(argv[i], &files))
                    ++t.failed, t.bad_input = 1;
                for (k = 0; k < files.count; ++k)
                    verify_file(files.items[k], (uint32_t)threads, &t);
                list_free(&files);
            }
        } else if (!S_ISREG(st.st_mode)) {
            /* the loader would wait on a FIFO forever */
            fprintf(stderr, "FAIL %s: cannot open: not a regular file\n", argv[i]);
            ++t.failed, t.bad_input = 1;
        } else {
            verify_file(argv[i], (uint32_t)threads, &t);
        }
    }
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
    const char *out = "vectors", *profile = "default";
    uint64_t seed = 1, threads = 0;
    int i;
    for (i = 0; i < argc; ++i) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
            profile = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], UINT64_MAX, &seed))
                return usage_error("--seed takes an unsigned number");
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], DMLREF_MAX_THREADS, &threads))
                return usage_error("--threads takes a number from 0 to 1024");
        } else
            return usage_error("gen: unknown argument");
    }
    return generate_suite(out, seed, profile, (uint32_t)threads);
}

static int run_command(int argc, char **argv)
{
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
    return finish_standard_output(run_command(argc, argv));
}
