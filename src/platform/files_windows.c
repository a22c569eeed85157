/*
 * files_windows.c - files.h on Windows (mingw-w64): the "A" functions of
 * the Windows API, so that paths are in the ANSI code page as fopen and
 * main's argv have them (files.h).  What POSIX gives and Windows lacks:
 *   - lstat: a reparse point that stands for another path (a symbolic link,
 *     a junction) is a link; CreateFile with FILE_FLAG_OPEN_REPARSE_POINT
 *     looks at it instead of through it;
 *   - st_dev and st_ino: the volume's serial number and the file index of
 *     GetFileInformationByHandle;
 *   - mkdtemp and mkstemp: a name drawn with rand_s, created with
 *     CreateDirectory or CreateFile(CREATE_NEW), drawn again if taken;
 *   - rename over a file: MoveFileEx(MOVEFILE_REPLACE_EXISTING), which
 *     msvcrt's rename does not do; over an empty folder: files.h says how;
 *   - fsync: FlushFileBuffers; permission bits: none (files.h).
 * System errors become the nearest errno value (reason_of).
 */
#define _CRT_RAND_S /* rand_s, from stdlib.h */
#include "platform/files.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

/* The errno value nearest to a Windows error, for strerror. */
static int reason_of(DWORD error)
{
    switch (error) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_INVALID_DRIVE:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_CANNOT_MAKE:
        return EACCES;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS:
        return EEXIST;
    case ERROR_DIR_NOT_EMPTY:
        return ENOTEMPTY;
    case ERROR_DIRECTORY:
        return ENOTDIR;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ENOSPC;
    case ERROR_WRITE_PROTECT:
        return EROFS;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    case ERROR_NOT_SAME_DEVICE:
        return EXDEV;
    case ERROR_INVALID_NAME:
    case ERROR_INVALID_PARAMETER:
        return EINVAL;
    case ERROR_PIPE_BUSY:
    case ERROR_PIPE_NOT_CONNECTED:
        return ENXIO;
    default:
        return EIO;
    }
}

static int last_reason(void)
{
    return reason_of(GetLastError());
}

int is_path_separator(char c)
{
    return c == '/' || c == '\\';
}

