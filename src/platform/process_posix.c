/*
 * process_posix.c - process.h on POSIX: fork, a process group per child,
 * non-blocking pipes and poll, a pipe drained into the last bytes kept for
 * what a child prints.
 *
 * The groups of the children alive are kept where a signal handler can
 * reach them: when dmlref dies of SIGINT, SIGTERM or SIGHUP, they die
 * first.  SIGPIPE is ignored once a child has been started: a child that
 * stopped reading is found by the write's error.
 *
 * On Linux a process that starts children is their child subreaper
 * (PR_SET_CHILD_SUBREAPER): what a child started and left behind (a
 * daemon, a setsid() child of its own session) becomes dmlref's child, not
 * init's.  Stopping a child kills its descendants too (found through the
 * PPid of /proc/PID/stat) and every such adopted process, whatever group
 * or session it joined.  Elsewhere only the child's process group is
 * killed: a descendant that left it (setsid, setpgid) lives on.
 */
#define _DEFAULT_SOURCE /* strsignal, F_DUPFD */
#include "platform/process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/prctl.h>   /* PR_SET_CHILD_SUBREAPER */
#include <sys/syscall.h> /* SYS_close_range */
#endif
#include <sys/wait.h>
#include <unistd.h>

/* After SIGTERM, a CHILD_STOP_TERMINATE_FIRST child gets this long to end
   what it started and itself. */
#define TERMINATE_GRACE_SECONDS 1.0

/* The captures of this process (below), drained by every wait. */
#define LIVE_CAPTURES 64
static capture *live_captures[LIVE_CAPTURES];

/* ---- the groups to kill when dmlref dies -------------------------------------------- */

#define GROUP_SLOTS 160 /* check's jobs, each job's backends */

static volatile sig_atomic_t group_of_slot[GROUP_SLOTS]; /* 0: free */
static volatile sig_atomic_t terminate_first_in_slot[GROUP_SLOTS];
static int fatal_signals_caught;

static void stop_groups_and_die(int signal_number)
{
    size_t i;
    for (i = 0; i < GROUP_SLOTS; ++i) {
        pid_t group = (pid_t)group_of_slot[i];
        if (group > 0 && terminate_first_in_slot[i])
            kill(group, SIGTERM); /* it ends its own children, then itself */
        else if (group > 0)
            kill(-group, SIGKILL);
    }
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

static void stop_groups_on_fatal_signals(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    size_t i;
    if (fatal_signals_caught)
        return;
    fatal_signals_caught = 1;
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L); /* not inherited: each starter asks */
#endif
    for (i = 0; i < sizeof signals / sizeof *signals; ++i) {
        struct sigaction now;
        if (sigaction(signals[i], NULL, &now) == 0 && now.sa_handler != SIG_IGN)
            signal(signals[i], stop_groups_and_die); /* respect nohup's SIG_IGN */
    }
    signal(SIGPIPE, SIG_IGN);
}

static int take_slot(pid_t group, int terminate_first)
{
    int i;
    for (i = 0; i < GROUP_SLOTS; ++i)
        if (group_of_slot[i] == 0) {
            terminate_first_in_slot[i] = terminate_first;
            group_of_slot[i] = (sig_atomic_t)group;
            return i;
        }
    return -1; /* more children than slots: that one is not stopped by a signal */
}

/* In a new child: its own group, default signals, none of its parent's
   children to stop. */
static void become_group_leader(void)
{
    size_t i;
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (i = 0; i < GROUP_SLOTS; ++i)
        group_of_slot[i] = 0;
    fatal_signals_caught = 0;
    for (i = 0; i < LIVE_CAPTURES; ++i) /* its parent's (their ends are closed or kept alike) */
        live_captures[i] = NULL;
}

/* ---- what a child prints ----------------------------------------------------------
 * A pipe: the children write into it (dmlref keeps its writing end, to
 * give to the next child), and every wait of this file drains it into the
 * last CAPTURE_KEPT bytes, so that however much a backend prints, dmlref
 * holds no more than that and writes nothing to disk.  A child that prints
 * while dmlref is not waiting on it blocks until the next wait. */

#define CAPTURE_KEPT ((size_t)65536)
#define CAPTURE_READS_PER_DRAIN 16 /* a child that never stops printing cannot hold a wait */

