/*
 * files.c - what the command's layers share (common.h): whole-or-nothing
 * file and folder writes, vector walks, read options, counts.  What it asks
 * of the operating system goes through src/platform/files.h.
 */
#include "command_base/command_base.h"
#include "platform/files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

const char *reason_text(int reason)
{
    return reason == FILE_NOT_REGULAR ? "not a regular file" : strerror(reason);
}

static int make_parents(const char *path)
{
    char *copy = malloc(strlen(path) + 1), *p;
    if (!copy)
        return 0;
    strcpy(copy, path);
    for (p = copy + path_root_length(copy); *p; ++p) {
        char separator = *p;
        int reason;
        if (!is_path_separator(separator))
            continue;
        *p = '\0';
        if ((reason = make_folder(copy)) != 0 && reason != EEXIST) {
            fprintf(stderr, "dmlref: %s: cannot create: %s\n", copy, strerror(reason));
            free(copy);
            return 0;
        }
        *p = separator;
    }
    free(copy);
    return 1;
}

/* A copy of path without trailing separators (a root, such as "/", stays),
   or NULL when out of memory: "out/" names the folder "out", whose temporary
   twin is "./.out.*", not "out/..*". */
static char *without_trailing_slashes(const char *path)
{
    size_t length = strlen(path), root = path_root_length(path);
    char *copy = malloc(length + 1);
    if (!copy)
        return NULL;
    strcpy(copy, path);
    while (length > 1 && length > root && is_path_separator(copy[length - 1]))
        copy[--length] = '\0';
    return copy;
}

/* "<folder>/.<name>.XXXXXX" beside path, for make_temporary_file or
   make_temporary_folder: in the same folder, so that replacing moves it into
   place in one step (and hidden, so that a walk never takes it for a
   vector).  The caller frees it. */
static char *temporary_beside(const char *path)
{
    size_t folder = strlen(path), root = path_root_length(path);
    char *name = malloc(strlen(path) + sizeof "..XXXXXX");
    if (!name)
        return NULL;
    while (folder > root && !is_path_separator(path[folder - 1]))
        --folder;
    memcpy(name, path, folder);
    sprintf(name + folder, ".%s.XXXXXX", path + folder);
    return name;
}

/* Runs writer on f, then closes it: 0, or the reason of the first failure;
   `sync` also waits for the bytes to reach the disk. */
static int write_through(FILE *f, file_writer writer, const void *context, int sync)
{
    int reason = 0;
    errno = 0;
    if (!writer(f, context) || fflush(f) != 0 || ferror(f))
        reason = errno ? errno : EIO;
    else if (sync)
        reason = flush_to_disk(f);
    if (fclose(f) != 0 && !reason)
        reason = errno ? errno : EIO;
    return reason;
}