size_t path_root_length(const char *path)
{
    size_t length;
    if (is_path_separator(path[0]) && is_path_separator(path[1])) {
        /* \\server\share\ (or \\?\C:\): two parts after the two separators */
        int part;
        length = 2;
        for (part = 0; part < 2 && path[length]; ++part) {
            while (path[length] && !is_path_separator(path[length]))
                ++length;
            if (is_path_separator(path[length]))
                ++length;
        }
        return length;
    }
    if (((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
        path[1] == ':')
        return is_path_separator(path[2]) ? 3 : 2;
    return is_path_separator(path[0]) ? 1 : 0;
}

/* A handle that reads a file's attributes only (no access to its bytes,
   sharing everything, folders too); `flags` adds FILE_FLAG_OPEN_REPARSE_POINT
   to look at a link itself. */
static HANDLE open_for_attributes(const char *path, DWORD flags)
{
    return CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | flags, NULL);
}

int real_path(const char *path, char **resolved)
{
    HANDLE h = open_for_attributes(path, 0);
    DWORD size = MAX_PATH, got = 0;
    const char *start;
    char *name = NULL;
    int tries, reason = ENAMETOOLONG;

    *resolved = NULL;
    if (h == INVALID_HANDLE_VALUE)
        return last_reason();
    /* a buffer too small gives the size wanted, with its NUL or (wine)
       without: a byte more than that is offered each time */
    for (tries = 0; tries < 3 && reason == ENAMETOOLONG; ++tries) {
        free(name);
        if (!(name = malloc((size_t)size + 1)))
            reason = ENOMEM;
        else if (!(got = GetFinalPathNameByHandleA(h, name, size + 1,
                                                   FILE_NAME_NORMALIZED | VOLUME_NAME_DOS)))
            reason = last_reason();
        else if (got <= size)
            reason = 0;
        else
            size = got;
    }
    CloseHandle(h);
    if (reason) {
        free(name);
        return reason;
    }
    /* \\?\C:\dir as C:\dir, and \\?\UNC\server\share as \\server\share */
    start = name;
    if (strncmp(name, "\\\\?\\UNC\\", 8) == 0) {
        start = name + 6;
        name[6] = '\\';
    } else if (strncmp(name, "\\\\?\\", 4) == 0 && name[4] && name[5] == ':') {
        start = name + 4;
    }
    memmove(name, start, strlen(start) + 1);
    *resolved = name;
    return 0;
}

/* The facts of what path names: through links, or of the link itself when
   `of_link`.  A handle to something else than a disk file (a device, a pipe)
   is FILE_KIND_OTHER. */
static int facts_by_handle(const char *path, int of_link, file_facts *facts)
{
    HANDLE h = open_for_attributes(path, of_link ? FILE_FLAG_OPEN_REPARSE_POINT : 0);
    BY_HANDLE_FILE_INFORMATION info;
    int reason = 0;

    if (h == INVALID_HANDLE_VALUE)
        return last_reason();
    memset(facts, 0, sizeof *facts);
    if (GetFileType(h) != FILE_TYPE_DISK) {
        facts->kind = FILE_KIND_OTHER;
        facts->permissions = 0666;
    } else if (!GetFileInformationByHandle(h, &info)) {
        reason = last_reason();
    } else {
        int folder = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
        facts->kind = folder ? FILE_KIND_FOLDER : FILE_KIND_REGULAR;
        if (of_link && (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
            /* a link only if the reparse point stands for another path (a
               symbolic link, a junction), not a placeholder for cloud files */
            FILE_ATTRIBUTE_TAG_INFO tag;
            if (GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag, sizeof tag) &&
                IsReparseTagNameSurrogate(tag.ReparseTag))
                facts->kind = FILE_KIND_LINK;
        }
        facts->identity.volume = info.dwVolumeSerialNumber;
        facts->identity.file = (uint64_t)info.nFileIndexHigh << 32 | info.nFileIndexLow;
        facts->permissions = (info.dwFileAttributes & FILE_ATTRIBUTE_READONLY ? 0444u : 0666u) |
                             (folder ? 0111u : 0u);
    }
    CloseHandle(h);
    return reason;
}

int path_facts(const char *path, file_facts *facts)
{
    return facts_by_handle(path, 0, facts);
}

int link_facts(const char *path, file_facts *facts)
{
    return facts_by_handle(path, 1, facts);
}

/* Adds a copy of name to the listing: 0 or ENOMEM. */
static int add_name(folder_listing *listing, size_t *capacity, const char *name)
{
    char *copy;
    if (listing->count == *capacity) {
        size_t grown_capacity = *capacity ? 2 * *capacity : 64;
        char **grown = realloc(listing->names, grown_capacity * sizeof *grown);
        if (!grown)
            return ENOMEM;
        listing->names = grown;
        *capacity = grown_capacity;
    }
    if (!(copy = malloc(strlen(name) + 1)))
        return ENOMEM;
    strcpy(copy, name);
    listing->names[listing->count++] = copy;
    return 0;
}

int list_folder(const char *path, folder_listing *listing)
{
    size_t length = strlen(path), capacity = 0;
    DWORD attributes;
    WIN32_FIND_DATAA entry;
    HANDLE search;
    char *pattern;
    int reason = 0;

    listing->names = NULL;
    listing->count = 0;
    if (length == 0)
        return ENOENT;
    if ((attributes = GetFileAttributesA(path)) == INVALID_FILE_ATTRIBUTES)
        return last_reason();
    if (!(attributes & FILE_ATTRIBUTE_DIRECTORY))
        return ENOTDIR;
    if (!(pattern = malloc(length + 3)))
        return ENOMEM;
    strcpy(pattern, path);
    strcpy(pattern + length, is_path_separator(path[length - 1]) ? "*" : "\\*");
    search = FindFirstFileExA(pattern, FindExInfoBasic, &entry, FindExSearchNameMatch, NULL,
                              FIND_FIRST_EX_LARGE_FETCH);
    free(pattern);
    if (search == INVALID_HANDLE_VALUE) {
        /* a drive's root has no "." or "..": nothing found there is empty */
        DWORD error = GetLastError();
        return error == ERROR_FILE_NOT_FOUND ? 0 : reason_of(error);
    }
    do {
        if (strcmp(entry.cFileName, ".") != 0 && strcmp(entry.cFileName, "..") != 0)
            reason = add_name(listing, &capacity, entry.cFileName);
    } while (!reason && FindNextFileA(search, &entry));
    if (!reason && GetLastError() != ERROR_NO_MORE_FILES)
        reason = last_reason();
    FindClose(search);
    if (reason)
        free_folder_listing(listing);
    return reason;
}

int make_folder(const char *path)
{
    return CreateDirectoryA(path, NULL) ? 0 : last_reason();
}

int remove_path(const char *path)
{
    /* a link to a folder is a folder's reparse point: RemoveDirectory removes
       the link, never what it leads to */
    DWORD attributes = GetFileAttributesA(path);
    if (attributes == INVALID_FILE_ATTRIBUTES)
        return last_reason();
    if (attributes & FILE_ATTRIBUTE_DIRECTORY)
        return RemoveDirectoryA(path) ? 0 : last_reason();
    return DeleteFileA(path) ? 0 : last_reason();
}

/* Replaces the template's final "XXXXXX" with random letters and digits:
   0, or EINVAL when it has no such end. */
static int draw_name(char *name_template)
{
    static const char k_letters[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t length = strlen(name_template), i;
    if (length < 6 || strcmp(name_template + length - 6, "XXXXXX") != 0)
        return EINVAL;
    for (i = length - 6; i < length; ++i) {
        unsigned int r = 0;
        if (rand_s(&r) != 0)
            return EIO;
        name_template[i] = k_letters[r % (sizeof k_letters - 1)];
    }
    return 0;
}

/* How many names make_temporary_* draw before giving up. */
enum { TEMPORARY_TRIES = 100 };

int make_temporary_folder(char *name_template)
{
    int tries, reason = EEXIST;
    for (tries = 0; tries < TEMPORARY_TRIES && reason == EEXIST; ++tries) {
        if ((reason = draw_name(name_template)) != 0)
            return reason;
        reason = CreateDirectoryA(name_template, NULL) ? 0 : last_reason();
    }
    return reason;
}

int make_temporary_file(char *name_template, FILE **file)
{
    HANDLE h = INVALID_HANDLE_VALUE;
    int tries, fd, reason = EEXIST;
    *file = NULL;
    for (tries = 0; tries < TEMPORARY_TRIES && reason == EEXIST; ++tries) {
        if ((reason = draw_name(name_template)) != 0)
            return reason;
        h = CreateFileA(name_template, GENERIC_WRITE,
                        FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, CREATE_NEW,
                        FILE_ATTRIBUTE_NORMAL, NULL);
        reason = h != INVALID_HANDLE_VALUE ? 0 : last_reason();
    }
    if (reason)
        return reason;
    if ((fd = _open_osfhandle((intptr_t)h, _O_BINARY)) < 0) {
        CloseHandle(h);
        DeleteFileA(name_template);
        return EMFILE;
    }
    if (!(*file = _fdopen(fd, "wb"))) {
        reason = errno;
        _close(fd);
        DeleteFileA(name_template);
        return reason;
    }
    return 0;
}

int temporary_files_folder(char *buffer, size_t size)
{
    char folder[MAX_PATH + 1];
    DWORD length = GetTempPathA(sizeof folder, folder);
    size_t kept;
    if (length == 0)
        return last_reason();
    if (length >= sizeof folder)
        return ENAMETOOLONG;
    kept = length;
    while (kept > path_root_length(folder) && is_path_separator(folder[kept - 1]))
        --kept;
    if (kept >= size)
        return ENAMETOOLONG;
    memcpy(buffer, folder, kept);
    buffer[kept] = '\0';
    return 0;
}

/* The stream's file, as a Windows handle. */
static HANDLE handle_of(FILE *file)
{
    return (HANDLE)_get_osfhandle(_fileno(file));
}

int open_regular_file(const char *path, FILE **file)
{
    file_facts facts;
    BY_HANDLE_FILE_INFORMATION info;
    HANDLE h;
    int reason = path_facts(path, &facts);
    *file = NULL;
    if (reason)
        return reason;
    if (facts.kind != FILE_KIND_REGULAR)
        return FILE_NOT_REGULAR;
    if (!(*file = fopen(path, "rb")))
        return errno;
    /* what was opened may differ from what was looked at: check it again */
    h = handle_of(*file);
    if (GetFileType(h) != FILE_TYPE_DISK)
        reason = FILE_NOT_REGULAR;
    else if (!GetFileInformationByHandle(h, &info))
        reason = last_reason();
    else if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
        reason = FILE_NOT_REGULAR;
    if (reason) {
        fclose(*file);
        *file = NULL;
    }
    return reason;
}

int open_device_for_writing(const char *path, FILE **file)
{
    /* a pipe without a server, or a busy one, fails at once: Windows never
       waits here */
    *file = fopen(path, "wb");
    return *file ? 0 : errno;
}

int flush_to_disk(FILE *file)
{
    if (fflush(file) != 0)
        return errno ? errno : EIO;
    return FlushFileBuffers(handle_of(file)) ? 0 : last_reason();
}

unsigned permissions_under_umask(unsigned requested)
{
    return requested;
}

int set_file_permissions(FILE *file, unsigned permissions)
{
    (void)file, (void)permissions;
    return 0;
}

int set_path_permissions(const char *path, unsigned permissions)
{
    (void)path, (void)permissions;
    return 0;
}

int replace_file(const char *from, const char *to)
{
    return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
               ? 0
               : last_reason();
}

int replace_empty_folder(const char *from, const char *to)
{
    DWORD attributes = GetFileAttributesA(to);
    if (attributes != INVALID_FILE_ATTRIBUTES) {
        /* a link in the way is not an empty folder to replace */
        if (!(attributes & FILE_ATTRIBUTE_DIRECTORY) || (attributes & FILE_ATTRIBUTE_REPARSE_POINT))
            return EEXIST;
        /* fails with ENOTEMPTY when anything is in it */
        if (!RemoveDirectoryA(to))
            return last_reason();
    }
    /* no MOVEFILE_REPLACE_EXISTING: whatever took the name meanwhile stays */
    return MoveFileExA(from, to, MOVEFILE_WRITE_THROUGH) ? 0 : last_reason();
}
