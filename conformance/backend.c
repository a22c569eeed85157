/*
 * backend.c - how dmlref check and dmlref fuzz reach an implementation:
 *   - a plug-in (include/dmlref/backend.h), run in a child process that
 *     serves one case at a time: its buffers lie in memory shared with dmlref,
 *     each between guard bytes, so dmlref sees a write past an output or into
 *     an input; a crash or a hang costs the case at hand, and the child is
 *     started again for the next;
 *   - a process speaking JSON Lines (docs/conformance.md): one case per line
 *     on its stdin, one reply per line on its stdout, a timeout per case, a
 *     restart after a crash, a hang or a malformed reply.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, strsignal */
#include "conformance.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GUARD_BYTES 64
#define GUARD_FILL 0xFDu
#define OUTPUT_FILL 0xCDu /* outputs start as this, so an unwritten element shows */

/* ---- the plug-in worker ----------------------------------------------------
 * The child loads the vector itself (by path) and binds buffers inside the
 * shared arena at offsets the parent chose; the parent lays the buffers out,
 * fills them, and judges what the child leaves there. */

typedef struct request {
    uint32_t level;
    uint32_t tensor_count;
    uint64_t offsets[4];
    char path[4096];
} request;

typedef struct worker_reply {
    int32_t kind;   /* REPLY_* */
    int32_t status;
    char message[512];
} worker_reply;

enum {
    REPLY_RAN = 0,
    REPLY_UNSUPPORTED = 1,
    REPLY_REFUSED = 2,
    REPLY_WORKER_FAILED = 3, /* dmlref's side of the worker failed: not the backend's answer */
    REPLY_CREATE_FAILED = 4  /* the plug-in's create() failed: it cannot run at all */
};

typedef struct worker {
    const dmlref_backend_v1 *table;
    const char *options;
    pid_t pid;
    int to_child, from_child;
    unsigned char *arena;
    size_t arena_size;
} worker;

static int write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n, size -= (size_t)n;
    }
    return 1;
}

/* Milliseconds left of `timeout` seconds since start (-1: no limit); 0 when
   the time is up. */
