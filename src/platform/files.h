/*
 * files.h - files, folders and paths as the operating system has them: the
 * command's one way to list a folder, create one, learn what a path names,
 * write a file to the disk and put it in place.  files_posix.c and
 * files_windows.c are its two sides; the policies built on them (whole or
 * nothing writes, vector walks) are src/command_base's.
 *
 * Paths are byte strings, the ones fopen takes.  On POSIX any bytes.  On
 * Windows they are in the process's ANSI code page, as main's argv and the
 * C library's fopen (which the library reads vectors with) have them: this
 * side calls the Windows "A" functions, so a name that list_folder returns
 * opens with fopen, and a name from the command line names the same file
 * here and in the library.  Where the active code page is UTF-8 (Windows 10
 * 1903 and later, by an application manifest or the system's setting) that
 * is UTF-8; elsewhere a name outside the code page cannot be named.  Windows
 * takes both / and \ as separators; dmlref itself joins with /.
 *
 * Every call that can fail returns 0, or the reason as an errno value
 * (ENOENT, EACCES, ENOTDIR, EEXIST, ENOTEMPTY, ENOSPC, ...); the Windows
 * side turns its system errors into the nearest one, so that strerror()
 * words both sides' failures.
 */
#ifndef DMLREF_PLATFORM_FILES_H
#define DMLREF_PLATFORM_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- paths -------------------------------------------------------------- */

/* 1 when c separates folders in a path: '/', and on Windows '\' too. */
int is_path_separator(char c);

/* The length of the path's root, which names no folder to create or strip:
   0 for a relative path, 1 for "/..." (and "\..." on Windows), 2 for "C:",
   3 for "C:\...", and "\\server\share\" whole on Windows. */
size_t path_root_length(const char *path);

/* The real path of an existing file or folder, links resolved, into
   *resolved (malloc'd, the caller frees it). */
int real_path(const char *path, char **resolved);

/* ---- what a path names ---------------------------------------------------- */

typedef enum file_kind {
    FILE_KIND_REGULAR,
    FILE_KIND_FOLDER,
    FILE_KIND_LINK, /* only from link_facts: a symbolic link; on Windows any
                       reparse point that stands for another path (symbolic
                       links and junctions) */
    FILE_KIND_OTHER /* a device, a FIFO, a socket, a pipe */
} file_kind;

/* Which file a path reaches, to tell when two paths reach one folder (a walk
   that loops through links): st_dev and st_ino on POSIX, the volume's serial
   number and the file index on Windows. */
typedef struct file_identity {
    uint64_t volume, file;
} file_identity;

typedef struct file_facts {
    file_kind kind;
    file_identity identity;
    /* POSIX permission bits (07777).  Windows has none: 0666, or 0444 for a
       read-only file, with 0111 added for a folder. */
    unsigned permissions;
} file_facts;

/* What path names, links followed (stat). */
int path_facts(const char *path, file_facts *facts);

/* What path names itself, a link not followed (lstat). */
int link_facts(const char *path, file_facts *facts);

int same_file(const file_identity *a, const file_identity *b);

/* ---- folders ------------------------------------------------------------- */

/* A folder's entries: every name but "." and "..", in the system's order. */
typedef struct folder_listing {
    char **names;
    size_t count;
} folder_listing;

/* Lists a folder whole, or not at all: on any failure, opening it or reading
   any of its entries, the reason, and *listing is left empty.  A folder that
   cannot be read is never an empty one.  ENOTDIR when path is no folder. */
int list_folder(const char *path, folder_listing *listing);
void free_folder_listing(folder_listing *listing);

/* A new folder (0777 under the umask on POSIX); EEXIST when path exists. */
int make_folder(const char *path);

/* Removes a file, a link (never what it leads to) or an empty folder. */
int remove_path(const char *path);

/* ---- temporary files and folders ------------------------------------------ */

/* name_template ends in "XXXXXX", which these replace with a name that did
   not exist (mkdtemp, mkstemp): a new folder (0700 on POSIX), or a new
   file (0600 on POSIX) opened for writing bytes as they are ("wb": no
   newline translation on Windows).  The caller writes where name_template
   points. */
int make_temporary_folder(char *name_template);
int make_temporary_file(char *name_template, FILE **file);

/* The folder for temporary files, without a trailing separator, into
   buffer: $TMPDIR or /tmp on POSIX, GetTempPath on Windows.  ENAMETOOLONG
   when it does not fit. */
int temporary_files_folder(char *buffer, size_t size);

/* ---- reading and writing -------------------------------------------------- */

/* open_regular_file's reason when path names something else than a regular
   file (a folder, a FIFO, a device); not an errno value. */
#define FILE_NOT_REGULAR (-1)

/* Opens a regular file for reading bytes ("rb") without ever waiting on
   it: a FIFO or a device is refused before it is opened, and checked again
   once open, in case one was swapped in meanwhile (never opened blocking). */
int open_regular_file(const char *path, FILE **file);

/* Opens what path names for writing bytes, without waiting: meant for a
   device or a pipe (/dev/stdout, NUL), which cannot be replaced, only
   written.  A FIFO that has no reader fails at once (ENXIO) instead of
   waiting for one. */
int open_device_for_writing(const char *path, FILE **file);

/* Flushes the stream and waits for its bytes to reach the disk (fsync;
   FlushFileBuffers on Windows). */
int flush_to_disk(FILE *file);

/* What open(path, O_CREAT, requested) would get under the process's umask:
   mkstemp and mkdtemp make 0600 and 0700, which a file or folder that takes
   another's place must not keep.  Windows: `requested`. */
unsigned permissions_under_umask(unsigned requested);

/* Sets the permission bits of an open file (fchmod) or of a path (chmod).
   Windows has no permission bits: a new file or folder takes the access
   control that its folder passes on, as any other there, so these do
   nothing and return 0. */
int set_file_permissions(FILE *file, unsigned permissions);
int set_path_permissions(const char *path, unsigned permissions);

/* Puts the file `from` in place of `to` in one step: a reader sees the old
   file or the new one, never neither or half.  POSIX rename; Windows
   MoveFileEx with MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH (a
   read-only `to` is refused, EACCES).  Both in one folder. */
int replace_file(const char *from, const char *to);

/* Puts the folder `from` in place of `to`, which must not exist or be an
   empty folder; ENOTEMPTY or EEXIST when `to` holds anything.  POSIX rename
   does it in one step.  Windows cannot rename onto a folder: the empty `to`
   is removed, then `from` renamed to it, refused if anything took the name
   meanwhile.  `to` then does not exist for that moment, but what lands is
   always one whole folder: either `from` or another writer's. */
int replace_empty_folder(const char *from, const char *to);

#endif /* DMLREF_PLATFORM_FILES_H */
