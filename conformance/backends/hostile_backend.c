/*
 * hostile_backend.c - a `dmlref check` plug-in that computes with dmlref's
 * reference library and misbehaves toward the harness in the one way
 * --backend-options names (tests/cli/test_check.sh):
 *
 *   print               prints "9999 passed, 0 failed" on stdout and stderr in
 *                       every execute(); its answers are right
 *   chdir-accept-all    changes the working folder, accepts every description
 *                       and executes without validating (a must-refuse case
 *                       is answered with whatever the kernels leave)
 *   close-fds           in execute(), closes every descriptor above 2 and
 *                       sleeps forever
 *   write-past=N        right outputs, then one byte N bytes past the end of
 *                       the last output
 *   write-before=N      right outputs, then one byte N bytes before it
 *   late-write=MS       right outputs; a thread writes into the output MS
 *                       milliseconds after execute() returned
 *   fork-orphan         create() forks a process (sleep 1237) that lives on
 *   wrong-op=NAME       flips a bit of the first output of every case of the
 *                       operator NAME (e.g. GATHER_ELEMENTS)
 *   crash-op=NAME       crashes (abort) on every case of the operator NAME
 *   only-op=NAME        close-fds, write-past, write-before, late-write and
 *                       unguard-before only in cases of the operator NAME
 *   fail-create         create() fails, saying "hostile backend: create()
 *                       fails on purpose"
 *   sleep=MS            sleeps MS milliseconds in every execute() first
 *   setsid-orphan=PATH  create() starts a process in a session of its own
 *                       that waits 3 s, writes PATH, then sleeps 1238 s
 *   fork-writer         the first execute() forks a process that rewrites
 *                       the first output for 3 s, then ends
 *   unguard-before=N    right outputs, then lifts the protection of the page
 *                       N bytes before the last output (mprotect,
 *                       VirtualProtect) and writes a byte there
 *   leak=MB:MOST        leaks MB MiB (touched) in every execute(); aborts
 *                       once more than MOST MiB leaked in its process (a
 *                       machine whose memory ran out)
 *
 * Options combine with commas: "wrong-op=GATHER_ELEMENTS,crash-op=GATHER_ND1".
 *
 * What it does when it is loaded (a constructor; DllMain on Windows) is
 * chosen by the environment variable DMLREF_HOSTILE_LOAD: "crash" (abort),
 * "hang" (sleeps 1000 s), "exit0" (exit(0)), "print" (prints "9999 passed,
 * 0 failed" on stdout and stderr); anything else, or nothing, does nothing.
 *
 * On Windows (a DLL) each does the same to its worker with the system's
 * means: close-fds closes the worker's handles (its pipes among them),
 * fork-orphan starts "cmd /d /c ping -n 1238 127.0.0.1" (a process that
 * lives about 1237 s), late-write writes from a thread of CreateThread;
 * setsid-orphan is fork-orphan (a Job object has no way out) and
 * fork-writer does nothing (a process started shares no memory).
 */
#define _DEFAULT_SOURCE /* usleep */
#include "dmlref/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

DMLREF_BACKEND_EXPORT const dmlref_backend_v1 *dmlref_backend_entry(uint32_t abi_version);

/* ---- what misbehaving takes, on each system ---- */

#ifdef _WIN32
static void sleep_milliseconds(long milliseconds)
{
    Sleep((DWORD)milliseconds);
}

static int change_to_root_folder(void)
{
    return SetCurrentDirectoryA("\\") ? 0 : -1;
}

/* Closes every handle of the process it can (the worker's pipes too). */
static void close_descriptors(void)
{
    uintptr_t h;
    for (h = 4; h < 65536; h += 4)
        if (h != (uintptr_t)GetStdHandle(STD_OUTPUT_HANDLE) &&
            h != (uintptr_t)GetStdHandle(STD_ERROR_HANDLE))
            CloseHandle((HANDLE)h);
}