static int milliseconds_left(const struct timespec *start, double timeout)
{
    struct timespec now;
    double left;
    if (timeout < 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    left = timeout - ((double)(now.tv_sec - start->tv_sec) +
                      1e-9 * (double)(now.tv_nsec - start->tv_nsec));
    return left <= 0 ? 0 : (int)(left * 1000) + 1; /* timeouts are at most a day */
}

/* Reads exactly size bytes, waiting at most `timeout` seconds in all (a
   negative timeout: no limit): 1 done, 0 end of file or error, -1 timed out. */
static int read_all(int fd, void *data, size_t size, double timeout)
{
    char *p = data;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (size) {
        struct pollfd pfd;
        int left = milliseconds_left(&start, timeout);
        ssize_t n;
        if (left == 0)
            return -1;
        pfd.fd = fd, pfd.events = POLLIN, pfd.revents = 0;
        if (poll(&pfd, 1, left) == 0)
            continue;
        n = read(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n, size -= (size_t)n;
    }
    return 1;
}

static void worker_serve(worker *w, int in, int out)
{
    void *context = NULL;
    char message[512] = "";
    request q;
    if (w->table->create(w->options, &context, message, sizeof message) != DMLREF_OK) {
        worker_reply a;
        memset(&a, 0, sizeof a);
        a.kind = REPLY_CREATE_FAILED;
        snprintf(a.message, sizeof a.message, "the plug-in's create() failed: %s", message);
        write_all(out, &a, sizeof a);
        _exit(1);
    }
    while (read_all(in, &q, sizeof q, -1) == 1) {
        worker_reply a;
        dmlref_vector *v = NULL;
        dmlref_error err;
        dmlref_binding inputs[3], outputs[2];
        size_t i, n_in, n_out;
        memset(&a, 0, sizeof a);
        dmlref_vector_read_options read = read_options(0);
        if (dmlref_vector_load(q.path, &read, &v, &err) != DMLREF_OK) {
            a.kind = REPLY_WORKER_FAILED, a.status = err.status;
            snprintf(a.message, sizeof a.message, "dmlref: %s", err.message);
            write_all(out, &a, sizeof a);
            continue;
        }
        n_in = dmlref_vector_input_count(v);
        n_out = dmlref_vector_output_count(v);
        for (i = 0; i < n_in + n_out; ++i) {
            const dmlref_binding *b = i < n_in ? &dmlref_vector_inputs(v)[i]
                                               : &dmlref_vector_outputs(v)[i - n_in];
            dmlref_binding *to = i < n_in ? &inputs[i] : &outputs[i - n_in];
            to->data = w->arena + q.offsets[i];
            to->size_in_bytes = b->size_in_bytes;
        }
        a.status = w->table->supports(context, dmlref_vector_operator(v),
                                      (dmlref_feature_level)q.level);
        if (a.status == DMLREF_OK && !dmlref_vector_has_data(v)) {
            /* a case that must be refused and lacks buffers (a shape that
               cannot hold data): supports() is where a backend must
               refuse it */
            a.kind = REPLY_RAN;
            snprintf(a.message, sizeof a.message, "supports() accepted it");
        } else if (a.status == DMLREF_OK) {
            a.status = w->table->execute(context, dmlref_vector_operator(v),
                                         (dmlref_feature_level)q.level, inputs, n_in, outputs,
                                         n_out, a.message, sizeof a.message);
            a.kind = a.status == DMLREF_OK ? REPLY_RAN : REPLY_REFUSED;
        } else {
            a.kind = (a.status >= DMLREF_ERROR_UNSUPPORTED_OPERATOR &&
                      a.status <= DMLREF_ERROR_UNSUPPORTED_LAYOUT)
                         ? REPLY_UNSUPPORTED
                         : REPLY_REFUSED;
            snprintf(a.message, sizeof a.message, "supports: %s", dmlref_status_name(a.status));
        }
        dmlref_vector_free(v);
        if (!write_all(out, &a, sizeof a))
            break;
    }
    w->table->destroy(context);
    _exit(0);
}

static void worker_stop(worker *w)
{
    if (w->pid > 0) {
        int status;
        close(w->to_child);
        close(w->from_child);
        kill(w->pid, SIGKILL);
        waitpid(w->pid, &status, 0);
        w->pid = 0;
    }
}

static int worker_start(worker *w, size_t arena_size)
{
    int down[2], up[2];
    if (w->arena && w->arena_size < arena_size) {
        munmap(w->arena, w->arena_size);
        w->arena = NULL;
    }
    if (!w->arena) {
        size_t size = arena_size < ((size_t)1 << 20) ? ((size_t)1 << 20) : arena_size;
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return 0;
        w->arena = p;
        w->arena_size = size;
    }
    if (pipe(down) != 0 || pipe(up) != 0)
        return 0;
    fflush(stdout);
    fflush(stderr);
    w->pid = fork();
    if (w->pid < 0)
        return 0;
    if (w->pid == 0) {
        close(down[1]);
        close(up[0]);
        worker_serve(w, down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    w->to_child = down[1];
    w->from_child = up[0];
    return 1;
}

/* Describes how the child ended. */
static void child_end(pid_t pid, char *buf, size_t capacity)
{
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        snprintf(buf, capacity, "the backend's process vanished");
    else if (WIFSIGNALED(status))
        snprintf(buf, capacity, "the backend crashed (signal %d, %s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, capacity, "the backend's process exited (status %d)", WEXITSTATUS(status));
}

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Runs one case on the plug-in; the outcome goes to *run. */
static void run_plugin(worker *w, double timeout, dmlref_vector *v, const char *path,
                       dmlref_feature_level level, backend_run *run)
{
    size_t n_in = dmlref_vector_input_count(v), n_out = dmlref_vector_output_count(v), i;
    /* page-aligned buffers honour any GuaranteedBaseOffsetAlignment up to 4096 */
    size_t offsets[4], cursor = 0, alignment = 4096;
    request q;
    worker_reply a;
    int got;

    memset(run, 0, sizeof *run);
    for (i = 0; i < n_in + n_out; ++i) { /* [guard][buffer][guard] for each tensor */
        const dmlref_binding *b = i < n_in ? &dmlref_vector_inputs(v)[i]
                                           : &dmlref_vector_outputs(v)[i - n_in];
        offsets[i] = align_up(cursor + GUARD_BYTES, alignment);
        cursor = offsets[i] + (size_t)b->size_in_bytes + GUARD_BYTES;
    }
    if (w->pid <= 0 || w->arena_size < cursor) {
        worker_stop(w);
        if (!worker_start(w, cursor)) {
            run->kind = RUN_ERROR;
            snprintf(run->message, sizeof run->message, "cannot start the backend's process");
            return;
        }
    }
    memset(w->arena, GUARD_FILL, cursor);
    for (i = 0; i < n_in + n_out; ++i) {
        const dmlref_binding *b = i < n_in ? &dmlref_vector_inputs(v)[i]
                                           : &dmlref_vector_outputs(v)[i - n_in];
        if (!b->data)
            continue; /* a case without data: no buffers */
        if (i < n_in)
            memcpy(w->arena + offsets[i], b->data, (size_t)b->size_in_bytes);
        else
            memset(w->arena + offsets[i], OUTPUT_FILL, (size_t)b->size_in_bytes);
    }
    memset(&q, 0, sizeof q);
    q.level = (uint32_t)level;
    q.tensor_count = (uint32_t)(n_in + n_out);
    for (i = 0; i < n_in + n_out; ++i)
        q.offsets[i] = offsets[i];
    snprintf(q.path, sizeof q.path, "%s", path);
    got = write_all(w->to_child, &q, sizeof q) ? read_all(w->from_child, &a, sizeof a, timeout)
                                               : 0;
    if (got != 1) {
        run->kind = RUN_ERROR;
        if (got < 0) { /* hung: stop it */
            snprintf(run->message, sizeof run->message, "timed out after %g s", timeout);
            kill(w->pid, SIGKILL);
            waitpid(w->pid, NULL, 0);
        } else { /* it died: say how */
            child_end(w->pid, run->message, sizeof run->message);
        }
        close(w->to_child);
        close(w->from_child);
        w->pid = 0;
        return;
    }
    a.message[sizeof a.message - 1] = '\0';
    snprintf(run->message, sizeof run->message, "%s", a.message);
    if (a.kind == REPLY_WORKER_FAILED || a.kind == REPLY_CREATE_FAILED) {
        run->kind = RUN_ERROR;
        run->fatal = a.kind == REPLY_CREATE_FAILED;
        return;
    }
    run->kind = a.kind == REPLY_RAN ? RUN_OUTPUTS : a.kind == REPLY_UNSUPPORTED ? RUN_UNSUPPORTED
                                                                                : RUN_REFUSED;
    run->status = (dmlref_status)a.status;
    run->from_supports = strncmp(a.message, "supports: ", 10) == 0;
    if (run->kind != RUN_OUTPUTS || !dmlref_vector_has_data(v))
        return;
    /* what the backend left: guards, inputs, outputs */
    for (i = 0; i < n_in + n_out; ++i) {
        const dmlref_binding *b = i < n_in ? &dmlref_vector_inputs(v)[i]
                                           : &dmlref_vector_outputs(v)[i - n_in];
        const unsigned char *start = w->arena + offsets[i];
        size_t size = (size_t)b->size_in_bytes, g;
        for (g = 0; g < GUARD_BYTES; ++g) {
            if (start[-1 - (long)g] != GUARD_FILL || start[size + g] != GUARD_FILL) {
                run->damage = start[size + g] != GUARD_FILL ? DAMAGE_PAST_END : DAMAGE_BEFORE_START;
                run->damaged_tensor = i;
                break;
            }
        }
        if (run->damage)
            return;
        if (i < n_in && memcmp(start, b->data, size) != 0) {
            run->damage = DAMAGE_INPUT_WRITTEN;
            run->damaged_tensor = i;
            return;
        }
    }
    for (i = 0; i < n_out; ++i) /* the outputs, for comparison */
        memcpy(dmlref_vector_outputs(v)[i].data, w->arena + offsets[n_in + i],
               (size_t)dmlref_vector_outputs(v)[i].size_in_bytes);
}

/* ---- the process backend -------------------------------------------------- */

typedef struct process {
    const char *command;
    FILE *log;            /* the process's stderr, kept to explain how it ended */
    long log_from;        /* where the case at hand began in it */
    pid_t pid;
    FILE *to_child;
    int from_child;
    char *line;           /* the line being read, then bytes already read past it */
    size_t line_capacity;
    size_t held;          /* bytes in line[] after the last line returned */
    size_t held_from;
} process;

/* The last line the process wrote on stderr since the case began, appended
   to `message` as "; its stderr ends: ...". */
static void append_stderr_tail(process *p, char *message, size_t capacity)
{
    char tail[256];
    long end, from;
    size_t n, used = strlen(message);
    if (!p->log || fflush(p->log) != 0 || fseek(p->log, 0, SEEK_END) != 0 ||
        (end = ftell(p->log)) <= p->log_from)
        return;
    from = end - (long)(sizeof tail - 1) > p->log_from ? end - (long)(sizeof tail - 1) : p->log_from;
    if (fseek(p->log, from, SEEK_SET) != 0)
        return;
    n = fread(tail, 1, sizeof tail - 1, p->log);
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        --n; /* the last line, without its newline */
    tail[n] = '\0';
    if (n == 0)
        return;
    while (n > 0 && tail[n - 1] != '\n')
        --n;
    snprintf(message + used, capacity - used, "; its stderr ends: %s", tail + n);
}

static void process_stop(process *p)
{
    if (p->pid > 0) {
        fclose(p->to_child);
        close(p->from_child);
        kill(p->pid, SIGKILL);
        waitpid(p->pid, NULL, 0);
        p->pid = 0;
    }
}

static int process_start(process *p)
{
    int down[2], up[2];
    p->held = 0;
    if (!p->log)
        p->log = tmpfile(); /* without one, the process keeps dmlref's stderr */
    if (pipe(down) != 0 || pipe(up) != 0)
        return 0;
    fflush(stdout);
    fflush(stderr);
    p->pid = fork();
    if (p->pid < 0)
        return 0;
    if (p->pid == 0) {
        dup2(down[0], 0);
        dup2(up[1], 1);
        if (p->log)
            dup2(fileno(p->log), 2);
        close(down[0]), close(down[1]), close(up[0]), close(up[1]);
        execl("/bin/sh", "sh", "-c", p->command, (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    p->to_child = fdopen(down[1], "w");
    p->from_child = up[0];
    return p->to_child != NULL;
}

/* Reads one line (without the newline) within the timeout: 1, 0 at end of
   file, -1 on timeout.  Reads in chunks; bytes past the newline wait in the
   buffer for the next call. */
static int read_line(process *p, double timeout, size_t *length)
{
    size_t used, scanned = 0;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (p->held) /* move what the last read left to the front */
        memmove(p->line, p->line + p->held_from, p->held);
    used = p->held;
    p->held = 0;
    for (;;) {
        struct pollfd pfd;
        int left;
        ssize_t n;
        char *newline = used > scanned ? memchr(p->line + scanned, '\n', used - scanned) : NULL;
        if (newline) {
            size_t end = (size_t)(newline - p->line);
            p->held = used - end - 1;
            p->held_from = end + 1;
            *newline = '\0';
            *length = end;
            return 1;
        }
        scanned = used;
        if (used + 65536 + 1 > p->line_capacity) {
            size_t capacity = p->line_capacity ? 2 * p->line_capacity : 1 << 20;
            char *grown;
            if (capacity > DMLREF_VECTOR_MAX_FILE_BYTES || !(grown = realloc(p->line, capacity)))
                return 0;
            p->line = grown;
            p->line_capacity = capacity;
        }
        left = milliseconds_left(&start, timeout);
        if (left == 0)
            return -1;
        pfd.fd = p->from_child, pfd.events = POLLIN, pfd.revents = 0;
        if (poll(&pfd, 1, left) == 0)
            continue;
        n = read(p->from_child, p->line + used, p->line_capacity - used - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        used += (size_t)n;
    }
}

static void run_process(process *p, double timeout, dmlref_vector *v,
                        dmlref_feature_level level, backend_run *run)
{
    char *text;
    size_t length, i;
    dmlref_error err;
    dmlref_reply reply;
    int got;

    memset(run, 0, sizeof *run);
    if (p->pid <= 0 && !process_start(p)) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "cannot start: %s", p->command);
        return;
    }
    if (p->log && fseek(p->log, 0, SEEK_END) == 0)
        p->log_from = ftell(p->log);
    dmlref_vector_set_feature_level(v, level); /* --feature-level reaches the process too */
    if (dmlref_vector_write_with(v, DMLREF_VECTOR_WRITE_CASE | DMLREF_VECTOR_WRITE_ONE_LINE, &text,
                                 &length, &err) != DMLREF_OK) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "%s", err.message);
        return;
    }
    got = fwrite(text, 1, length, p->to_child) == length && fputc('\n', p->to_child) != EOF &&
          fflush(p->to_child) == 0;
    free(text);
    if (got)
        got = read_line(p, timeout, &length);
    if (got != 1) {
        run->kind = RUN_ERROR;
        if (got < 0) {
            snprintf(run->message, sizeof run->message, "timed out after %g s", timeout);
            process_stop(p);
        } else {
            fclose(p->to_child);
            close(p->from_child);
            child_end(p->pid, run->message, sizeof run->message);
            p->pid = 0;
        }
        append_stderr_tail(p, run->message, sizeof run->message);
        return;
    }
    for (i = 0; i < dmlref_vector_output_count(v); ++i) /* outputs start poisoned */
        if (dmlref_vector_outputs(v)[i].data)
            memset(dmlref_vector_outputs(v)[i].data, OUTPUT_FILL,
                   (size_t)dmlref_vector_outputs(v)[i].size_in_bytes);
    if (dmlref_vector_read_reply(v, p->line, length, dmlref_vector_outputs(v),
                                 dmlref_vector_output_count(v), &reply, &err) != DMLREF_OK) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "malformed reply: %s", err.message);
        process_stop(p); /* its next line could belong to this case */
        return;
    }
    run->kind = reply.kind == DMLREF_REPLY_OUTPUTS       ? RUN_OUTPUTS
                : reply.kind == DMLREF_REPLY_UNSUPPORTED ? RUN_UNSUPPORTED
                                                         : RUN_REFUSED;
    run->status = reply.refusal_status;
    snprintf(run->rule, sizeof run->rule, "%s", reply.refusal_rule);
    snprintf(run->message, sizeof run->message, "%s", reply.message);
}

/* ---- a backend, whichever kind ---------------------------------------------- */

struct backend {
    worker w;
    process p;
    int is_plugin;
    double timeout;
    const char *name, *version;
    dmlref_feature_level max_level;
};

backend *backend_open(const char *library_path, const char *command, const char *text_options,
                      double timeout)
{
    backend *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->timeout = timeout;
    b->max_level = DMLREF_FEATURE_LEVEL_LATEST;
    if (library_path) {
        dmlref_backend_entry_fn entry;
        void *library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL); /* kept until exit */
        if (!library) {
            fprintf(stderr, "dmlref: %s: cannot load: %s\n", library_path, dlerror());
            free(b);
            return NULL;
        }
        *(void **)(&entry) = dlsym(library, DMLREF_BACKEND_ENTRY_SYMBOL);
        b->w.table = entry ? entry(DMLREF_BACKEND_ABI_VERSION) : NULL;
        if (!b->w.table || b->w.table->abi_version != DMLREF_BACKEND_ABI_VERSION ||
            b->w.table->struct_size < sizeof(dmlref_backend_v1) || !b->w.table->create ||
            !b->w.table->supports || !b->w.table->execute || !b->w.table->destroy) {
            fprintf(stderr, "dmlref: %s: no %s for ABI version %u (or an incomplete table)\n",
                    library_path, DMLREF_BACKEND_ENTRY_SYMBOL, DMLREF_BACKEND_ABI_VERSION);
            free(b);
            return NULL;
        }
        b->is_plugin = 1;
        b->w.options = text_options;
        b->name = b->w.table->name ? b->w.table->name : library_path;
        b->version = b->w.table->version ? b->w.table->version : "";
        b->max_level = b->w.table->max_feature_level;
    } else {
        b->p.command = command;
        b->name = command;
        b->version = "";
    }
    signal(SIGPIPE, SIG_IGN); /* a dead process backend is found by the write's error */
    return b;
}

const char *backend_name(const backend *b) { return b->name; }
const char *backend_version(const backend *b) { return b->version; }
dmlref_feature_level backend_max_level(const backend *b) { return b->max_level; }

void backend_run_case(backend *b, dmlref_vector *v, const char *path, dmlref_feature_level level,
                      backend_run *run)
{
    if (b->is_plugin)
        run_plugin(&b->w, b->timeout, v, path, level, run);
    else
        run_process(&b->p, b->timeout, v, level, run);
}

void backend_close(backend *b)
{
    if (!b)
        return;
    worker_stop(&b->w);
    process_stop(&b->p);
    free(b->p.line);
    if (b->p.log)
        fclose(b->p.log);
    if (b->w.arena)
        munmap(b->w.arena, b->w.arena_size);
    free(b);
}

