/*
 * check.c - dmlref check: runs another implementation over golden vectors
 * and judges every case.
 *
 *   dmlref check (--backend LIB.so | --exec 'CMD') [options] PATH...
 *
 * Two ways to reach an implementation:
 *   - a plug-in (include/dmlref/backend.h), run in a child process that
 *     serves one case at a time: its buffers lie in memory shared with dmlref,
 *     each between guard bytes, so dmlref sees a write past an output or into
 *     an input; a crash or a hang costs the case at hand, and the child is
 *     started again for the next;
 *   - a process speaking JSON Lines (docs/conformance.md): one case per line
 *     on its stdin, one reply per line on its stdout, a timeout per case, a
 *     restart after a crash, a hang or a malformed reply.
 *
 * Each case ends as pass, fail (wrong bits in a defined element, a write
 * outside an output, a valid case refused, an invalid case accepted), skip
 * (unsupported, or beyond the feature level asked) or error (crash, timeout,
 * malformed reply).  Exit 0 when no case failed or errored, 1 otherwise, 2
 * when a vector could not be read, 3 for a usage error.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, strsignal */
#include "conformance.h"

#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
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

/* ---- options --------------------------------------------------------------- */

typedef struct options {
    const char *backend, *exec, *backend_options, *filter, *junit, *json;
    dmlref_feature_level level; /* 0: each vector's own */
    double timeout;
    int verbose;
} options;

/* ---- results --------------------------------------------------------------- */

typedef struct result {
    char *name;
    case_result outcome;
    char message[DMLREF_ERROR_MESSAGE_CAPACITY + 128];
    double seconds;
} result;

typedef struct results {
    result *items;
    size_t count, capacity;
    unsigned long passed, failed, skipped, errors;
    int bad_input;
} results;

static const char *const k_outcome_names[] = {"PASS", "FAIL", "SKIP", "ERROR"};

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void record(results *all, const options *o, const char *name, case_result outcome,
                   const char *format, ...)
{
    result *r;
    va_list args;
    if (all->count == all->capacity) {
        all->capacity = all->capacity ? 2 * all->capacity : 256;
        all->items = realloc(all->items, all->capacity * sizeof *all->items);
        if (!all->items) {
            fprintf(stderr, "dmlref check: out of memory\n");
            exit(EXIT_BAD_INPUT);
        }
    }
    r = &all->items[all->count++];
    r->name = malloc(strlen(name) + 1);
    if (!r->name)
        exit(EXIT_BAD_INPUT);
    strcpy(r->name, name);
    r->outcome = outcome;
    r->seconds = 0;
    va_start(args, format);
    vsnprintf(r->message, sizeof r->message, format, args);
    va_end(args);
    switch (outcome) {
    case CASE_PASS: ++all->passed; break;
    case CASE_FAIL: ++all->failed; break;
    case CASE_SKIP: ++all->skipped; break;
    default: ++all->errors; break;
    }
    if (outcome != CASE_PASS || o->verbose)
        printf("%-5s %s%s%s\n", k_outcome_names[outcome], name, r->message[0] ? ": " : "",
               r->message);
    fflush(stdout);
}

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