static void start_orphan(void)
{
    wchar_t line[] = L"cmd.exe /d /c ping -n 1238 127.0.0.1 >NUL";
    STARTUPINFOW startup;
    PROCESS_INFORMATION info;
    memset(&startup, 0, sizeof startup);
    startup.cb = sizeof startup;
    if (CreateProcessW(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &startup, &info)) {
        CloseHandle(info.hThread);
        CloseHandle(info.hProcess);
    }
}

static void start_session_orphan(const char *marker)
{
    (void)marker;
    start_orphan();
}

static void start_forked_writer(unsigned char *target, size_t size)
{
    (void)target, (void)size;
}

static int make_writable(void *page)
{
    DWORD old;
    return VirtualProtect(page, 1, PAGE_READWRITE, &old) ? 0 : -1;
}

typedef DWORD thread_result;
#define THREAD_CALL WINAPI
#else
static void sleep_milliseconds(long milliseconds)
{
    usleep((useconds_t)(milliseconds * 1000));
}

static int change_to_root_folder(void)
{
    return chdir("/");
}

static void close_descriptors(void)
{
    int fd;
    for (fd = 3; fd < 1024; ++fd)
        close(fd);
}

static void start_orphan(void)
{
    if (fork() == 0) {
        execl("/bin/sleep", "sleep", "1237", (char *)NULL);
        _exit(127);
    }
}

/* A process of a session of its own, which a process group kill misses. */
static void start_session_orphan(const char *marker)
{
    if (fork() == 0) {
        int fd;
        setsid();
        if (fork() != 0) /* its parent ends: the orphan is adopted */
            _exit(0);
        sleep(3);
        if ((fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0)
            close(fd);
        execl("/bin/sleep", "sleep", "1238", (char *)NULL);
        _exit(127);
    }
}

/* A fork that goes on writing into the buffers after its parent's case. */
static void start_forked_writer(unsigned char *target, size_t size)
{
    if (fork() == 0) {
        int i;
        for (i = 0; i < 3000; ++i) {
            memset(target, 0xA5, size);
            usleep(1000);
        }
        _exit(0);
    }
}

static int make_writable(void *page)
{
    long size = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)page / (uintptr_t)size * (uintptr_t)size;
    return mprotect((void *)start, (size_t)size, PROT_READ | PROT_WRITE);
}

typedef void *thread_result;
#define THREAD_CALL
#endif

/* ---- what it does when it is loaded ---- */

static void misbehave_when_loaded(void)
{
    const char *how = getenv("DMLREF_HOSTILE_LOAD");
    if (!how)
        return;
    if (strcmp(how, "crash") == 0)
        abort();
    if (strcmp(how, "hang") == 0)
        sleep_milliseconds(1000000);
    if (strcmp(how, "exit0") == 0)
        exit(0);
    if (strcmp(how, "print") == 0) {
        printf("9999 passed, 0 failed\n");
        fprintf(stderr, "9999 passed, 0 failed\n");
        fflush(stdout);
    }
}

#ifdef _WIN32
BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved);
BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    (void)instance, (void)reserved;
    if (reason == DLL_PROCESS_ATTACH)
        misbehave_when_loaded();
    return TRUE;
}
#else
__attribute__((constructor)) static void when_loaded(void)
{
    misbehave_when_loaded();
}
#endif

typedef struct hostility {
    int print, chdir_accept_all, close_fds, fork_orphan, fail_create, fork_writer;
    long write_past, write_before, late_write_ms, unguard_before; /* -1: not asked */
    long sleep_ms, leak_mb, leak_most_mb;
    char wrong_op[64], crash_op[64], only_op[64], session_marker[256];
} hostility;

static hostility the_hostility;

static void put_message(char *message, size_t capacity, const char *text)
{
    if (message && capacity > 0)
        snprintf(message, capacity, "%s", text);
}