struct capture {
    int read_fd, write_fd; /* dmlref's end non-blocking; both closed on exec */
    size_t used;           /* the last bytes printed: kept[0, used) */
    char kept[CAPTURE_KEPT];
};

static void capture_drain(capture *c)
{
    static char chunk[CAPTURE_KEPT];
    int reads;
    for (reads = 0; reads < CAPTURE_READS_PER_DRAIN; ++reads) {
        ssize_t n = read(c->read_fd, chunk, sizeof chunk);
        size_t got;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        got = (size_t)n;                    /* at most CAPTURE_KEPT */
        if (c->used + got > CAPTURE_KEPT) { /* the oldest bytes go */
            size_t dropped = c->used + got - CAPTURE_KEPT;
            memmove(c->kept, c->kept + dropped, c->used - dropped);
            c->used -= dropped;
        }
        memcpy(c->kept + c->used, chunk, got);
        c->used += got;
    }
}

static int set_flag(int fd, int get, int set, int flag)
{
    int flags = fcntl(fd, get);
    return flags >= 0 && fcntl(fd, set, flags | flag) == 0;
}

capture *capture_open(void)
{
    capture *c = malloc(sizeof *c);
    int ends[2] = {-1, -1};
    size_t slot;
    for (slot = 0; slot < LIVE_CAPTURES && live_captures[slot]; ++slot)
        ;
    if (!c || slot == LIVE_CAPTURES || pipe(ends) != 0 ||
        !set_flag(ends[0], F_GETFL, F_SETFL, O_NONBLOCK) ||
        !set_flag(ends[0], F_GETFD, F_SETFD, FD_CLOEXEC) ||
        !set_flag(ends[1], F_GETFD, F_SETFD, FD_CLOEXEC)) {
        free(c);
        if (ends[0] >= 0)
            close(ends[0]), close(ends[1]);
        return NULL;
    }
    c->read_fd = ends[0], c->write_fd = ends[1];
    c->used = 0;
    live_captures[slot] = c;
    return c;
}

void capture_clear(capture *c)
{
    if (!c)
        return;
    capture_drain(c);
    c->used = 0;
}

void capture_last_line(capture *c, char *line, size_t capacity)
{
    size_t n, from;
    if (capacity)
        line[0] = '\0';
    if (!c || !capacity)
        return;
    capture_drain(c); /* what it printed before it ended */
    n = c->used;
    while (n > 0 && (c->kept[n - 1] == '\n' || c->kept[n - 1] == '\r' || c->kept[n - 1] == ' '))
        --n; /* the last line, without its newline */
    for (from = n; from > 0 && c->kept[from - 1] != '\n' && n - from < 255; --from)
        ;
    snprintf(line, capacity, "%.*s", (int)(n - from), c->kept + from);
}

void capture_close(capture *c)
{
    size_t slot;
    if (!c)
        return;
    for (slot = 0; slot < LIVE_CAPTURES; ++slot)
        if (live_captures[slot] == c)
            live_captures[slot] = NULL;
    close(c->read_fd);
    close(c->write_fd);
    free(c);
}

static void drain_live_captures(void)
{
    size_t i;
    for (i = 0; i < LIVE_CAPTURES; ++i)
        if (live_captures[i])
            capture_drain(live_captures[i]);
}

/* poll(2) on fds[0, n), draining the live captures meanwhile: the number
   of fds ready, 0 when the time passed or only a capture had bytes (the
   caller looks at its deadline and calls again), -1 on an error. */
static int poll_draining(struct pollfd *fds, nfds_t n, int milliseconds)
{
    struct pollfd all[64 + LIVE_CAPTURES];
    capture *drained[LIVE_CAPTURES];
    nfds_t count = 0, i, extra = 0;
    int ready;
    if (n > 64)
        return poll(fds, n, milliseconds); /* (no caller waits on more) */
    for (i = 0; i < n; ++i)
        all[count++] = fds[i];
    for (i = 0; i < LIVE_CAPTURES; ++i)
        if (live_captures[i]) {
            drained[extra++] = live_captures[i];
            all[count].fd = live_captures[i]->read_fd;
            all[count].events = POLLIN, all[count].revents = 0;
            ++count;
        }
    ready = poll(all, count, milliseconds);
    if (ready <= 0)
        return ready;
    for (i = 0; i < extra; ++i)
        if (all[n + i].revents)
            capture_drain(drained[i]);
    for (ready = 0, i = 0; i < n; ++i) {
        fds[i].revents = all[i].revents;
        ready += all[i].revents != 0;
    }
    return ready;
}