typedef struct reply {
    int32_t kind;   /* 0 ran, 1 unsupported, 2 refused */
    int32_t status;
    char message[512];
} reply;

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
        reply a;
        a.kind = 2, a.status = -1;
        snprintf(a.message, sizeof a.message, "create failed: %s", message);
        write_all(out, &a, sizeof a);
        _exit(1);
    }
    while (read_all(in, &q, sizeof q, -1) == 1) {
        reply a;
        dmlref_vector *v = NULL;
        dmlref_error err;
        dmlref_binding inputs[3], outputs[2];
        size_t i, n_in, n_out;
        memset(&a, 0, sizeof a);
        dmlref_vector_read_options read = read_options(0);
        if (dmlref_vector_load(q.path, &read, &v, &err) != DMLREF_OK) {
            a.kind = 2, a.status = err.status;
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
            a.kind = 0;
            snprintf(a.message, sizeof a.message, "supports() accepted it");
        } else if (a.status == DMLREF_OK) {
            a.status = w->table->execute(context, dmlref_vector_operator(v),
                                         (dmlref_feature_level)q.level, inputs, n_in, outputs,
                                         n_out, a.message, sizeof a.message);
            a.kind = a.status == DMLREF_OK ? 0 : 2;
        } else {
            a.kind = (a.status >= DMLREF_ERROR_UNSUPPORTED_OPERATOR &&
                      a.status <= DMLREF_ERROR_UNSUPPORTED_LAYOUT)
                         ? 1
                         : 2;
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
static void run_plugin(worker *w, const options *o, dmlref_vector *v, const char *path,
                       dmlref_feature_level level, backend_run *run)
{
    size_t n_in = dmlref_vector_input_count(v), n_out = dmlref_vector_output_count(v), i;
    /* page-aligned buffers honour any GuaranteedBaseOffsetAlignment up to 4096 */
    size_t offsets[4], cursor = 0, alignment = 4096;
    request q;
    reply a;
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
    got = write_all(w->to_child, &q, sizeof q) ? read_all(w->from_child, &a, sizeof a, o->timeout)
                                               : 0;
    if (got != 1) {
        run->kind = RUN_ERROR;
        if (got < 0) { /* hung: stop it */
            snprintf(run->message, sizeof run->message, "timed out after %g s", o->timeout);
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
    run->kind = a.kind == 0 ? RUN_OUTPUTS : a.kind == 1 ? RUN_UNSUPPORTED : RUN_REFUSED;
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
    pid_t pid;
    FILE *to_child;
    int from_child;
    char *line;           /* the line being read, then bytes already read past it */
    size_t line_capacity;
    size_t held;          /* bytes in line[] after the last line returned */
    size_t held_from;
} process;

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

static void run_process(process *p, const options *o, dmlref_vector *v,
                        dmlref_feature_level level, backend_run *run)
{
    char *text;
    size_t length, i;
    dmlref_error err;
    dmlref_reply_kind kind;
    int got;

    memset(run, 0, sizeof *run);
    if (p->pid <= 0 && !process_start(p)) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "cannot start: %s", p->command);
        return;
    }
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
        got = read_line(p, o->timeout, &length);
    if (got != 1) {
        run->kind = RUN_ERROR;
        if (got < 0)
            snprintf(run->message, sizeof run->message, "timed out after %g s", o->timeout);
        else {
            fclose(p->to_child);
            close(p->from_child);
            child_end(p->pid, run->message, sizeof run->message);
            p->pid = 0;
            return;
        }
        process_stop(p);
        return;
    }
    for (i = 0; i < dmlref_vector_output_count(v); ++i) /* outputs start poisoned */
        if (dmlref_vector_outputs(v)[i].data)
            memset(dmlref_vector_outputs(v)[i].data, OUTPUT_FILL,
                   (size_t)dmlref_vector_outputs(v)[i].size_in_bytes);
    if (dmlref_vector_read_reply(v, p->line, length, dmlref_vector_outputs(v),
                                 dmlref_vector_output_count(v), &kind, run->message,
                                 sizeof run->message, &err) != DMLREF_OK) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "malformed reply: %s", err.message);
        process_stop(p); /* its next line could belong to this case */
        return;
    }
    run->kind = kind == DMLREF_REPLY_OUTPUTS     ? RUN_OUTPUTS
                : kind == DMLREF_REPLY_UNSUPPORTED ? RUN_UNSUPPORTED
                                                   : RUN_REFUSED;
}

/* ---- judging ------------------------------------------------------------------ */

static const char *tensor_name(const dmlref_vector *v, size_t index)
{
    static const char *const gather[] = {"InputTensor", "IndicesTensor", "OutputTensor"};
    static const char *const scatter[] = {"InputTensor", "IndicesTensor", "UpdatesTensor",
                                          "OutputTensor"};
    static const char *const nonzero[] = {"InputTensor", "OutputCountTensor",
                                          "OutputCoordinatesTensor"};
    dmlref_operator_type type = dmlref_vector_operator(v)->Type;
    return type == DMLREF_OPERATOR_SCATTER_ELEMENTS        ? scatter[index]
           : type == DMLREF_OPERATOR_NONZERO_COORDINATES ? nonzero[index]
                                                         : gather[index];
}

/* An output given by its digest alone says only that it differs; the
   reference recomputes the case so the report can name the first wrong
   element. */