static int parse_options(const char *options, hostility *h)
{
    char copy[512], *word, *next;
    memset(h, 0, sizeof *h);
    h->write_past = h->write_before = h->late_write_ms = h->unguard_before = -1;
    if (!options)
        return 1;
    snprintf(copy, sizeof copy, "%s", options);
    for (word = copy; word; word = next) {
        if ((next = strchr(word, ',')) != NULL)
            *next++ = '\0';
        if (strcmp(word, "print") == 0)
            h->print = 1;
        else if (strcmp(word, "chdir-accept-all") == 0)
            h->chdir_accept_all = 1;
        else if (strcmp(word, "close-fds") == 0)
            h->close_fds = 1;
        else if (strcmp(word, "fork-orphan") == 0)
            h->fork_orphan = 1;
        else if (strncmp(word, "write-past=", 11) == 0)
            h->write_past = atol(word + 11);
        else if (strncmp(word, "write-before=", 13) == 0)
            h->write_before = atol(word + 13);
        else if (strncmp(word, "late-write=", 11) == 0)
            h->late_write_ms = atol(word + 11);
        else if (strncmp(word, "wrong-op=", 9) == 0)
            snprintf(h->wrong_op, sizeof h->wrong_op, "%s", word + 9);
        else if (strncmp(word, "crash-op=", 9) == 0)
            snprintf(h->crash_op, sizeof h->crash_op, "%s", word + 9);
        else if (strncmp(word, "only-op=", 8) == 0)
            snprintf(h->only_op, sizeof h->only_op, "%s", word + 8);
        else if (strcmp(word, "fail-create") == 0)
            h->fail_create = 1;
        else if (strncmp(word, "sleep=", 6) == 0)
            h->sleep_ms = atol(word + 6);
        else if (strncmp(word, "setsid-orphan=", 14) == 0)
            snprintf(h->session_marker, sizeof h->session_marker, "%s", word + 14);
        else if (strcmp(word, "fork-writer") == 0)
            h->fork_writer = 1;
        else if (strncmp(word, "unguard-before=", 15) == 0)
            h->unguard_before = atol(word + 15);
        else if (strncmp(word, "leak=", 5) == 0 && strchr(word, ':'))
            h->leak_mb = atol(word + 5), h->leak_most_mb = atol(strchr(word, ':') + 1);
        else
            return 0;
    }
    return 1;
}

static dmlref_status hostile_create(const char *options, void **context, char *message,
                                    size_t message_capacity)
{
    if (!parse_options(options, &the_hostility)) {
        put_message(message, message_capacity, "hostile backend: unknown option");
        return DMLREF_ERROR_INVALID_ARGUMENT;
    }
    if (the_hostility.chdir_accept_all && change_to_root_folder() != 0)
        return DMLREF_ERROR_INVALID_ARGUMENT;
    if (the_hostility.fail_create) {
        put_message(message, message_capacity, "hostile backend: create() fails on purpose");
        return DMLREF_ERROR_INVALID_ARGUMENT;
    }
    if (the_hostility.fork_orphan)
        start_orphan();
    if (the_hostility.session_marker[0])
        start_session_orphan(the_hostility.session_marker);
    *context = &the_hostility;
    return DMLREF_OK;
}

static dmlref_status hostile_supports(void *context, const dmlref_operator_desc *op,
                                      dmlref_feature_level feature_level)
{
    const hostility *h = context;
    if (h->chdir_accept_all)
        return DMLREF_OK;
    return dmlref_validate(op, feature_level, NULL);
}

typedef struct late_write {
    unsigned char *target;
    long milliseconds;
} late_write;

static thread_result THREAD_CALL write_later(void *argument)
{
    late_write *w = argument;
    sleep_milliseconds(w->milliseconds);
    *w->target ^= 0xFF;
    return 0;
}

