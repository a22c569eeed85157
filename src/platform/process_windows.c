/*
 * process_windows.c - process.h on Windows.
 *
 * Children: CreateProcessW, suspended until it is in a Job object of its
 * own (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: when dmlref ends in any way, the
 * job's processes end too; JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION: no
 * error dialog), in a console process group of its own (Ctrl+C in dmlref's
 * console reaches dmlref only, as a process group does on POSIX), with the
 * error mode that shows no dialog.
 *
 * Only the handles meant for a child reach it: every handle dmlref makes is
 * not inheritable but for the moment of CreateProcessW, and then it is
 * named in PROC_THREAD_ATTRIBUTE_HANDLE_LIST as well (where the system
 * does not take the list, the first rule alone holds: dmlref starts its
 * children from one thread).
 *
 * Pipes: anonymous pipes cannot time out, so each is a named pipe of a name
 * of its own (\\.\pipe\dmlref-PID-N-TICKS, one instance, no remote
 * client): dmlref's end is opened for overlapped I/O, which waits with
 * WaitForMultipleObjects no longer than the deadline; the child's end is an
 * ordinary handle.  A channel reads into a buffer of its own and writes
 * from a copy, so that an operation still under way when a call returns
 * touches nothing of the caller's.
 *
 * A worker is dmlref's own executable (GetModuleFileNameW) started again:
 *   "DMLREF.EXE" --worker KIND HANDLES ARG...
 * HANDLES names the inherited handles (from dmlref, to dmlref, the shared
 * memory's section, its size and dmlref's address of it) in hexadecimal,
 * and each ARG is its bytes in hexadecimal, so that any argument comes
 * back byte for byte whatever the code pages.  worker_run maps the memory
 * (at dmlref's address when it is free there too), makes crashes end the
 * process with their exception code, and calls the kind's function.
 *
 * Under wine (8): the handle list is honoured; the error mode is not looked
 * at when a process crashes, so a crashing shell command starts winedbg,
 * whose report goes to the command's standard output (a worker, with its
 * own unhandled-exception filter, ends with its exception code as on
 * Windows).
 */
#include "platform/fault.h"
#include "platform/process.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include <psapi.h> /* K32GetProcessMemoryInfo: kernel32 itself since Windows 7 */

#define PIPE_BUFFER_BYTES 65536

/* What every child starts with: no dialog on a crash or a missing file. */
#define QUIET_ERROR_MODE (SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX)

/* The exit code of a worker that called abort(): the Universal C runtime's
   abort() ends a process with this code (__fastfail), as a crash. */
#define ABORT_EXIT_CODE 0xC0000409u

static wchar_t *widen(const char *text)
{
    int n = MultiByteToWideChar(CP_ACP, 0, text, -1, NULL, 0);
    wchar_t *wide = n > 0 ? malloc((size_t)n * sizeof *wide) : NULL;
    if (wide && MultiByteToWideChar(CP_ACP, 0, text, -1, wide, n) != n) {
        free(wide);
        wide = NULL;
    }
    return wide;
}

static void make_inheritable(HANDLE h, int inheritable)
{
    if (h && h != INVALID_HANDLE_VALUE)
        SetHandleInformation(h, HANDLE_FLAG_INHERIT, inheritable ? HANDLE_FLAG_INHERIT : 0);
}

/* ---- what a child prints ---------------------------------------------------------- */

struct capture {
    HANDLE file;   /* dmlref's: reads, truncates; deletes the file when closed */
    HANDLE append; /* the children's: FILE_APPEND_DATA only, so each write lands at the end */
};

