/*
 * process_posix.c - process.h on POSIX: fork, a process group per child,
 * non-blocking pipes and poll, an unlinked temporary file for what a child
 * prints.
 *
 * The groups of the children alive are kept where a signal handler can
 * reach them: when dmlref dies of SIGINT, SIGTERM or SIGHUP, they die
 * first.  SIGPIPE is ignored once a child has been started: a child that
 * stopped reading is found by the write's error.
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
#include <sys/syscall.h> /* SYS_close_range */
#endif
#include <sys/wait.h>
#include <unistd.h>

/* After SIGTERM, a CHILD_STOP_TERMINATE_FIRST child gets this long to end
   what it started and itself. */
#define TERMINATE_GRACE_SECONDS 1.0

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
}

static int set_flag(int fd, int get, int set, int flag)
{
    int flags = fcntl(fd, get);
    return flags >= 0 && fcntl(fd, set, flags | flag) == 0;
}

/* ---- what a child prints ---------------------------------------------------------- */

struct capture {
    int fd; /* appended to by children, read with pread */
};

capture *capture_open(void)
{
    capture *c = malloc(sizeof *c);
    FILE *f = tmpfile();
    int fd = f ? dup(fileno(f)) : -1;
    if (f)
        fclose(f);
    if (fd >= 0 && (!set_flag(fd, F_GETFL, F_SETFL, O_APPEND) ||
                    !set_flag(fd, F_GETFD, F_SETFD, FD_CLOEXEC))) {
        close(fd);
        fd = -1;
    }
    if (!c || fd < 0) {
        free(c);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    c->fd = fd;
    return c;
}

void capture_clear(capture *c)
{
    if (c && ftruncate(c->fd, 0) != 0)
        return; /* older lines may be quoted */
}

void capture_last_line(const capture *c, char *line, size_t capacity)
{
    char tail[256];
    struct stat st;
    off_t from;
    ssize_t got;
    size_t n;
    if (capacity)
        line[0] = '\0';
    if (!c || !capacity || fstat(c->fd, &st) != 0 || st.st_size <= 0)
        return;
    from = st.st_size > (off_t)(sizeof tail - 1) ? st.st_size - (off_t)(sizeof tail - 1) : 0;
    got = pread(c->fd, tail, sizeof tail - 1, from);
    if (got <= 0)
        return;
    n = (size_t)got;
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        --n; /* the last line, without its newline */
    tail[n] = '\0';
    while (n > 0 && tail[n - 1] != '\n')
        --n;
    snprintf(line, capacity, "%s", tail + n);
}

void capture_close(capture *c)
{
    if (!c)
        return;
    close(c->fd);
    free(c);
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
        if (poll(&pfd, 1, poll_timeout(d)) <= 0)
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
        if (poll(&pfd, 1, poll_timeout(d)) <= 0)
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
        n = poll(fds, (nfds_t)count, poll_timeout(d));
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
        if (poll(fds, n, poll_timeout(d)) <= 0)
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
            dup2(errors->fd, 2);
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
            dup2(output->fd, 1);
            dup2(output->fd, 2);
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

void child_stop(child *c)
{
    if (!c)
        return;
    if (c->stop == CHILD_STOP_TERMINATE_FIRST && !c->reaped) {
        kill(c->pid, SIGTERM);
        child_wait(c, TERMINATE_GRACE_SECONDS);
    }
    kill(-c->pid, SIGKILL); /* what it started, too */
    if (!c->reaped)
        while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
            ;
    if (c->slot >= 0)
        group_of_slot[c->slot] = 0;
    free(c);
}