static dmlref_status hostile_execute(void *context, const dmlref_operator_desc *op,
                                     dmlref_feature_level feature_level,
                                     const dmlref_binding *inputs, size_t input_count,
                                     const dmlref_binding *outputs, size_t output_count,
                                     char *message, size_t message_capacity)
{
    const hostility *h = context;
    const dmlref_binding *last = &outputs[output_count - 1];
    dmlref_error err;
    dmlref_status status;
    int here = !h->only_op[0] || strcmp(dmlref_operator_name(op->Type), h->only_op) == 0;

    if (h->print) {
        printf("9999 passed, 0 failed\n");
        fprintf(stderr, "9999 passed, 0 failed\n");
        fflush(stdout);
    }
    if (h->crash_op[0] && strcmp(dmlref_operator_name(op->Type), h->crash_op) == 0)
        abort();
    if (h->sleep_ms > 0)
        sleep_milliseconds(h->sleep_ms);
    if (h->leak_mb > 0) {
        static long leaked_mb;
        static void *volatile kept; /* a chain of what was leaked: none of it can be elided */
        void **lost = malloc((size_t)h->leak_mb << 20);
        if (!lost || (leaked_mb += h->leak_mb) > h->leak_most_mb)
            abort();
        memset(lost, 1, (size_t)h->leak_mb << 20);
        *lost = kept;
        kept = lost;
    }
    if (h->close_fds && here) {
        close_descriptors();
        for (;;)
            sleep_milliseconds(1000000);
    }
    if (h->chdir_accept_all && change_to_root_folder() != 0)
        return DMLREF_ERROR_INVALID_ARGUMENT;
    if (h->chdir_accept_all && dmlref_validate(op, feature_level, NULL) != DMLREF_OK)
        return DMLREF_OK; /* accepted, nothing computed */
    status = dmlref_execute(op, feature_level, inputs, input_count, outputs, output_count, &err);
    if (status != DMLREF_OK) {
        put_message(message, message_capacity, err.message);
        return status;
    }
    if (h->wrong_op[0] && strcmp(dmlref_operator_name(op->Type), h->wrong_op) == 0)
        *(unsigned char *)outputs[0].data ^= 1;
    if (h->write_past >= 0 && here)
        ((volatile unsigned char *)last->data)[last->size_in_bytes + (uint64_t)h->write_past] =
            0x5A;
    if (h->write_before >= 0 && here)
        ((volatile unsigned char *)last->data)[-(long)h->write_before] = 0x5A;
    if (h->unguard_before >= 0 && here) {
        volatile unsigned char *target = (unsigned char *)last->data - h->unguard_before;
        if (make_writable((void *)(uintptr_t)target) == 0)
            *target = 0x5A;
    }
    if (h->fork_writer) {
        static int forked;
        if (!forked++)
            start_forked_writer(outputs[0].data, (size_t)outputs[0].size_in_bytes);
    }
    if (h->late_write_ms >= 0 && here) {
        static late_write w;
        w.target = last->data;
        w.milliseconds = h->late_write_ms;
#ifdef _WIN32
        {
            HANDLE thread = CreateThread(NULL, 0, write_later, &w, 0, NULL);
            if (thread)
                CloseHandle(thread);
        }
#else
        {
            pthread_t thread;
            if (pthread_create(&thread, NULL, write_later, &w) == 0)
                pthread_detach(thread);
        }
#endif
    }
    return DMLREF_OK;
}

static void hostile_destroy(void *context)
{
    (void)context;
}

static const dmlref_backend_v1 hostile_backend = {
    DMLREF_BACKEND_ABI_VERSION,
    sizeof(dmlref_backend_v1),
    "dmlref-hostile",
    "1",
    DMLREF_FEATURE_LEVEL_LATEST,
    hostile_create,
    hostile_supports,
    hostile_execute,
    hostile_destroy,
};

DMLREF_BACKEND_EXPORT const dmlref_backend_v1 *dmlref_backend_entry(uint32_t abi_version)
{
    return abi_version == DMLREF_BACKEND_ABI_VERSION ? &hostile_backend : NULL;
}
