/*
 * cli.h - what the command line's files share (not part of the library).
 */
#ifndef DMLREF_CLI_H
#define DMLREF_CLI_H

#include "dmlref.h"

#include <stdio.h>

/* Exit codes (contract section 3). */
enum {
    EXIT_OK = 0,
    EXIT_DIFFERENCE = 1, /* a comparison failed */
    EXIT_BAD_INPUT = 2,  /* unreadable, malformed or invalid input */
    EXIT_USAGE = 3
};

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
 * `complete` (an empty folder is replaced atomically; one that a concurrent
 * writer filled meanwhile is not, and that is a failure), and otherwise, or
 * when the rename fails, removes it and everything in it.  Both say why they
 * fail on stderr; finish_new_folder returns 1 when the folder is in place. */
char *begin_new_folder(const char *target);
int finish_new_folder(char *temporary, const char *target, int complete);

/* Opens a regular file for reading without ever waiting on it: a FIFO, a
 * device or a folder is refused before it is opened (and re-checked after,
 * in case it was swapped in meanwhile).  NULL with *fd open, or the reason
 * (errno: the cause, or 0 for "not a regular file"). */
const char *open_regular_file(const char *path, int *fd);

/* XXH3-64 of a regular file's bytes into *digest: NULL, or why it could not
 * be read (errno is ENOENT when it does not exist). */
const char *file_digest(const char *path, uint64_t *digest);

/* Options for reading vectors: `flags`, and the memory cap on what one case
   makes the library allocate, from the environment variable DMLREF_MEMORY_CAP
   (bytes; unset or invalid: the library's default of 4 GiB). */
dmlref_vector_read_options read_options(uint32_t flags);

/* "dmlref: <message> (dmlref help)" on stderr; returns EXIT_USAGE. */
int usage_error(const char *message);

/* A growing list of paths. */
typedef struct path_list {
    char **items;
    size_t count, capacity;
} path_list;
int list_add(path_list *l, const char *path);
void list_free(path_list *l);

/* Adds a file, or every vector (*.json but a suite's schema.json) below a
   folder, sorted; 0 (with a message) when the path cannot be read or is
   neither a regular file nor a folder.  The walk takes only regular files,
   and enters each folder once: a link back to a folder on the way (a loop)
   or a second link to one already walked is skipped with a note on stderr,
   and so is a *.json that is not a regular file (a FIFO is never opened). */
int collect_vectors(const char *path, path_list *out);

/* dmlref check: returns an exit code; its help text. */
int command_check(int argc, char **argv);
extern const char *const check_help;

/* The 11 data types, in DirectML's order, as the suite sweeps them. */
extern const dmlref_tensor_data_type suite_data_types[11];

/* The suite's seeded generator (SplitMix64): the next value of *state. */
uint64_t random_next(uint64_t *state);

/* One random case (a case's JSON text, outputs without expected) drawn with
   the suite's own builders; op 0: any operator.  The caller frees *text. */
int random_case(uint64_t *state, dmlref_operator_type op, char **text, size_t *length);

/* dmlref fuzz: returns an exit code. */
int command_fuzz(int argc, char **argv);

/* dmlref bench: returns an exit code. */
int command_bench(int argc, char **argv);

/* dmlref gen: writes the suite of `profile` to out_dir; returns an exit code. */
int generate_suite(const char *out_dir, uint64_t seed, const char *profile, uint32_t threads);

#endif /* DMLREF_CLI_H */