/* ---- dmlref's end of a pipe ------------------------------------------------------- */

struct channel {
    int fd; /* non-blocking, closed on exec */
};

static int poll_timeout(const deadline *d)
{
    return d ? (int)deadline_milliseconds_left(d) : -1;
}

static int timed_out(const deadline *d)
{
    return d && deadline_milliseconds_left(d) == 0;
}

channel_result channel_write(channel *c, const void *data, size_t size, const deadline *d)
{
    const char *p = data;
    while (size) {
        struct pollfd pfd;
        ssize_t n;
        if (timed_out(d))
            return CHANNEL_TIMED_OUT;
        pfd.fd = c->fd, pfd.events = POLLOUT, pfd.revents = 0;
        if (poll_draining(&pfd, 1, poll_timeout(d)) <= 0)
            continue; /* time, or EINTR: the loop looks again */
        n = write(c->fd, p, size);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (n <= 0)
            return CHANNEL_CLOSED;
        p += n, size -= (size_t)n;
    }
    return CHANNEL_DONE;
}

channel_result channel_read(channel *c, void *data, size_t size, const deadline *d)
{
    char *p = data;
    while (size) {
        struct pollfd pfd;
        ssize_t n;
        if (timed_out(d))
            return CHANNEL_TIMED_OUT;
        pfd.fd = c->fd, pfd.events = POLLIN, pfd.revents = 0;
        if (poll_draining(&pfd, 1, poll_timeout(d)) <= 0)
            continue;
        n = read(c->fd, p, size);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (n <= 0)
            return CHANNEL_CLOSED;
        p += n, size -= (size_t)n;
    }
    return CHANNEL_DONE;
}

channel_result channel_read_now(channel *c, void *data, size_t capacity, size_t *got)
{
    ssize_t n;
    *got = 0;
    while ((n = read(c->fd, data, capacity)) < 0 && errno == EINTR)
        ;
    if (n > 0) {
        *got = (size_t)n;
        return CHANNEL_DONE;
    }
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? CHANNEL_NOTHING : CHANNEL_CLOSED;
}

int channel_wait_readable(channel *const *channels, size_t count, const deadline *d)
{
    struct pollfd fds[64];
    size_t i;
    if (count > 64)
        count = 64;
    for (i = 0; i < count; ++i) {
        fds[i].fd = channels[i] ? channels[i]->fd : -1; /* poll skips a negative one */
        fds[i].events = POLLIN, fds[i].revents = 0;
    }
    for (;;) {
        int n;
        if (timed_out(d))
            return -1;
        n = poll_draining(fds, (nfds_t)count, poll_timeout(d));
        if (n < 0 && errno != EINTR)
            return -1;
        for (i = 0; n > 0 && i < count; ++i)
            if (fds[i].revents)
                return (int)i;
    }
}

transfer_end channel_transfer(channel *out, const void *data, size_t length, size_t *written,
                              channel *in, void *space, size_t room, size_t *received,
                              const deadline *d)
{
    *received = 0;
    for (;;) {
        struct pollfd fds[2];
        nfds_t n = 1;
        if (timed_out(d))
            return TRANSFER_TIMED_OUT;
        fds[0].fd = in->fd, fds[0].events = POLLIN, fds[0].revents = 0;
        if (*written < length) {
            fds[1].fd = out->fd, fds[1].events = POLLOUT, fds[1].revents = 0;
            n = 2;
        }
        if (poll_draining(fds, n, poll_timeout(d)) <= 0)
            continue; /* time, or EINTR: the loop looks again */
        if (n == 2 && fds[1].revents) {
            ssize_t w = write(out->fd, (const char *)data + *written, length - *written);
            if (w > 0)
                *written += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                return TRANSFER_OUTPUT_CLOSED;
        }
        if (fds[0].revents) {
            ssize_t r = read(in->fd, space, room);
            if (r == 0)
                return TRANSFER_INPUT_CLOSED;
            if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                return TRANSFER_INPUT_CLOSED;
            if (r > 0) {
                *received = (size_t)r;
                return TRANSFER_RECEIVED;
            }
        }
    }
}