capture *capture_open(void)
{
    wchar_t folder[MAX_PATH + 1], name[MAX_PATH + 1];
    const DWORD share = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
    capture *c = malloc(sizeof *c);
    DWORD length = GetTempPathW(MAX_PATH + 1, folder);
    if (!c || length == 0 || length > MAX_PATH || !GetTempFileNameW(folder, L"dml", 0, name)) {
        free(c);
        return NULL;
    }
    c->file = CreateFileW(name, GENERIC_READ | GENERIC_WRITE | DELETE, share, NULL, OPEN_EXISTING,
                          FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
    if (c->file == INVALID_HANDLE_VALUE) {
        DeleteFileW(name);
        free(c);
        return NULL;
    }
    c->append = CreateFileW(name, FILE_APPEND_DATA | SYNCHRONIZE, share, NULL, OPEN_EXISTING,
                            FILE_ATTRIBUTE_TEMPORARY, NULL);
    if (c->append == INVALID_HANDLE_VALUE) {
        CloseHandle(c->file);
        free(c);
        return NULL;
    }
    return c;
}

void capture_clear(capture *c)
{
    LARGE_INTEGER start;
    start.QuadPart = 0;
    if (c && SetFilePointerEx(c->file, start, NULL, FILE_BEGIN))
        SetEndOfFile(c->file);
}

void capture_last_line(capture *c, char *line, size_t capacity)
{
    char tail[256];
    LARGE_INTEGER size;
    OVERLAPPED at;
    DWORD got = 0;
    size_t n;
    if (capacity)
        line[0] = '\0';
    if (!c || !capacity || !GetFileSizeEx(c->file, &size) || size.QuadPart <= 0)
        return;
    memset(&at, 0, sizeof at); /* a synchronous handle reads at the offset given */
    if (size.QuadPart > (LONGLONG)(sizeof tail - 1)) {
        ULONGLONG from = (ULONGLONG)size.QuadPart - (sizeof tail - 1);
        at.Offset = (DWORD)(from & 0xFFFFFFFFu);
        at.OffsetHigh = (DWORD)(from >> 32);
    }
    if (!ReadFile(c->file, tail, (DWORD)(sizeof tail - 1), &got, &at) || got == 0)
        return;
    n = (size_t)got;
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        --n; /* the last line, without its line end */
    tail[n] = '\0';
    while (n > 0 && tail[n - 1] != '\n')
        --n;
    snprintf(line, capacity, "%s", tail + n);
}

void capture_close(capture *c)
{
    if (!c)
        return;
    CloseHandle(c->append);
    CloseHandle(c->file);
    free(c);
}

/* ---- dmlref's end of a pipe ------------------------------------------------------- */

struct channel {
    HANDLE pipe; /* overlapped */
    OVERLAPPED io;
    int pending; /* an operation is under way in io */
    int closed;  /* the other end is gone (or an error) */
    /* reads: buffer[offset, held) came and is not handed out yet;
       writes: buffer[0, held) is being written */
    size_t offset, held;
    char buffer[PIPE_BUFFER_BYTES];
};

static DWORD wait_milliseconds(const deadline *d)
{
    return d ? (DWORD)deadline_milliseconds_left(d) : INFINITE;
}

static int timed_out(const deadline *d)
{
    return d && deadline_milliseconds_left(d) == 0;
}

/* Finishes the operation under way if it is done (or waits up to
   `milliseconds` for it): 1 done (*moved bytes; 0 with c->closed on an
   error), 0 still under way. */
static int operation_done(channel *c, DWORD milliseconds, size_t *moved)
{
    DWORD n = 0;
    *moved = 0;
    if (!c->pending)
        return 1;
    if (milliseconds && WaitForSingleObject(c->io.hEvent, milliseconds) != WAIT_OBJECT_0)
        return 0;
    if (!GetOverlappedResult(c->pipe, &c->io, &n, FALSE)) {
        if (GetLastError() == ERROR_IO_INCOMPLETE)
            return 0;
        c->pending = 0;
        c->closed = 1; /* ERROR_BROKEN_PIPE: the child's end is closed */
        return 1;
    }
    c->pending = 0;
    *moved = (size_t)n;
    return 1;
}

/* Reads: takes a finished read's bytes in (waiting up to `milliseconds`). */
static void read_collect(channel *c, DWORD milliseconds)
{
    size_t moved;
    if (c->pending && operation_done(c, milliseconds, &moved)) {
        c->offset = 0;
        c->held = moved;
    }
}

/* Reads: starts a read into the buffer unless one is under way, bytes are
   held, or the end came; a read done at once is taken in.  (Its count comes
   from GetOverlappedResult either way: ReadFile's own is not to be trusted
   on an overlapped handle.) */
static void read_start(channel *c)
{
    if (c->pending || c->closed || c->offset < c->held)
        return;
    c->offset = c->held = 0;
    if (ReadFile(c->pipe, c->buffer, (DWORD)sizeof c->buffer, NULL, &c->io) ||
        GetLastError() == ERROR_IO_PENDING)
        c->pending = 1;
    else
        c->closed = 1; /* ERROR_BROKEN_PIPE: the child's end is closed */
    read_collect(c, 0);
}

static size_t read_take(channel *c, void *data, size_t capacity)
{
    size_t n = c->held - c->offset;
    if (n > capacity)
        n = capacity;
    memcpy(data, c->buffer + c->offset, n);
    c->offset += n;
    return n;
}

/* Writes: counts a finished write in *written (waiting up to
   `milliseconds`). */
static void write_collect(channel *c, DWORD milliseconds, size_t *written)
{
    size_t moved;
    if (c->pending && operation_done(c, milliseconds, &moved))
        *written += moved;
}

/* Writes: starts writing (a copy of) data[*written, length) unless a write
   is under way; one done at once counts in *written. */
static void write_start(channel *c, const void *data, size_t length, size_t *written)
{
    if (c->pending || c->closed || *written >= length)
        return;
    c->held = length - *written < sizeof c->buffer ? length - *written : sizeof c->buffer;
    memcpy(c->buffer, (const char *)data + *written, c->held);
    if (WriteFile(c->pipe, c->buffer, (DWORD)c->held, NULL, &c->io) ||
        GetLastError() == ERROR_IO_PENDING)
        c->pending = 1;
    else
        c->closed = 1; /* ERROR_NO_DATA, ERROR_BROKEN_PIPE: the reader is gone */
    write_collect(c, 0, written);
}

channel_result channel_write(channel *c, const void *data, size_t size, const deadline *d)
{
    size_t written = 0;
    if (c->pending) /* a write a transfer left under way: its bytes are the caller's past */
        write_collect(c, wait_milliseconds(d), &written);
    written = 0;
    for (;;) {
        write_start(c, data, size, &written);
        if (c->pending)
            write_collect(c, wait_milliseconds(d), &written);
        if (written >= size && !c->pending)
            return CHANNEL_DONE;
        if (c->closed)
            return CHANNEL_CLOSED;
        if (c->pending && timed_out(d))
            return CHANNEL_TIMED_OUT;
    }
}

channel_result channel_read(channel *c, void *data, size_t size, const deadline *d)
{
    char *p = data;
    while (size) {
        size_t n;
        read_start(c);
        read_collect(c, wait_milliseconds(d));
        n = read_take(c, p, size);
        p += n, size -= n;
        if (!size)
            break;
        if (c->closed)
            return CHANNEL_CLOSED;
        if (c->pending && timed_out(d))
            return CHANNEL_TIMED_OUT;
    }
    return CHANNEL_DONE;
}

channel_result channel_read_now(channel *c, void *data, size_t capacity, size_t *got)
{
    *got = 0;
    read_collect(c, 0);
    read_start(c); /* may finish at once */
    *got = read_take(c, data, capacity);
    if (*got)
        return CHANNEL_DONE;
    return c->closed ? CHANNEL_CLOSED : CHANNEL_NOTHING;
}

int channel_wait_readable(channel *const *channels, size_t count, const deadline *d)
{
    HANDLE events[MAXIMUM_WAIT_OBJECTS];
    int index_of[MAXIMUM_WAIT_OBJECTS];
    for (;;) {
        DWORD n = 0, woke;
        size_t i;
        for (i = 0; i < count && i < MAXIMUM_WAIT_OBJECTS; ++i) {
            channel *c = channels[i];
            if (!c)
                continue;
            read_collect(c, 0);
            read_start(c);
            if (c->offset < c->held || c->closed)
                return (int)i;
            if (c->pending) {
                events[n] = c->io.hEvent;
                index_of[n++] = (int)i;
            }
        }
        if (n == 0 || timed_out(d))
            return -1;
        woke = WaitForMultipleObjects(n, events, FALSE, wait_milliseconds(d));
        if (woke >= WAIT_OBJECT_0 + n)
            return -1; /* the time is up, or the wait failed */
        read_collect(channels[index_of[woke - WAIT_OBJECT_0]], 0);
    }
}

transfer_end channel_transfer(channel *out, const void *data, size_t length, size_t *written,
                              channel *in, void *space, size_t room, size_t *received,
                              const deadline *d)
{
    *received = 0;
    for (;;) {
        HANDLE events[2];
        DWORD n = 0;
        write_collect(out, 0, written);
        write_start(out, data, length, written);
        if (out->closed && *written < length)
            return TRANSFER_OUTPUT_CLOSED;
        read_collect(in, 0);
        read_start(in);
        if ((*received = read_take(in, space, room)) > 0) {
            write_collect(out, 0, written); /* what it read before replying */
            return TRANSFER_RECEIVED;
        }
        if (in->closed)
            return TRANSFER_INPUT_CLOSED;
        if (timed_out(d))
            return TRANSFER_TIMED_OUT;
        if (in->pending)
            events[n++] = in->io.hEvent;
        if (out->pending)
            events[n++] = out->io.hEvent;
        if (n && WaitForMultipleObjects(n, events, FALSE, wait_milliseconds(d)) == WAIT_TIMEOUT)
            return TRANSFER_TIMED_OUT;
    }
}

void channel_close(channel *c)
{
    DWORD n;
    if (!c)
        return;
    if (c->pending) { /* the buffer and io must outlive the operation */
        CancelIoEx(c->pipe, &c->io);
        GetOverlappedResult(c->pipe, &c->io, &n, TRUE);
    }
    CloseHandle(c->pipe);
    CloseHandle(c->io.hEvent);
    free(c);
}

/* A pipe between dmlref (an overlapped channel) and a child (an ordinary
   handle, not inheritable yet): 1, or 0 with nothing open. */
static int make_pipe(int child_reads, channel **dmlref_end, HANDLE *child_end)
{
    static unsigned long made;
    wchar_t name[96];
    channel *c = calloc(1, sizeof *c);
    *dmlref_end = NULL, *child_end = INVALID_HANDLE_VALUE;
    if (!c)
        return 0;
    _snwprintf(name, sizeof name / sizeof *name, L"\\\\.\\pipe\\dmlref-%lu-%lu-%llu",
               (unsigned long)GetCurrentProcessId(), ++made, (unsigned long long)GetTickCount64());
    name[sizeof name / sizeof *name - 1] = L'\0';
    c->io.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
    c->pipe = c->io.hEvent
                  ? CreateNamedPipeW(name,
                                     (child_reads ? PIPE_ACCESS_OUTBOUND : PIPE_ACCESS_INBOUND) |
                                         FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
                                     PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT |
                                         PIPE_REJECT_REMOTE_CLIENTS,
                                     1, PIPE_BUFFER_BYTES, PIPE_BUFFER_BYTES, 0, NULL)
                  : INVALID_HANDLE_VALUE;
    if (c->pipe != INVALID_HANDLE_VALUE)
        *child_end = CreateFileW(name, child_reads ? GENERIC_READ : GENERIC_WRITE, 0, NULL,
                                 OPEN_EXISTING, 0, NULL);
    if (*child_end == INVALID_HANDLE_VALUE) {
        if (c->pipe != INVALID_HANDLE_VALUE)
            CloseHandle(c->pipe);
        if (c->io.hEvent)
            CloseHandle(c->io.hEvent);
        free(c);
        return 0;
    }
    /* the client is in: ConnectNamedPipe says ERROR_PIPE_CONNECTED at once */
    if (!ConnectNamedPipe(c->pipe, &c->io) && GetLastError() == ERROR_IO_PENDING) {
        DWORD n;
        GetOverlappedResult(c->pipe, &c->io, &n, TRUE);
    }
    *dmlref_end = c;
    return 1;
}

/* ---- children ---------------------------------------------------------------------- */

struct child {
    HANDLE process, job; /* job: NULL when the system refused one */
    int exited;
    DWORD code;
};

/* What a child gets: its standard handles and the others it inherits. */
typedef struct inheritance {
    HANDLE standard[3];
    HANDLE extra[4];
    size_t extra_count;
} inheritance;

/* Starts `application` with `command_line` (modified in place by the
   system) in a job of its own; NULL when it cannot. */
static child *start(const wchar_t *application, wchar_t *command_line, const inheritance *given)
{
    HANDLE list[7];
    size_t n = 0, i, k;
    STARTUPINFOEXW startup;
    PROCESS_INFORMATION info;
    SIZE_T attributes_size = 0;
    LPPROC_THREAD_ATTRIBUTE_LIST attributes = NULL;
    DWORD flags = CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP | CREATE_UNICODE_ENVIRONMENT;
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
    child *c = calloc(1, sizeof *c);
    UINT old_mode;
    BOOL started;

    if (!c)
        return NULL;
    for (i = 0; i < 3 + given->extra_count; ++i) { /* each once: the list takes no duplicate */
        HANDLE h = i < 3 ? given->standard[i] : given->extra[i - 3];
        for (k = 0; k < n && list[k] != h; ++k)
            ;
        if (k == n && h && h != INVALID_HANDLE_VALUE)
            list[n++] = h;
    }
    memset(&startup, 0, sizeof startup);
    startup.StartupInfo.cb = sizeof startup.StartupInfo;
    startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    startup.StartupInfo.hStdInput = given->standard[0];
    startup.StartupInfo.hStdOutput = given->standard[1];
    startup.StartupInfo.hStdError = given->standard[2];
    InitializeProcThreadAttributeList(NULL, 1, 0, &attributes_size);
    if (attributes_size && (attributes = malloc(attributes_size)) != NULL &&
        InitializeProcThreadAttributeList(attributes, 1, 0, &attributes_size) &&
        UpdateProcThreadAttribute(attributes, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list,
                                  n * sizeof *list, NULL, NULL)) {
        startup.StartupInfo.cb = sizeof startup;
        startup.lpAttributeList = attributes;
        flags |= EXTENDED_STARTUPINFO_PRESENT;
    }
    for (i = 0; i < n; ++i)
        make_inheritable(list[i], 1);
    old_mode = SetErrorMode(QUIET_ERROR_MODE); /* the child inherits it */
    started = CreateProcessW(application, command_line, NULL, NULL, TRUE, flags, NULL, NULL,
                             &startup.StartupInfo, &info);
    if (!started && (flags & EXTENDED_STARTUPINFO_PRESENT)) { /* no handle list here */
        startup.StartupInfo.cb = sizeof startup.StartupInfo;
        started = CreateProcessW(application, command_line, NULL, NULL, TRUE,
                                 flags & ~(DWORD)EXTENDED_STARTUPINFO_PRESENT, NULL, NULL,
                                 &startup.StartupInfo, &info);
    }
    SetErrorMode(old_mode);
    for (i = 0; i < n; ++i)
        make_inheritable(list[i], 0);
    if (attributes) {
        if (flags & EXTENDED_STARTUPINFO_PRESENT)
            DeleteProcThreadAttributeList(attributes);
        free(attributes);
    }
    if (!started) {
        free(c);
        return NULL;
    }
    c->process = info.hProcess;
    c->job = CreateJobObjectW(NULL, NULL);
    memset(&limits, 0, sizeof limits);
    limits.BasicLimitInformation.LimitFlags =
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
    if (c->job && (!SetInformationJobObject(c->job, JobObjectExtendedLimitInformation, &limits,
                                            sizeof limits) ||
                   !AssignProcessToJobObject(c->job, info.hProcess))) {
        CloseHandle(c->job); /* stopped alone, then */
        c->job = NULL;
    }
    ResumeThread(info.hThread);
    CloseHandle(info.hThread);
    return c;
}

/* dmlref's standard error, for a child to inherit (a duplicate: the
   standard handle itself may not be inheritable), or NULL. */
static HANDLE duplicate_standard_error(void)
{
    HANDLE own = GetStdHandle(STD_ERROR_HANDLE), copy = NULL;
    if (own && own != INVALID_HANDLE_VALUE &&
        !DuplicateHandle(GetCurrentProcess(), own, GetCurrentProcess(), &copy, 0, FALSE,
                         DUPLICATE_SAME_ACCESS))
        copy = NULL;
    return copy;
}

static void close_handle(HANDLE h)
{
    if (h && h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
}

/* The pipes of a child: on success 1, with the child's ends in
   given->standard[0] (it reads) and [1] (it writes). */
static int make_pipes(channel **to_child, channel **from_child, HANDLE *child_reads,
                      HANDLE *child_writes)
{
    if (!make_pipe(1, to_child, child_reads))
        return 0;
    if (!make_pipe(0, from_child, child_writes)) {
        channel_close(*to_child);
        CloseHandle(*child_reads);
        *to_child = NULL;
        return 0;
    }
    return 1;
}

child *child_start_command(const char *command, capture *errors, channel **to_child,
                           channel **from_child)
{
    wchar_t shell[MAX_PATH + 1], *wide = widen(command), *line = NULL;
    HANDLE child_reads = INVALID_HANDLE_VALUE, child_writes = INVALID_HANDLE_VALUE,
           own_error = NULL;
    inheritance given;
    child *c = NULL;
    DWORD n = GetEnvironmentVariableW(L"ComSpec", shell, MAX_PATH + 1);
    *to_child = *from_child = NULL;
    if (n == 0 || n > MAX_PATH) {
        UINT m = GetSystemDirectoryW(shell, MAX_PATH + 1 - 8);
        if (m == 0 || m > MAX_PATH - 8)
            wcscpy(shell, L"cmd.exe");
        else
            wcscat(shell, L"\\cmd.exe");
    }
    if (wide && (line = malloc((wcslen(wide) + 32) * sizeof *line)) != NULL &&
        make_pipes(to_child, from_child, &child_reads, &child_writes)) {
        /* /d: no AutoRun commands; /s /c "...": the text between the first
           and the last quote runs as typed */
        swprintf(line, wcslen(wide) + 32, L"cmd.exe /d /s /c \"%ls\"", wide);
        memset(&given, 0, sizeof given);
        given.standard[0] = child_reads;
        given.standard[1] = child_writes;
        given.standard[2] = errors ? errors->append : (own_error = duplicate_standard_error());
        c = start(shell, line, &given);
        close_handle(child_reads);
        close_handle(child_writes);
        close_handle(own_error);
        if (!c) {
            channel_close(*to_child);
            channel_close(*from_child);
            *to_child = *from_child = NULL;
        }
    }
    free(line);
    free(wide);
    return c;
}

/* ---- workers ------------------------------------------------------------------------ */

struct worker_link {
    HANDLE from_parent, to_parent;
    unsigned char *memory;
    size_t memory_size;
};

int worker_link_read(worker_link *l, void *data, size_t size)
{
    char *p = data;
    while (size) {
        DWORD n = 0, ask = size > 0x40000000u ? 0x40000000u : (DWORD)size;
        if (!ReadFile(l->from_parent, p, ask, &n, NULL) || n == 0)
            return 0;
        p += n, size -= n;
    }
    return 1;
}

int worker_link_write(worker_link *l, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        DWORD n = 0, ask = size > 0x40000000u ? 0x40000000u : (DWORD)size;
        if (!WriteFile(l->to_parent, p, ask, &n, NULL) || n == 0)
            return 0;
        p += n, size -= n;
    }
    return 1;
}

unsigned char *worker_link_memory(worker_link *l, size_t *size)
{
    *size = l->memory_size;
    return l->memory;
}

/* Appends `text` to the wide string at *line (of *capacity), growing it;
   0 when memory runs out. */
static int append_wide(wchar_t **line, size_t *length, size_t *capacity, const wchar_t *text)
{
    size_t n = wcslen(text);
    if (*length + n + 1 > *capacity) {
        size_t grown = (*length + n + 1) * 2;
        wchar_t *bigger = realloc(*line, grown * sizeof *bigger);
        if (!bigger)
            return 0;
        *line = bigger, *capacity = grown;
    }
    memcpy(*line + *length, text, (n + 1) * sizeof *text);
    *length += n;
    return 1;
}

/* The same for ASCII text. */
static int append_text(wchar_t **line, size_t *length, size_t *capacity, const char *text)
{
    wchar_t wide[256];
    size_t i;
    for (i = 0; text[i] && i < 255; ++i)
        wide[i] = (wchar_t)(unsigned char)text[i];
    wide[i] = L'\0';
    return append_wide(line, length, capacity, wide) &&
           (!text[i] || append_text(line, length, capacity, text + i));
}

static int append_hex(wchar_t **line, size_t *length, size_t *capacity, const char *bytes)
{
    static const char digits[] = "0123456789abcdef";
    char pair[3];
    const unsigned char *p = (const unsigned char *)bytes;
    if (!append_text(line, length, capacity, " x")) /* "x": never empty */
        return 0;
    for (pair[2] = '\0'; *p; ++p) {
        pair[0] = digits[*p >> 4], pair[1] = digits[*p & 15];
        if (!append_text(line, length, capacity, pair))
            return 0;
    }
    return 1;
}

child *child_start_worker(const worker_kind *kind, int argc, const char *const *argv,
                          shared_memory *share, capture *output, int stop, channel **to_worker,
                          channel **from_worker)
{
    wchar_t executable[32768], *line = NULL;
    size_t length = 0, capacity = 0;
    HANDLE child_reads = INVALID_HANDLE_VALUE, child_writes = INVALID_HANDLE_VALUE,
           own_error = NULL, nothing, section = share ? shared_memory_inheritable(share) : NULL;
    SECURITY_ATTRIBUTES plain;
    char handles[160];
    inheritance given;
    child *c = NULL;
    DWORD n = GetModuleFileNameW(NULL, executable, 32768);
    int i, ok;
    (void)stop; /* jobs nest: a worker's own children end with it */
    *to_worker = *from_worker = NULL;
    if (n == 0 || n >= 32768)
        return NULL;
    plain.nLength = sizeof plain, plain.lpSecurityDescriptor = NULL, plain.bInheritHandle = FALSE;
    nothing = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &plain,
                          OPEN_EXISTING, 0, NULL);
    if (!make_pipes(to_worker, from_worker, &child_reads, &child_writes)) {
        close_handle(nothing);
        return NULL;
    }
    snprintf(handles, sizeof handles, "r=%llx,w=%llx,m=%llx:%llx:%llx",
             (unsigned long long)(uintptr_t)child_reads,
             (unsigned long long)(uintptr_t)child_writes, (unsigned long long)(uintptr_t)section,
             (unsigned long long)(share ? shared_memory_size(share) : 0),
             (unsigned long long)(uintptr_t)(share ? shared_memory_bytes(share) : NULL));
    ok = append_text(&line, &length, &capacity, "\"") && /* a path holds no quote */
         append_wide(&line, &length, &capacity, executable);
    ok = ok && append_text(&line, &length, &capacity, "\" " WORKER_ARGUMENT " ") &&
         append_text(&line, &length, &capacity, kind->name) &&
         append_text(&line, &length, &capacity, " ") &&
         append_text(&line, &length, &capacity, handles);
    for (i = 0; ok && i < argc; ++i)
        ok = append_hex(&line, &length, &capacity, argv[i]);
    if (ok) {
        memset(&given, 0, sizeof given);
        given.standard[0] = nothing;
        given.standard[1] = given.standard[2] =
            output ? output->append : (own_error = duplicate_standard_error());
        given.extra[given.extra_count++] = child_reads;
        given.extra[given.extra_count++] = child_writes;
        if (section)
            given.extra[given.extra_count++] = section;
        c = start(executable, line, &given);
    }
    close_handle(child_reads);
    close_handle(child_writes);
    close_handle(own_error);
    close_handle(nothing);
    free(line);
    if (!c) {
        channel_close(*to_worker);
        channel_close(*from_worker);
        *to_worker = *from_worker = NULL;
    }
    return c;
}

