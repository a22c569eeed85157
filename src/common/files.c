/*
 * files.c - what the command's layers share (common.h): whole-or-nothing
 * file and folder writes, vector walks, read options, counts.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "common/common.h"

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

int parse_count(const char *text, uint64_t max, uint64_t *out)
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
        fprintf(stderr,
                "dmlref: %s: the folder is not empty: a new suite goes into a new or "
                "empty folder only\n",
                path);
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
            fprintf(stderr,
                    "dmlref: %s: the folder is no longer empty (written by another "
                    "process meanwhile)\n",
                    folder);
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

int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void sort_paths(path_list *l, size_t first)
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
static int find_vectors(const char *dir, size_t root_length, folder_set *entered, path_list *out)
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
            fprintf(stderr, "dmlref: %s/%s: skipped: the path is too long\n", dir, names.items[i]);
            continue;
        }
        if (stat(path, &st) != 0) /* a dangling link */
            continue;
        if (S_ISDIR(st.st_mode)) {
            if ((seen = entered_before(entered, &st)) < 0)
                ok = 0;
            else if (seen)
                fprintf(stderr,
                        "dmlref: %s: skipped: a folder already walked (a link loop, "
                        "or a second link to it)\n",
                        path);
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
int walk_vectors(const char *dir, path_list *out)
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