void channel_close(channel *c)
{
    if (!c)
        return;
    close(c->fd);
    free(c);
}

/* dmlref's end of a pipe: non-blocking, closed on exec; NULL (the
   descriptor closed) when it cannot be. */
static channel *channel_of(int fd)
{
    channel *c = malloc(sizeof *c);
    if (!c || !set_flag(fd, F_GETFL, F_SETFL, O_NONBLOCK) ||
        !set_flag(fd, F_GETFD, F_SETFD, FD_CLOEXEC)) {
        free(c);
        close(fd);
        return NULL;
    }
    c->fd = fd;
    return c;
}

/* ---- children ---------------------------------------------------------------------- */

struct child {
    pid_t pid; /* the leader of its group */
    int slot;  /* in group_of_slot, or -1 */
    int stop;  /* CHILD_STOP_* */
    int reaped, status;
};

/* Forks a child with a pipe each way, in a process group of its own.  In
   the child it returns 0, with *down (its input) and *up (its output) the
   child's ends; in the parent 1, with *c the child, *to_child and
   *from_child dmlref's ends; -1 (errno set, nothing open) when it
   cannot. */
static int fork_child(int stop, child **c, channel **to_child, channel **from_child, int *down_end,
                      int *up_end)
{
    int down[2], up[2], reason;
    pid_t pid;
    *c = NULL, *to_child = *from_child = NULL;
    stop_groups_on_fatal_signals();
    if (pipe(down) != 0)
        return -1;
    if (pipe(up) != 0) {
        reason = errno;
        close(down[0]), close(down[1]);
        errno = reason;
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        close(down[1]), close(up[0]);
        become_group_leader();
        *down_end = down[0], *up_end = up[1];
        return 0;
    }
    reason = errno;
    close(down[0]);
    close(up[1]);
    if (pid < 0) {
        close(down[1]), close(up[0]);
        errno = reason;
        return -1;
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    *c = calloc(1, sizeof **c);
    *to_child = channel_of(down[1]);
    *from_child = channel_of(up[0]);
    if (*c) {
        (*c)->pid = pid;
        (*c)->stop = stop;
        (*c)->slot = take_slot(pid, stop == CHILD_STOP_TERMINATE_FIRST);
    }
    if (!*c || !*to_child || !*from_child) {
        if (*c) {
            child_stop(*c);
        } else {
            kill(-pid, SIGKILL);
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
        channel_close(*to_child);
        channel_close(*from_child);
        *c = NULL, *to_child = *from_child = NULL;
        errno = ENOMEM;
        return -1;
    }
    return 1;
}

child *child_start_command(const char *command, capture *errors, channel **to_child,
                           channel **from_child)
{
    child *c;
    int down = -1, up = -1;
    if (fork_child(CHILD_STOP_KILL, &c, to_child, from_child, &down, &up) == 0) {
        dup2(down, 0);
        dup2(up, 1);
        if (errors)
            dup2(errors->write_fd, 2);
        close(down), close(up);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    return c;
}

/* ---- workers ------------------------------------------------------------------------ */

struct worker_link {
    int from_parent, to_parent;
    unsigned char *memory;
    size_t memory_size;
};

int worker_link_read(worker_link *l, void *data, size_t size)
{
    char *p = data;
    while (size) {
        ssize_t n = read(l->from_parent, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n, size -= (size_t)n;
    }
    return 1;
}

int worker_link_write(worker_link *l, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t n = write(l->to_parent, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n, size -= (size_t)n;
    }
    return 1;
}

unsigned char *worker_link_memory(worker_link *l, size_t *size)
{
    *size = l->memory_size;
    return l->memory;
}

/* In a worker: stdin from /dev/null, and no descriptor of dmlref's (a
   --jobs pipe to the parent, a capture's own) but 0, 1, 2 and the two
   pipes, which become 3 (from dmlref) and 4 (to dmlref). */
static void keep_only_standard_fds_and_pipes(int from_parent, int to_parent)
{
    int null = open("/dev/null", O_RDONLY), fd, closed, moved;
    DIR *listing;
    if (null > 0) {
        dup2(null, 0);
        close(null);
    }
    moved = fcntl(to_parent, F_DUPFD, 10); /* out of the way of 3 */
    dup2(from_parent, 3);
    dup2(moved, 4);
    fcntl(3, F_SETFD, FD_CLOEXEC); /* not for what the worker starts (a --jobs job's backend) */
    fcntl(4, F_SETFD, FD_CLOEXEC);
#if defined(__linux__) && defined(SYS_close_range)
    if (syscall(SYS_close_range, 5u, ~0u, 0u) == 0)
        return;
#endif
    /* /proc/self/fd names the open ones; elsewhere, try every number */
    do {
        struct dirent *entry;
        closed = 0;
        if (!(listing = opendir("/proc/self/fd"))) {
            long last = sysconf(_SC_OPEN_MAX);
            for (fd = 5; fd < (last < 0 || last > 65536 ? 65536 : last); ++fd)
                close(fd);
            break;
        }
        while ((entry = readdir(listing)) != NULL) {
            fd = atoi(entry->d_name);
            if (fd > 4 && fd != dirfd(listing)) {
                close(fd);
                closed = 1;
            }
        }
        closedir(listing);
    } while (closed);
}

child *child_start_worker(const worker_kind *kind, int argc, const char *const *argv,
                          shared_memory *share, capture *output, int stop, channel **to_worker,
                          channel **from_worker)
{
    child *c;
    int down = -1, up = -1;
    if (fork_child(stop, &c, to_worker, from_worker, &down, &up) == 0) {
        worker_link link;
        char **arguments = malloc(((size_t)argc + 1) * sizeof *arguments);
        int i;
        if (output) { /* what it prints goes to a file, not into dmlref's report */
            dup2(output->write_fd, 1);
            dup2(output->write_fd, 2);
        } else {
            dup2(2, 1);
        }
        keep_only_standard_fds_and_pipes(down, up);
        link.from_parent = 3, link.to_parent = 4;
        link.memory = share ? shared_memory_bytes(share) : NULL; /* the same address */
        link.memory_size = share ? shared_memory_size(share) : 0;
        if (!arguments)
            _exit(70);
        for (i = 0; i < argc; ++i)
            if (!(arguments[i] = malloc(strlen(argv[i]) + 1)))
                _exit(70);
            else
                strcpy(arguments[i], argv[i]);
        arguments[argc] = NULL;
        _exit(kind->function(&link, argc, arguments));
    }
    return c;
}

int worker_run(int argc, char **argv, const worker_kind *kinds, size_t count)
{
    (void)argc, (void)argv, (void)kinds, (void)count;
    fprintf(stderr, "dmlref: %s: only dmlref starts its workers\n", WORKER_ARGUMENT);
    return 3; /* on POSIX a worker is forked, never started by name */
}

int child_wait(child *c, double seconds)
{
    deadline d = deadline_in(seconds);
    double pause = 20e-6; /* doubling up to 33 ms: most children end at once */
    if (c->reaped)
        return 1;
    for (;;) {
        pid_t got = waitpid(c->pid, &c->status, WNOHANG);
        if (got == c->pid) {
            c->reaped = 1;
            return 1;
        }
        if (got < 0 && errno != EINTR)
            return 0;
        if (deadline_seconds_left(&d) <= 0)
            return 0;
        clock_sleep(pause);
        drain_live_captures();
        if (pause < 20e-3)
            pause *= 2;
    }
}

void child_exit_of(const child *c, child_exit *e)
{
    memset(e, 0, sizeof *e);
    if (WIFSIGNALED(c->status)) {
        e->crashed = 1;
        e->code = (unsigned long)WTERMSIG(c->status);
        snprintf(e->what, sizeof e->what, "signal %d, %s", WTERMSIG(c->status),
                 strsignal(WTERMSIG(c->status)));
    } else {
        e->code = (unsigned long)WEXITSTATUS(c->status);
        snprintf(e->what, sizeof e->what, "status %d", WEXITSTATUS(c->status));
    }
}

int child_private_memory(const child *c, unsigned long long *bytes)
{
#if defined(__linux__)
    char path[64], line[256];
    FILE *f;
    int found = 0;
    snprintf(path, sizeof path, "/proc/%ld/status", (long)c->pid);
    if (c->reaped || !(f = fopen(path, "r")))
        return 0;
    while (!found && fgets(line, sizeof line, f))
        if (strncmp(line, "RssAnon:", 8) == 0) {
            *bytes = strtoull(line + 8, NULL, 10) * 1024u; /* "RssAnon:   1234 kB" */
            found = 1;
        }
    fclose(f);
    return found;
#else
    (void)c, (void)bytes;
    return 0;
#endif
}

#if defined(__linux__)
/* The processes of the system as (pid, parent, is a zombie), from /proc;
   their number (at most `capacity`), or 0 when /proc cannot be read. */
static size_t list_processes(pid_t *pids, pid_t *parents, unsigned char *zombie, size_t capacity)
{
    DIR *listing = opendir("/proc");
    struct dirent *entry;
    size_t n = 0;
    if (!listing)
        return 0;
    while (n < capacity && (entry = readdir(listing)) != NULL) {
        char path[300], text[512], *end, state;
        FILE *f;
        size_t got;
        long parent;
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
        if (!(f = fopen(path, "r")))
            continue; /* ended meanwhile */
        got = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[got] = '\0';
        /* "PID (COMMAND) STATE PPID ...": COMMAND may hold anything, ')' too */
        if (!(end = strrchr(text, ')')) || sscanf(end + 1, " %c %ld", &state, &parent) != 2)
            continue;
        zombie[n] = state == 'Z';
        pids[n] = (pid_t)atol(entry->d_name);
        parents[n] = (pid_t)parent;
        ++n;
    }
    closedir(listing);
    return n;
}

/* Whether pid is a child this process started (a slot holds it). */
static int is_started_child(pid_t pid)
{
    size_t i;
    for (i = 0; i < GROUP_SLOTS; ++i)
        if ((pid_t)group_of_slot[i] == pid)
            return 1;
    return 0;
}

#define MOST_PROCESSES 32768

/* SIGKILL to every descendant of `root` (not root itself), and to every
   child of this process that it did not start (an orphan it adopted as
   subreaper) with its descendants; those orphans are reaped once ended
   (one that takes long is reaped by a later call).  Rounds until none is
   left, 50 at most: a process may fork while it is looked for. */
static void kill_descendants_and_orphans(pid_t root)
{
    static pid_t pids[MOST_PROCESSES], parents[MOST_PROCESSES];
    static unsigned char doomed[MOST_PROCESSES], zombie[MOST_PROCESSES];
    pid_t self = getpid();
    int round;
    for (round = 0; round < 50; ++round) {
        size_t n = list_processes(pids, parents, zombie, MOST_PROCESSES), i, found = 0;
        int grew = 1;
        for (i = 0; i < n; ++i)
            doomed[i] = (root > 0 && parents[i] == root) ||
                        (parents[i] == self && pids[i] != root && !is_started_child(pids[i]));
        while (grew) { /* their descendants, to any depth */
            size_t k;
            grew = 0;
            for (i = 0; i < n; ++i)
                for (k = 0; !doomed[i] && k < n; ++k)
                    if (doomed[k] && parents[i] == pids[k])
                        doomed[i] = 1, grew = 1;
        }
        for (i = 0; i < n; ++i)
            if (doomed[i] && !zombie[i] && kill(pids[i], SIGKILL) == 0)
                ++found;
        for (i = 0; i < n; ++i) /* the adopted ones are this process's to reap, if ended */
            if (doomed[i] && parents[i] == self)
                (void)waitpid(pids[i], NULL, WNOHANG);
        if (!found)
            return;
        clock_sleep(1e-3); /* SIGKILL takes a moment */
    }
}
#endif

void child_stop(child *c)
{
    if (!c)
        return;
    if (c->stop == CHILD_STOP_TERMINATE_FIRST && !c->reaped) {
        kill(c->pid, SIGTERM);
        child_wait(c, TERMINATE_GRACE_SECONDS);
    }
#if defined(__linux__)
    if (!c->reaped)
        kill(c->pid, SIGSTOP); /* it starts nothing more while its descendants are found */
    kill_descendants_and_orphans(c->reaped ? 0 : c->pid);
#endif
    kill(-c->pid, SIGKILL); /* what it started, too */
    if (!c->reaped)
        while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
            ;
    if (c->slot >= 0)
        group_of_slot[c->slot] = 0;
#if defined(__linux__)
    kill_descendants_and_orphans(0); /* its children, adopted now that it is gone */
#endif
    free(c);
}