/* In a worker: a crash ends the process with its exception code, no
   debugger, no dialog. */
static LONG WINAPI end_with_exception_code(EXCEPTION_POINTERS *e)
{
    TerminateProcess(GetCurrentProcess(), e->ExceptionRecord->ExceptionCode);
    return EXCEPTION_EXECUTE_HANDLER;
}

static void end_as_aborted(int signal_number)
{
    (void)signal_number;
    TerminateProcess(GetCurrentProcess(), ABORT_EXIT_CODE);
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* An argument from its hexadecimal ("x" and two digits a byte), in place. */
static int unhex(char *text)
{
    char *from = text + 1, *to = text;
    if (*text != 'x')
        return 0;
    for (; from[0] && from[1]; from += 2) {
        int high = hex_value(from[0]), low = hex_value(from[1]);
        if (high < 0 || low < 0)
            return 0;
        *to++ = (char)(high * 16 + low);
    }
    *to = '\0';
    return !from[0];
}

int worker_run(int argc, char **argv, const worker_kind *kinds, size_t count)
{
    unsigned long long from, to, section, size, address;
    worker_link link;
    size_t i;
    int k;
    if (argc < 4 || sscanf(argv[3], "r=%llx,w=%llx,m=%llx:%llx:%llx", &from, &to, &section, &size,
                           &address) != 5) {
        fprintf(stderr, "dmlref: %s: only dmlref starts its workers\n", WORKER_ARGUMENT);
        return 3;
    }
    for (i = 0; i < count && strcmp(kinds[i].name, argv[2]) != 0; ++i)
        ;
    for (k = 4; k < argc; ++k)
        if (!unhex(argv[k]))
            i = count;
    if (i == count) {
        fprintf(stderr, "dmlref: %s: not a worker's command line\n", WORKER_ARGUMENT);
        return 3;
    }
    SetErrorMode(QUIET_ERROR_MODE);
    SetUnhandledExceptionFilter(end_with_exception_code);
    signal(SIGABRT, end_as_aborted);
    link.from_parent = (HANDLE)(uintptr_t)from;
    link.to_parent = (HANDLE)(uintptr_t)to;
    /* inherited as inheritable: not for what the worker starts (a --jobs job's backend) */
    make_inheritable(link.from_parent, 0);
    make_inheritable(link.to_parent, 0);
    make_inheritable((HANDLE)(uintptr_t)section,
                     0); /* what it starts gets no view of the buffers */
    link.memory = NULL, link.memory_size = 0;
    if (section && size) {
        /* at dmlref's address if it is free here too, else anywhere */
        void *view = MapViewOfFileEx((HANDLE)(uintptr_t)section, FILE_MAP_READ | FILE_MAP_WRITE, 0,
                                     0, (SIZE_T)size, (void *)(uintptr_t)address);
        if (!view)
            view = MapViewOfFile((HANDLE)(uintptr_t)section, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0,
                                 (SIZE_T)size);
        if (!view)
            return 70;
        link.memory = view, link.memory_size = (size_t)size;
    }
    process_exit_now(kinds[i].function(&link, argc - 4, argv + 4));
    return 0;
}

int child_wait(child *c, double seconds)
{
    DWORD milliseconds = seconds <= 0      ? 0
                         : seconds > 86400 ? 86400000u
                                           : (DWORD)(seconds * 1000) + 1;
    if (c->exited)
        return 1;
    if (WaitForSingleObject(c->process, milliseconds) != WAIT_OBJECT_0)
        return 0;
    if (!GetExitCodeProcess(c->process, &c->code))
        c->code = 0;
    c->exited = 1;
    return 1;
}

/* The names of the exception codes a crash most often ends with. */
static const char *exception_name(DWORD code)
{
    switch (code) {
    case 0xC0000005u:
        return "access violation";
    case 0xC0000006u:
        return "in-page error";
    case 0xC000001Du:
        return "illegal instruction";
    case 0xC0000025u:
        return "noncontinuable exception";
    case 0xC000008Cu:
        return "array bounds exceeded";
    case 0xC000008Du:
    case 0xC000008Eu:
    case 0xC000008Fu:
    case 0xC0000090u:
    case 0xC0000091u:
    case 0xC0000092u:
    case 0xC0000093u:
        return "floating-point exception";
    case 0xC0000094u:
        return "integer division by zero";
    case 0xC0000095u:
        return "integer overflow";
    case 0xC0000096u:
        return "privileged instruction";
    case 0xC00000FDu:
        return "stack overflow";
    case 0xC0000374u:
        return "heap corruption";
    case 0xC0000409u:
        return "fail fast, abort()";
    case 0xC000013Au:
        return "interrupted, Ctrl+C";
    default:
        return "unhandled exception";
    }
}

void child_exit_of(const child *c, child_exit *e)
{
    memset(e, 0, sizeof *e);
    e->code = (unsigned long)c->code;
    if (c->code >= 0xC0000000u) { /* an NTSTATUS of severity error: a crash */
        e->crashed = 1;
        snprintf(e->what, sizeof e->what, "exception 0x%08lX, %s", (unsigned long)c->code,
                 exception_name(c->code));
    } else {
        snprintf(e->what, sizeof e->what, "status %lu", (unsigned long)c->code);
    }
}

int child_private_memory(const child *c, unsigned long long *bytes)
{
    PROCESS_MEMORY_COUNTERS_EX counters;
    memset(&counters, 0, sizeof counters);
    counters.cb = sizeof counters;
    if (c->exited ||
        !K32GetProcessMemoryInfo(c->process, (PROCESS_MEMORY_COUNTERS *)&counters, sizeof counters))
        return 0;
    /* the larger: wine reports no private commit (its PrivateUsage is the
       swap used) */
    *bytes = (unsigned long long)(counters.PrivateUsage > counters.WorkingSetSize
                                      ? counters.PrivateUsage
                                      : counters.WorkingSetSize);
    return 1;
}

void child_stop(child *c)
{
    if (!c)
        return;
    if (c->job)
        TerminateJobObject(c->job, 1); /* what it started, too */
    else if (!c->exited)
        TerminateProcess(c->process, 1);
    WaitForSingleObject(c->process, 10000);
    if (c->job)
        CloseHandle(c->job);
    CloseHandle(c->process);
    free(c);
}
