/*
 * files_posix.c - files.h on POSIX: stat and lstat, opendir and readdir,
 * mkdir, mkstemp and mkdtemp, fsync, rename, realpath.
 */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp, fchmod, fsync beside C99 */
#include "platform/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* A 32-bit build must see files past 2 GiB and 64-bit inode numbers: the
   Makefile defines _FILE_OFFSET_BITS=64, and this stops a build without it. */
typedef char large_file_offsets_needed[sizeof(off_t) >= 8 ? 1 : -1];

int is_path_separator(char c)
{
    return c == '/';
}

size_t path_root_length(const char *path)
{
    return path[0] == '/';
}

int real_path(const char *path, char **resolved)
{
    *resolved = realpath(path, NULL);
    return *resolved ? 0 : errno;
}

static void facts_of(const struct stat *st, file_facts *facts)
{
    facts->kind = S_ISREG(st->st_mode)   ? FILE_KIND_REGULAR
                  : S_ISDIR(st->st_mode) ? FILE_KIND_FOLDER
                  : S_ISLNK(st->st_mode) ? FILE_KIND_LINK
                                         : FILE_KIND_OTHER;
    facts->identity.volume = (uint64_t)st->st_dev;
    facts->identity.file = (uint64_t)st->st_ino;
    facts->permissions = (unsigned)(st->st_mode & 07777);
}

int path_facts(const char *path, file_facts *facts)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    facts_of(&st, facts);
    return 0;
}

int link_facts(const char *path, file_facts *facts)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno;
    facts_of(&st, facts);
    return 0;
}

int list_folder(const char *path, folder_listing *listing)
{
    DIR *d;
    struct dirent *entry;
    size_t capacity = 0;
    int reason = 0;

    listing->names = NULL;
    listing->count = 0;
    if (!(d = opendir(path)))
        return errno;
    for (;;) {
        char *name;
        errno = 0; /* readdir's NULL is the end only when errno stays 0 */
        if (!(entry = readdir(d))) {
            reason = errno;
            break;
        }
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        if (listing->count == capacity) {
            size_t grown_capacity = capacity ? 2 * capacity : 64;
            char **grown = realloc(listing->names, grown_capacity * sizeof *grown);
            if (!grown) {
                reason = ENOMEM;
                break;
            }
            listing->names = grown;
            capacity = grown_capacity;
        }
        if (!(name = malloc(strlen(entry->d_name) + 1))) {
            reason = ENOMEM;
            break;
        }
        strcpy(name, entry->d_name);
        listing->names[listing->count++] = name;
    }
    if (closedir(d) != 0 && !reason)
        reason = errno;
    if (reason)
        free_folder_listing(listing);
    return reason;
}

int make_folder(const char *path)
{
    return mkdir(path, 0777) == 0 ? 0 : errno;
}

int remove_path(const char *path)
{
    return remove(path) == 0 ? 0 : errno;
}

int make_temporary_folder(char *name_template)
{
    return mkdtemp(name_template) ? 0 : errno;
}

int make_temporary_file(char *name_template, FILE **file)
{
    int fd = mkstemp(name_template), reason;
    *file = NULL;
    if (fd < 0)
        return errno;
    if (!(*file = fdopen(fd, "wb"))) {
        reason = errno;
        close(fd);
        remove(name_template);
        return reason;
    }
    return 0;
}

int temporary_files_folder(char *buffer, size_t size)
{
    const char *folder = getenv("TMPDIR");
    size_t length;
    if (!folder || !*folder)
        folder = "/tmp";
    length = strlen(folder);
    while (length > 1 && folder[length - 1] == '/')
        --length;
    if (length >= size)
        return ENAMETOOLONG;
    memcpy(buffer, folder, length);
    buffer[length] = '\0';
    return 0;
}

int open_regular_file(const char *path, FILE **file)
{
    struct stat st;
    int fd, reason;
    *file = NULL;
    if (stat(path, &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return FILE_NOT_REGULAR;
    /* the path may have become a FIFO since: O_NONBLOCK opens one without
       waiting for a writer, and fstat then refuses it */
    if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0)
        return errno;
    if (fstat(fd, &st) != 0)
        reason = errno;
    else if (!S_ISREG(st.st_mode))
        reason = FILE_NOT_REGULAR;
    else if (!(*file = fdopen(fd, "rb")))
        reason = errno;
    else
        return 0;
    close(fd);
    return reason;
}

int open_device_for_writing(const char *path, FILE **file)
{
    /* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting;
       the writes themselves then block as usual */
    int fd = open(path, O_WRONLY | O_NONBLOCK), reason;
    *file = NULL;
    if (fd < 0)
        return errno;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(*file = fdopen(fd, "wb"))) {
        reason = errno;
        close(fd);
        return reason;
    }
    return 0;
}

int flush_to_disk(FILE *file)
{
    if (fflush(file) != 0)
        return errno ? errno : EIO;
    return fsync(fileno(file)) == 0 ? 0 : errno;
}

unsigned permissions_under_umask(unsigned requested)
{
    mode_t mask = umask(0);
    umask(mask);
    return requested & ~(unsigned)mask;
}

int set_file_permissions(FILE *file, unsigned permissions)
{
    return fchmod(fileno(file), (mode_t)permissions) == 0 ? 0 : errno;
}

int set_path_permissions(const char *path, unsigned permissions)
{
    return chmod(path, (mode_t)permissions) == 0 ? 0 : errno;
}

int replace_file(const char *from, const char *to)
{
    return rename(from, to) == 0 ? 0 : errno;
}

int replace_empty_folder(const char *from, const char *to)
{
    return rename(from, to) == 0 ? 0 : errno;
}
