/*
 * command_base.h - what the command's layers (the suite, the conformance harness
 * and the command line) share: exit codes, counts, whole-or-nothing
 * files, vector walks.  Part of the command, not of the library.
 */
#ifndef DMLREF_COMMAND_BASE_H
#define DMLREF_COMMAND_BASE_H

#include "dmlref.h"
#include "dmlref/vector.h"

#include <stdio.h>

/* Exit codes (contract section 3). */
enum {
    EXIT_OK = 0,
    EXIT_DIFFERENCE = 1, /* a comparison failed */
    EXIT_BAD_INPUT = 2,  /* unreadable, malformed or invalid input */
    EXIT_USAGE = 3
};

/* A decimal count in [0, max] (no sign, no blanks): 1 and *out, or 0. */
int parse_count(const char *text, uint64_t max, uint64_t *out);

/* Files are written whole or not at all: the bytes go to a temporary file in
 * the same folder, which is flushed, synced, closed and only then renamed over
 * path, so the previous file stays intact on any error (a full disk, a bad
 * folder) and no reader sees half a file.  A path that names a device or a
 * pipe (/dev/stdout, /dev/null) is written directly instead.  On failure:
 * 0, with "dmlref: PATH: cannot write: REASON" on stderr, the temporary file
 * removed. */
typedef int (*file_writer)(FILE *f, const void *context); /* 0 on failure */
int write_file_with(const char *path, file_writer writer, const void *context);

/* write_file_with of `length` bytes, creating path's parent folders first. */
int write_file(const char *path, const char *data, size_t length);

/* A folder that appears whole or not at all (dmlref gen): begin_new_folder
 * refuses a target that exists and is not an empty folder, creates the
 * target's parent folders and returns a temporary folder beside the target
 * (caller passes it on); finish_new_folder renames it onto the target when
 * `complete` (an empty folder is replaced, in one step on POSIX:
 * platform/files.h's replace_empty_folder; one that a concurrent writer
 * filled meanwhile is not, and that is a failure), and otherwise, or
 * when the rename fails, removes it and everything in it.  An empty target
 * that cannot be replaced (a mount point: EBUSY, or EXDEV) is filled
 * instead: the folder is copied into a hidden temporary folder inside the
 * target, whose entries are then moved out into it one by one (put back
 * should one move fail).  Both say why they fail on stderr;
 * finish_new_folder returns 1 when the folder is in place. */
char *begin_new_folder(const char *target);
int finish_new_folder(char *temporary, const char *target, int complete);

/* What a reason of src/platform/files.h says, for a message: strerror, or
   "not a regular file" for FILE_NOT_REGULAR. */
const char *reason_text(int reason);

/* XXH3-64 of a regular file's bytes into *digest, read without waiting on a
   FIFO (platform/files.h's open_regular_file): 0, or the reason it could not
   be read (ENOENT when it does not exist, FILE_NOT_REGULAR, EFBIG past
   DMLREF_VECTOR_MAX_FILE_BYTES, which no vector is). */
int file_digest(const char *path, uint64_t *digest);

/* Options for reading vectors: `flags`, and the memory cap on what one case
   makes the library allocate, from the environment variable DMLREF_MEMORY_CAP
   (bytes; unset or invalid: the library's default of 4 GiB). */
dmlref_vector_read_options read_options(uint32_t flags);

/* A growing list of paths. */
typedef struct path_list {
    char **items;
    size_t count, capacity;
} path_list;
int list_add(path_list *l, const char *path);
void list_free(path_list *l);

/* strcmp of two path_list items (for qsort and bsearch). */
int compare_strings(const void *a, const void *b);

/* Sorts l's items from index `first` on. */
void sort_paths(path_list *l, size_t first);

/* How many folders deep a walk goes below the folder it is given: a deeper
   folder is not walked, and that is a failure said on stderr (never a
   crash: the walk keeps its own stack). */
#define WALK_DEPTH_LIMIT 256

/* Every vector below a folder (as collect_vectors walks it), sorted.  0 when
   any folder below cannot be listed or any entry looked at (a dangling link
   aside), or lies deeper than WALK_DEPTH_LIMIT or at a path longer than the
   system takes (PATH_MAX): each said on stderr, never taken for an empty
   folder, and what the walk found elsewhere still added. */
int walk_vectors(const char *dir, path_list *out);

/* Adds a file, or every vector (*.json but a suite's schema.json) below a
   folder, sorted; 0 (with a message) when the path cannot be read or is
   neither a regular file nor a folder.  The walk takes only regular files,
   and enters each folder once: a link back to a folder on the way (a loop)
   or a second link to one already walked is skipped with a note on stderr,
   and so is a *.json that is not a regular file (a FIFO is never opened). */
int collect_vectors(const char *path, path_list *out);

#endif /* DMLREF_COMMAND_BASE_H */