int write_file_with(const char *path, file_writer writer, const void *context)
{
    file_facts existing;
    char *resolved = NULL, *temporary = NULL;
    const char *target = path;
    unsigned permissions = permissions_under_umask(0666);
    FILE *f;
    int reason;

    if (path_facts(path, &existing) == 0) {
        if (existing.kind == FILE_KIND_OTHER) {
            /* a device or a pipe cannot be replaced, only written */
            if ((reason = open_device_for_writing(path, &f)) == 0)
                reason = write_through(f, writer, context, 0);
            goto done;
        }
        permissions = existing.permissions;
        /* through a symbolic link: the file it names is replaced, not the link */
        if (real_path(path, &resolved) == 0)
            target = resolved;
    }
    if (!(temporary = temporary_beside(target))) {
        reason = ENOMEM;
        goto done;
    }
    if ((reason = make_temporary_file(temporary, &f)) != 0) {
        free(temporary);
        temporary = NULL; /* nothing to remove */
        goto done;
    }
    if ((reason = set_file_permissions(f, permissions)) != 0)
        fclose(f);
    else
        reason = write_through(f, writer, context, 1);
    if (!reason)
        reason = replace_file(temporary, target);
    if (reason)
        remove_path(temporary);
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

/* "folder/name", malloc'd, or NULL when out of memory. */
static char *joined(const char *folder, const char *name)
{
    char *path = malloc(strlen(folder) + strlen(name) + 2);
    if (path)
        sprintf(path, "%s/%s", folder, name);
    return path;
}

/* Removes a folder that this process built, and all it holds (links are
   removed, never followed); says what it could not remove. */
static void remove_tree(const char *path)
{
    file_facts facts;
    folder_listing listing;
    size_t i;
    int reason = link_facts(path, &facts);
    if (reason == ENOENT)
        return;
    if (!reason && facts.kind == FILE_KIND_FOLDER && (reason = list_folder(path, &listing)) == 0) {
        for (i = 0; i < listing.count; ++i) {
            char *inner = joined(path, listing.names[i]);
            if (!inner) {
                reason = ENOMEM;
                break;
            }
            remove_tree(inner);
            free(inner);
        }
        free_folder_listing(&listing);
    }
    if (!reason)
        reason = remove_path(path);
    if (reason)
        fprintf(stderr, "dmlref: %s: cannot remove: %s\n", path, strerror(reason));
}

/* 1 when path does not exist or is an empty folder; else 0, saying why. */
static int is_new_or_empty_folder(const char *path)
{
    file_facts facts;
    folder_listing listing;
    int empty, reason = path_facts(path, &facts);
    if (reason == ENOENT)
        return 1;
    if (reason == 0 && facts.kind != FILE_KIND_FOLDER) {
        fprintf(stderr, "dmlref: %s: exists and is not a folder\n", path);
        return 0;
    }
    if (reason == 0)
        reason = list_folder(path, &listing);
    if (reason) {
        fprintf(stderr, "dmlref: %s: cannot open: %s\n", path, strerror(reason));
        return 0;
    }
    empty = listing.count == 0;
    free_folder_listing(&listing);
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
    int reason;
    if (!folder || !is_new_or_empty_folder(folder) || !make_parents(folder))
        goto done;
    if (!(temporary = temporary_beside(folder)))
        goto done;
    if ((reason = make_temporary_folder(temporary)) != 0) {
        fprintf(stderr, "dmlref: %s: cannot create a folder beside it: %s\n", folder,
                strerror(reason));
        free(temporary);
        temporary = NULL;
    }
done:
    free(folder);
    return temporary;
}

static int copy_bytes(FILE *f, const void *context)
{
    FILE *from;
    char chunk[65536];
    size_t got;
    int ok;
    if (open_regular_file((const char *)context, &from) != 0)
        return 0;
    while ((got = fread(chunk, 1, sizeof chunk, from)) > 0)
        if (fwrite(chunk, 1, got, f) != got)
            break;
    ok = !ferror(from) && !ferror(f) && feof(from);
    fclose(from);
    return ok;
}

/* Copies the folder `from`, which this process built (files and folders
   only, a few levels deep), into the folder `to`, made first unless it
   `exists`: each file whole (write_file_with).  0, having said why, on
   failure. */
static int copy_tree(const char *from, const char *to, int exists)
{
    folder_listing listing;
    size_t i;
    int ok = 1, reason = exists ? 0 : make_folder(to);
    if (reason || (reason = list_folder(from, &listing)) != 0) {
        fprintf(stderr, "dmlref: %s: cannot copy into %s: %s\n", from, to, strerror(reason));
        return 0;
    }
    for (i = 0; ok && i < listing.count; ++i) {
        char *source = joined(from, listing.names[i]), *copy = joined(to, listing.names[i]);
        file_facts facts;
        if (!source || !copy)
            ok = 0;
        else if ((reason = link_facts(source, &facts)) != 0)
            fprintf(stderr, "dmlref: %s: cannot copy: %s\n", source, strerror(reason)), ok = 0;
        else if (facts.kind == FILE_KIND_FOLDER)
            ok = copy_tree(source, copy, 0);
        else
            ok = write_file_with(copy, copy_bytes, source);
        free(source);
        free(copy);
    }
    free_folder_listing(&listing);
    return ok;
}

/* Puts the suite `temporary` into the empty folder `folder` that cannot be
   replaced (a mount point: rename gives EBUSY, or EXDEV): copies it into a
   hidden temporary folder inside `folder` (the same file system), then moves
   its entries out, one by one, into `folder`.  A walk skips the hidden
   folder, so a reader sees the entries arrive, not half-written files; a
   move that fails puts back those already moved.  1 when the entries are
   in place. */
static int fill_empty_folder(const char *temporary, const char *folder)
{
    folder_listing built, present;
    char *inside = NULL;
    const char *base;
    size_t i, moved = 0, root = path_root_length(folder);
    int reason = 0, ok = 0;

    for (base = folder + strlen(folder); base > folder + root && !is_path_separator(base[-1]);)
        --base;
    if (!(inside = malloc(strlen(folder) + strlen(base) + sizeof "/..XXXXXX")))
        return 0;
    sprintf(inside, "%s/.%s.XXXXXX", folder, base);
    if ((reason = make_temporary_folder(inside)) != 0) {
        fprintf(stderr, "dmlref: %s: cannot create a folder inside it: %s\n", folder,
                strerror(reason));
        free(inside);
        return 0;
    }
    if (!copy_tree(temporary, inside, 1) || (reason = list_folder(inside, &built)) != 0) {
        if (reason)
            fprintf(stderr, "dmlref: %s: cannot open: %s\n", inside, strerror(reason));
        remove_tree(inside);
        free(inside);
        return 0;
    }
    /* another writer may have put something there meanwhile */
    if ((reason = list_folder(folder, &present)) != 0 || present.count != 1) {
        if (reason)
            fprintf(stderr, "dmlref: %s: cannot open: %s\n", folder, strerror(reason));
        else
            fprintf(stderr,
                    "dmlref: %s: the folder is no longer empty (written by another process "
                    "meanwhile)\n",
                    folder);
        if (!reason)
            free_folder_listing(&present);
        goto done;
    }
    free_folder_listing(&present);
    for (moved = 0; moved < built.count; ++moved) {
        char *from = joined(inside, built.names[moved]), *to = joined(folder, built.names[moved]);
        file_facts facts;
        reason = !from || !to ? ENOMEM : link_facts(to, &facts) == 0 ? EEXIST : 0;
        if (!reason)
            reason = replace_file(from, to);
        if (reason)
            fprintf(stderr, "dmlref: %s: cannot move it into %s: %s\n",
                    from ? from : built.names[moved], folder, strerror(reason));
        free(from);
        free(to);
        if (reason)
            break;
    }
    ok = moved == built.count;
    for (i = moved; !ok && i-- > 0;) { /* put back what was moved */
        char *from = joined(inside, built.names[i]), *to = joined(folder, built.names[i]);
        if (from && to && replace_file(to, from) != 0)
            remove_tree(to);
        free(from);
        free(to);
    }
done:
    free_folder_listing(&built);
    remove_tree(inside);
    free(inside);
    return ok;
}

int finish_new_folder(char *temporary, const char *target, int complete)
{
    char *folder = without_trailing_slashes(target);
    int in_place = 0, reason;
    if (complete && folder) {
        if ((reason = set_path_permissions(temporary, permissions_under_umask(0777))) != 0)
            fprintf(stderr, "dmlref: %s: cannot set its permissions: %s\n", temporary,
                    strerror(reason));
        else if ((reason = replace_empty_folder(temporary, folder)) == 0)
            in_place = 1;
        else if (reason == EBUSY || reason == EXDEV)
            in_place = fill_empty_folder(temporary, folder);
        else if (reason == ENOTEMPTY || reason == EEXIST)
            fprintf(stderr,
                    "dmlref: %s: the folder is no longer empty (written by another "
                    "process meanwhile)\n",
                    folder);
        else
            fprintf(stderr, "dmlref: %s: cannot put the new folder in place: %s\n", folder,
                    strerror(reason));
    }
    if (!in_place || reason) /* reason: the suite was copied into place */
        remove_tree(temporary);
    free(temporary);
    free(folder);
    return in_place;
}

int file_digest(const char *path, uint64_t *digest)
{
    XXH3_state_t *state;
    unsigned char chunk[65536];
    size_t got;
    uint64_t total = 0;
    long end;
    FILE *f;
    int reason = open_regular_file(path, &f);
    if (reason)
        return reason;
    if (!(state = XXH3_createState())) {
        fclose(f);
        return ENOMEM;
    }
    XXH3_64bits_reset(state);
    /* no vector is larger: a file whose size says so is refused unread (a
       long too narrow for its size fails ftell: it is read up to the limit) */
    if (fseek(f, 0, SEEK_END) == 0 && (end = ftell(f)) > 0 &&
        (unsigned long)end > DMLREF_VECTOR_MAX_FILE_BYTES)
        reason = EFBIG;
    rewind(f);
    errno = 0;
    while (!reason && (got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        /* nor is one that grows past it while read */
        if ((total += got) > DMLREF_VECTOR_MAX_FILE_BYTES) {
            reason = EFBIG;
            break;
        }
        XXH3_64bits_update(state, chunk, got);
    }
    if (!reason && ferror(f))
        reason = errno ? errno : EIO;
    fclose(f);
    *digest = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return reason;
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

/* A walk below a folder: the folders it has entered, by their identity,
   so that a link that leads back to one of them (a loop: two links to "."
   make the walk exponential) or a second link to a folder already walked is
   not entered again. */
typedef struct walk {
    file_identity *entered;
    size_t entered_count, entered_capacity;
    size_t root_length; /* of the top folder's path and its separator */
    path_list *out;
    int failed;        /* a folder or an entry could not be read (said) */
    int out_of_memory; /* the walk stopped */
} walk;

/* 1 if the folder was entered before, else records it: 0, or -1 when out
   of memory. */
static int entered_before(walk *w, const file_identity *folder)
{
    size_t i;
    for (i = 0; i < w->entered_count; ++i)
        if (same_file(&w->entered[i], folder))
            return 1;
    if (w->entered_count == w->entered_capacity) {
        size_t capacity = w->entered_capacity ? 2 * w->entered_capacity : 64;
        file_identity *grown = realloc(w->entered, capacity * sizeof *grown);
        if (!grown)
            return -1;
        w->entered = grown;
        w->entered_capacity = capacity;
    }
    w->entered[w->entered_count++] = *folder;
    return 0;
}

/* A path for a message: whole, or past PATH_SHOWN bytes its start and its
   end around "...". */
#define PATH_SHOWN 240
static const char *shown_path(const char *path, char *buf)
{
    size_t n = strlen(path);
    if (n <= PATH_SHOWN)
        return path;
    memcpy(buf, path, PATH_SHOWN / 2);
    memcpy(buf + PATH_SHOWN / 2, "...", 3);
    memcpy(buf + PATH_SHOWN / 2 + 3, path + n - PATH_SHOWN / 2, PATH_SHOWN / 2 + 1);
    return buf;
}

/* A folder being walked: its path, its names in order, the next one to
   look at, and how far below the top folder it lies. */
typedef struct walk_frame {
    char *path;
    path_list names;
    size_t next;
    size_t depth;
} walk_frame;

/* Lists folder `path` (taken over: freed here on failure) into a new frame
   on top of the stack: its names but the hidden ones, sorted, so that which
   of two links to one folder is walked does not depend on the file system.
   A folder that cannot be listed is said and marks the walk failed. */
static void enter_folder(walk *w, walk_frame **stack, size_t *count, size_t *capacity, char *path,
                         size_t depth)
{
    folder_listing listing;
    walk_frame *f;
    size_t i;
    char buf[PATH_SHOWN + 4];
    int reason = list_folder(path, &listing);
    if (reason) {
        fprintf(stderr, "dmlref: %s: cannot open: %s\n", shown_path(path, buf), strerror(reason));
        w->failed = 1;
        free(path);
        return;
    }
    if (*count == *capacity) {
        size_t grown_capacity = *capacity ? 2 * *capacity : 16;
        walk_frame *grown = realloc(*stack, grown_capacity * sizeof *grown);
        if (!grown) {
            w->out_of_memory = 1;
            free_folder_listing(&listing);
            free(path);
            return;
        }
        *stack = grown;
        *capacity = grown_capacity;
    }
    f = &(*stack)[(*count)++];
    memset(f, 0, sizeof *f);
    f->path = path;
    f->depth = depth;
    for (i = 0; i < listing.count && !w->out_of_memory; ++i)
        if (listing.names[i][0] != '.' && !list_add(&f->names, listing.names[i]))
            w->out_of_memory = 1;
    free_folder_listing(&listing);
    sort_paths(&f->names, 0);
}

/* Every *.json regular file below top into w->out; schema.json at the top
   of a suite is the format's schema, not a vector.  The walk keeps its
   folders on a stack of its own, not the program's, and goes at most
   WALK_DEPTH_LIMIT folders down: a deeper folder, an entry whose path the
   system refuses (longer than PATH_MAX), a folder that cannot be listed or
   an entry that cannot be looked at (but a dangling link) is said and marks
   the walk failed; the walk goes on beside it. */
static void find_vectors(walk *w, const char *top)
{
    walk_frame *stack = NULL;
    size_t count = 0, capacity = 0;
    char *first = malloc(strlen(top) + 1), buf[PATH_SHOWN + 4];

    if (!first) {
        w->out_of_memory = 1;
        return;
    }
    strcpy(first, top);
    enter_folder(w, &stack, &count, &capacity, first, 0);
    while (count > 0 && !w->out_of_memory) {
        walk_frame *f = &stack[count - 1];
        const char *name;
        char *path;
        file_facts facts;
        int reason, seen;
        if (f->next == f->names.count) {
            free(f->path);
            list_free(&f->names);
            --count;
            continue;
        }
        name = f->names.items[f->next++];
        if (!(path = joined(f->path, name))) {
            w->out_of_memory = 1;
            break;
        }
        if ((reason = path_facts(path, &facts)) != 0) {
            /* a dangling link, or one that leads to itself, names nothing */
            if (reason == ENAMETOOLONG) {
                fprintf(stderr,
                        "dmlref: %s: cannot open: the path is longer than the system takes "
                        "(PATH_MAX): not walked\n",
                        shown_path(path, buf));
                w->failed = 1;
            } else if (reason != ENOENT && reason != ELOOP) {
                fprintf(stderr, "dmlref: %s: cannot open: %s\n", shown_path(path, buf),
                        strerror(reason));
                w->failed = 1;
            }
            free(path);
            continue;
        }
        if (facts.kind == FILE_KIND_FOLDER) {
            if ((seen = entered_before(w, &facts.identity)) < 0) {
                w->out_of_memory = 1;
            } else if (seen) {
                fprintf(stderr,
                        "dmlref: %s: skipped: a folder already walked (a link loop, "
                        "or a second link to it)\n",
                        shown_path(path, buf));
            } else if (f->depth + 1 > WALK_DEPTH_LIMIT) {
                fprintf(stderr, "dmlref: %s: not walked: deeper than %d folders below %s\n",
                        shown_path(path, buf), WALK_DEPTH_LIMIT, top);
                w->failed = 1;
            } else {
                enter_folder(w, &stack, &count, &capacity, path, f->depth + 1);
                continue; /* the frame took the path */
            }
        } else if (ends_with(name, ".json") && strcmp(path + w->root_length, "schema.json") != 0) {
            if (facts.kind != FILE_KIND_REGULAR)
                fprintf(stderr, "dmlref: %s: skipped: not a regular file\n", shown_path(path, buf));
            else if (!list_add(w->out, path))
                w->out_of_memory = 1;
        }
        free(path);
    }
    while (count > 0) {
        free(stack[count - 1].path);
        list_free(&stack[--count].names);
    }
    free(stack);
}

/* find_vectors from a top folder (trailing slashes ignored), sorted. */
int walk_vectors(const char *dir, path_list *out)
{
    walk w;
    file_facts facts;
    size_t first = out->count;
    char *top = without_trailing_slashes(dir);
    int reason;

    memset(&w, 0, sizeof w);
    w.out = out;
    if (!top) {
        w.out_of_memory = 1;
    } else if ((reason = path_facts(top, &facts)) != 0) {
        fprintf(stderr, "dmlref: %s: cannot open: %s\n", top, strerror(reason));
        w.failed = 1;
    } else if (entered_before(&w, &facts.identity) < 0) {
        w.out_of_memory = 1;
    } else {
        w.root_length = strlen(top) + 1;
        find_vectors(&w, top);
    }
    if (w.out_of_memory)
        fprintf(stderr, "dmlref: %s: out of memory listing the vectors\n", dir);
    sort_paths(out, first);
    free(w.entered);
    free(top);
    return !w.failed && !w.out_of_memory;
}

int collect_vectors(const char *path, path_list *out)
{
    file_facts facts;
    int reason = path_facts(path, &facts);
    if (reason) {
        fprintf(stderr, "dmlref: %s: cannot open: %s\n", path, strerror(reason));
        return 0;
    }
    if (facts.kind == FILE_KIND_FOLDER)
        return walk_vectors(path, out);
    if (facts.kind != FILE_KIND_REGULAR) {
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