static void name_first_wrong_element(dmlref_vector *v, dmlref_error *err)
{
    size_t n = dmlref_vector_output_count(v), i;
    dmlref_binding got[2];
    dmlref_error detail;
    for (i = 0; i < n; ++i) {
        got[i].size_in_bytes = dmlref_vector_outputs(v)[i].size_in_bytes;
        got[i].data = malloc((size_t)got[i].size_in_bytes + 1);
        if (!got[i].data) {
            while (i-- > 0)
                free(got[i].data);
            return;
        }
        memcpy(got[i].data, dmlref_vector_outputs(v)[i].data, (size_t)got[i].size_in_bytes);
    }
    if (dmlref_vector_eval(v, 0, &detail) == DMLREF_OK &&
        dmlref_vector_compare(v, got, n, NULL, &detail) == DMLREF_ERROR_MISMATCH)
        *err = detail;
    for (i = 0; i < n; ++i)
        free(got[i].data);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static case_result verdict(char *m, size_t capacity, case_result outcome, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(m, capacity, format, args);
    va_end(args);
    return outcome;
}

case_result judge_case(dmlref_vector *v, const backend_run *run, char *m, size_t capacity)
{
    dmlref_status want;
    const char *rule;
    int must_refuse = dmlref_vector_expects_error(v, &want, &rule);
    dmlref_error err;

    if (run->kind == RUN_ERROR) {
        return verdict(m, capacity, CASE_ERROR, "%s", run->message);
    }
    if (must_refuse) {
        if (run->kind == RUN_UNSUPPORTED && !run->from_supports) {
            /* a process that does not support a case has not refused it */
            return verdict(m, capacity, CASE_SKIP, "unsupported%s%s", run->message[0] ? ": " : "",
                   run->message);
        } else if (run->kind != RUN_OUTPUTS) {
            return verdict(m, capacity, CASE_PASS, "%s", "");
        } else if (want == DMLREF_ERROR_INDEX_OUT_OF_RANGE) {
            return verdict(m, capacity, CASE_SKIP,
                   "out-of-range indices: DirectML's outputs are undefined (%s), not compared", rule);
        } else if (want == DMLREF_ERROR_UNSUPPORTED_LAYOUT) {
            return verdict(m, capacity, CASE_SKIP, "a layout dmlref cannot decide (%s): not judged", rule);
        }
        return verdict(m, capacity, CASE_FAIL, "accepted a case that must be refused: %s (%s)",
                       dmlref_status_name(want), rule);
    }
    if (run->kind == RUN_UNSUPPORTED) {
        return verdict(m, capacity, CASE_SKIP, "unsupported%s%s", run->message[0] ? ": " : "",
               run->message);
    }
    if (run->kind == RUN_REFUSED && dmlref_vector_oob_policy(v) == DMLREF_OOB_CLAMP) {
        return verdict(m, capacity, CASE_SKIP, "refused out-of-range indices, which this case clamps "
                                        "(\"oob\": \"clamp\", DirectML's observed behaviour)");
    }
    if (run->kind == RUN_REFUSED) {
        if (run->status != DMLREF_OK) /* a plug-in's status; a process gives a message */
            return verdict(m, capacity, CASE_FAIL, "refused a valid case: %s%s%s",
                   dmlref_status_name(run->status), run->message[0] ? ": " : "", run->message);
        else
            return verdict(m, capacity, CASE_FAIL, "refused a valid case: %s", run->message);
    }
    if (run->damage) {
        return verdict(m, capacity, CASE_FAIL, "%s %s",
               run->damage == DAMAGE_INPUT_WRITTEN ? "wrote into the input"
               : run->damage == DAMAGE_PAST_END    ? "wrote past the TotalTensorSizeInBytes of"
                                                   : "wrote before the start of",
               tensor_name(v, run->damaged_tensor));
    }
    if (dmlref_vector_compare(v, dmlref_vector_outputs(v), dmlref_vector_output_count(v), NULL,
                              &err) != DMLREF_OK) {
        /* the message starts "file: $.tensors...": the path is what matters */
        const char *detail;
        if (strstr(err.message, "expected digest"))
            name_first_wrong_element(v, &err);
        detail = strstr(err.message, ": $.");
        return verdict(m, capacity, CASE_FAIL, "%s", detail ? detail + 2 : err.message);
    }
    return verdict(m, capacity, CASE_PASS, "%s", "");
}

/* ---- reports ----------------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc(*s, f);
        }
    }
}

static void json_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static int write_junit(const char *path, const results *all, const char *tested)
{
    FILE *f = fopen(path, "w");
    size_t i;
    if (!f)
        return 0;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites tests=\"%zu\" failures=\"%lu\" errors=\"%lu\" skipped=\"%lu\">\n",
            all->count, all->failed, all->errors, all->skipped);
    fprintf(f, "  <testsuite name=\"dmlref check ");
    xml_text(f, tested);
    fprintf(f, "\" tests=\"%zu\" failures=\"%lu\" errors=\"%lu\" skipped=\"%lu\">\n", all->count,
            all->failed, all->errors, all->skipped);
    for (i = 0; i < all->count; ++i) {
        const result *r = &all->items[i];
        const char *slash = strchr(r->name, '/');
        fprintf(f, "    <testcase classname=\"");
        if (slash)
            fprintf(f, "%.*s", (int)(slash - r->name), r->name);
        fprintf(f, "\" name=\"");
        xml_text(f, r->name);
        fprintf(f, "\"");
        if (r->outcome == CASE_PASS) {
            fprintf(f, "/>\n");
            continue;
        }
        fprintf(f, ">\n      <%s message=\"", r->outcome == CASE_FAIL   ? "failure"
                                             : r->outcome == CASE_SKIP ? "skipped"
                                                                       : "error");
        xml_text(f, r->message);
        fprintf(f, "\"/>\n    </testcase>\n");
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    return fclose(f) == 0;
}

static int write_json(const char *path, const results *all, const char *tested,
                      const char *tested_version)
{
    static const char *const lower[] = {"pass", "fail", "skip", "error"};
    FILE *f = fopen(path, "w");
    size_t i;
    if (!f)
        return 0;
    fprintf(f, "{\"tool\": \"dmlref check\", \"version\": \"%s\", \"backend\": {\"name\": ",
            dmlref_version_string());
    json_text(f, tested);
    fprintf(f, ", \"version\": ");
    json_text(f, tested_version);
    fprintf(f, "},\n \"summary\": {\"passed\": %lu, \"failed\": %lu, \"skipped\": %lu, "
               "\"errors\": %lu},\n \"results\": [\n",
            all->passed, all->failed, all->skipped, all->errors);
    for (i = 0; i < all->count; ++i) {
        fprintf(f, "  {\"name\": ");
        json_text(f, all->items[i].name);
        fprintf(f, ", \"result\": \"%s\", \"seconds\": %.6f, \"message\": ",
                lower[all->items[i].outcome], all->items[i].seconds);
        json_text(f, all->items[i].message);
        fprintf(f, "}%s\n", i + 1 < all->count ? "," : "");
    }
    fprintf(f, " ]}\n");
    return fclose(f) == 0;
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
    options o;
    memset(&o, 0, sizeof o);
    o.timeout = b->timeout;
    if (b->is_plugin)
        run_plugin(&b->w, &o, v, path, level, run);
    else
        run_process(&b->p, &o, v, level, run);
}

void backend_close(backend *b)
{
    if (!b)
        return;
    worker_stop(&b->w);
    process_stop(&b->p);
    free(b->p.line);
    if (b->w.arena)
        munmap(b->w.arena, b->w.arena_size);
    free(b);
}

/* ---- the command ------------------------------------------------------------- */

static int parse_seconds(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (*end || !(v > 0 && v <= 86400))
        return 0;
    *out = v;
    return 1;
}

int command_check(int argc, char **argv)
{
    options o;
    results all;
    path_list files = {NULL, 0, 0};
    backend *b;
    size_t i;
    int k, paths = 0, code;

    memset(&o, 0, sizeof o);
    memset(&all, 0, sizeof all);
    o.timeout = 60;
    for (k = 0; k < argc; ++k) {
        const char *a = argv[k], *next = k + 1 < argc ? argv[k + 1] : NULL;
        if (strcmp(a, "--backend") == 0 && next)
            o.backend = argv[++k];
        else if (strcmp(a, "--exec") == 0 && next)
            o.exec = argv[++k];
        else if (strcmp(a, "--backend-options") == 0 && next)
            o.backend_options = argv[++k];
        else if (strcmp(a, "--filter") == 0 && next)
            o.filter = argv[++k];
        else if (strcmp(a, "--junit") == 0 && next)
            o.junit = argv[++k];
        else if (strcmp(a, "--json") == 0 && next)
            o.json = argv[++k];
        else if (strcmp(a, "--feature-level") == 0 && next) {
            if (!dmlref_feature_level_from_name(argv[++k], &o.level))
                return usage_error("--feature-level takes a level such as 4_1");
        } else if (strcmp(a, "--timeout") == 0 && next) {
            if (!parse_seconds(argv[++k], &o.timeout))
                return usage_error("--timeout takes seconds, more than 0");
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0)
            o.verbose = 1;
        else if (a[0] == '-' && a[1])
            return usage_error("check: unknown option");
        else {
            ++paths;
            if (!collect_vectors(a, &files))
                all.bad_input = 1;
        }
    }
    if (!o.backend == !o.exec)
        return usage_error("check takes --backend LIB.so or --exec 'CMD'");
    if (!paths)
        return usage_error("check needs a path of vectors");
    b = backend_open(o.backend, o.exec, o.backend_options, o.timeout);
    if (!b)
        return EXIT_BAD_INPUT;
    printf("dmlref check %s: %s%s%s\n", dmlref_version_string(), backend_name(b),
           backend_version(b)[0] ? " " : "", backend_version(b));

    for (i = 0; i < files.count; ++i) {
        dmlref_vector *v;
        dmlref_error err;
        dmlref_feature_level level, lowest;
        backend_run run;
        struct timespec t0, t1;
        dmlref_vector_read_options read = read_options(0);
        if (dmlref_vector_load(files.items[i], &read, &v, &err) != DMLREF_OK) {
            record(&all, &o, files.items[i], CASE_ERROR, "cannot read the vector: %s", err.message);
            all.bad_input = 1;
            continue;
        }
        if (o.filter && fnmatch(o.filter, dmlref_vector_name(v), 0) != 0) {
            dmlref_vector_free(v);
            continue;
        }
        /* a positive case runs at its own level, or lower with
           --feature-level; a case that must be refused, at its own */
        level = dmlref_vector_feature_level(v);
        if (!dmlref_vector_min_feature_level(v, &lowest) || dmlref_vector_expects_error(v, NULL, NULL))
            lowest = level;
        else if (o.level && o.level < level)
            level = o.level;
        if (lowest > level || lowest > backend_max_level(b) || (o.level && lowest > o.level)) {
            record(&all, &o, dmlref_vector_name(v), CASE_SKIP, "needs feature level %s",
                   dmlref_feature_level_name(lowest));
            dmlref_vector_free(v);
            continue;
        }
        if (!dmlref_vector_has_data(v) && !dmlref_vector_expects_error(v, NULL, NULL)) {
            record(&all, &o, dmlref_vector_name(v), CASE_ERROR, "the vector has no data");
            dmlref_vector_free(v);
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &t0);
        backend_run_case(b, v, files.items[i], level, &run);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        {
            char message[sizeof run.message + 256];
            case_result outcome = judge_case(v, &run, message, sizeof message);
            record(&all, &o, dmlref_vector_name(v), outcome, "%s", message);
        }
        all.items[all.count - 1].seconds =
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        dmlref_vector_free(v);
    }
    if (o.junit && !write_junit(o.junit, &all, backend_name(b)))
        fprintf(stderr, "dmlref check: %s: cannot write\n", o.junit);
    if (o.json && !write_json(o.json, &all, backend_name(b), backend_version(b)))
        fprintf(stderr, "dmlref check: %s: cannot write\n", o.json);
    if (all.errors)
        printf("%lu errors (crashes, timeouts, malformed replies), counted as failed\n",
               all.errors);
    printf("%lu passed, %lu failed, %lu skipped\n", all.passed, all.failed + all.errors,
           all.skipped);
    code = all.bad_input ? EXIT_BAD_INPUT : (all.failed || all.errors) ? EXIT_DIFFERENCE : EXIT_OK;
    for (i = 0; i < all.count; ++i)
        free(all.items[i].name);
    free(all.items);
    list_free(&files);
    backend_close(b);
    return code;
}
