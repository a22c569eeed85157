/*
 * process.h - the processes dmlref starts: a shell command (a process
 * backend) or dmlref itself as a worker (a plug-in's host, a job of
 * check --jobs), the pipes to them, the file that catches what they print,
 * and stopping them with everything they started.
 *
 * Every wait is bounded by a deadline (src/platform/clock.h): dmlref's end
 * of a pipe never blocks past it, whatever the child does.  (A NULL
 * deadline is none: the wait ends only when the child does something.)
 *
 * A child and everything it starts are stopped as one:
 *   POSIX    a process group of its own, killed with SIGKILL (kill(-pgid));
 *            when dmlref dies of SIGINT, SIGTERM or SIGHUP, its children's
 *            groups go first.  On Linux dmlref is also the child subreaper
 *            of what it starts, and child_stop kills every descendant and
 *            every orphan it adopted, in any group or session.
 *   Windows  a Job object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, ended
 *            with TerminateJobObject; when dmlref ends in any way, its
 *            handles close and the jobs' processes end with them.
 *
 * A worker runs a worker_function of dmlref's own code:
 *   POSIX    fork(): the child calls it directly;
 *   Windows  dmlref's executable started again (GetModuleFileNameW) with
 *            WORKER_ARGUMENT first: main() hands such a command line to
 *            worker_run(), which finds the function by its name.
 * Either way the function gets the same arguments, a worker_link (its two
 * pipes and the shared memory) and a process set up the same: standard
 * input empty, standard output and error into the capture given (or
 * dmlref's standard error), nothing else of dmlref's inherited, default
 * signals (POSIX), no error dialogs and a crash ending the process with its
 * exception code (Windows).
 */
#ifndef DMLREF_PLATFORM_PROCESS_H
#define DMLREF_PLATFORM_PROCESS_H

#include "platform/clock.h"
#include "platform/memory.h"

#include <stddef.h>

/* ---- what a child prints ----------------------------------------------------------
 * Only the last bytes are kept, whatever the child prints:
 *   POSIX    a pipe, drained by every wait of dmlref's (channel_*,
 *            child_wait) into the last 64 KiB held in memory; a child that
 *            prints while dmlref is not waiting blocks until it is;
 *   Windows  a temporary file of its own (gone when closed, or when dmlref
 *            ends), appended to by the child, read by dmlref without moving
 *            the child's writing; emptied at each case (capture_clear),
 *            not capped within one. */

typedef struct capture capture;

/* NULL when no temporary file can be made (the child's output is then
   discarded). */
capture *capture_open(void);
/* Drops what was printed so far (a child still writing appends after). */
void capture_clear(capture *c);
/* The last line printed (at most capacity - 1 of its last bytes, no line
   end), "" when none. */
void capture_last_line(capture *c, char *line, size_t capacity);
void capture_close(capture *c);

/* ---- dmlref's end of a pipe to or from a child ---------------------------------------
 * Never blocks past the deadline given.  (POSIX: non-blocking descriptors
 * and poll; Windows: a uniquely named pipe opened for overlapped I/O on
 * dmlref's side, since anonymous pipes cannot time out; the child's end is
 * an ordinary handle.) */

typedef struct channel channel;

typedef enum channel_result {
    CHANNEL_DONE,      /* all of it */
    CHANNEL_CLOSED,    /* the other end is closed (or an error) */
    CHANNEL_TIMED_OUT, /* the deadline passed first */
    CHANNEL_NOTHING    /* channel_read_now: nothing has come yet */
} channel_result;

/* Writes all `size` bytes before the deadline. */
channel_result channel_write(channel *c, const void *data, size_t size, const deadline *d);

/* Reads exactly `size` bytes before the deadline. */
channel_result channel_read(channel *c, void *data, size_t size, const deadline *d);

/* Reads what has come, without waiting: CHANNEL_DONE with *got > 0 bytes,
   CHANNEL_NOTHING, or CHANNEL_CLOSED (end of file: the child closed its
   end, or ended). */
channel_result channel_read_now(channel *c, void *data, size_t capacity, size_t *got);

/* Waits until one of channels[0, count) (count at most 64; NULL entries are
   skipped) has bytes to read or has reached its end: its index, or -1
   when the deadline passed first (or none can be waited on). */
int channel_wait_readable(channel *const *channels, size_t count, const deadline *d);

/* Writing a request and reading the reply at once: a child may start
   replying before it has read all of a long request. */
typedef enum transfer_end {
    TRANSFER_RECEIVED,     /* *received > 0 bytes came into `space` */
    TRANSFER_TIMED_OUT,    /* the deadline passed first */
    TRANSFER_INPUT_CLOSED, /* `in` reached its end (or an error) */
    TRANSFER_OUTPUT_CLOSED /* `out`'s reader is gone (it stopped reading) */
} transfer_end;

/* Goes on writing data[*written, length) to `out` (*written grows with what
   went out) while waiting for bytes on `in`; returns as soon as some came,
   or the deadline passed, or either end closed.  Called again, it goes on
   where it stopped. */
transfer_end channel_transfer(channel *out, const void *data, size_t length, size_t *written,
                              channel *in, void *space, size_t room, size_t *received,
                              const deadline *d);

/* Closes dmlref's end (for the child: the end of its input); NULL is
   ignored. */
void channel_close(channel *c);

/* ---- children -------------------------------------------------------------------- */

typedef struct child child;

/* Starts `command` through the system's shell, its standard input read
   from *to_child, its standard output written to *from_child, its
   standard error into `errors` (or dmlref's own when NULL):
     POSIX    /bin/sh -c COMMAND
     Windows  cmd.exe /d /s /c "COMMAND" (%ComSpec%, through CreateProcessW;
              COMMAND in the ANSI code page, as main()'s argv has it): cmd
              runs the text between the first and the last quote as typed
   NULL (nothing open) when it cannot be started; a command the shell
   cannot find ends at once instead. */
child *child_start_command(const char *command, capture *errors, channel **to_child,
                           channel **from_child);

/* The first argument of a command line by which dmlref starts itself as a
   worker (Windows; never typed by a person). */
#define WORKER_ARGUMENT "--worker"

/* A worker's side: blocking pipes to and from dmlref, and the shared
   memory given to child_start_worker (or none). */
typedef struct worker_link worker_link;

/* 1 with all `size` bytes read; 0 at the end of input or on an error. */
int worker_link_read(worker_link *l, void *data, size_t size);
/* 1 with all written; 0 when dmlref's end is gone.  Async-signal-safe:
   usable in an access_fault_handler (fault.h). */
int worker_link_write(worker_link *l, const void *data, size_t size);
/* The worker's view of the shared memory (NULL, *size 0, when none). */
unsigned char *worker_link_memory(worker_link *l, size_t *size);

/* What a worker runs: argv[0, argc) are the arguments given to
   child_start_worker (argv[argc] is NULL).  Its return is the worker's
   exit status. */
typedef int (*worker_function)(worker_link *link, int argc, char **argv);

typedef struct worker_kind {
    const char *name; /* in the command line: letters, digits, '-' */
    worker_function function;
} worker_kind;

/* How a child is stopped. */
enum {
    CHILD_STOP_KILL = 0, /* at once: SIGKILL to its group, TerminateJobObject */
    /* POSIX: first SIGTERM to the child alone, for a worker that starts
       children of its own (in groups of their own) and ends them on
       SIGTERM (as every process that started a child does); SIGKILL to
       its group after a second.  When dmlref dies of a signal, such a
       child gets SIGTERM only.  Windows: as CHILD_STOP_KILL (jobs nest). */
    CHILD_STOP_TERMINATE_FIRST = 1
};

/* Starts a worker running kind->function(link, argc, argv) in a process of
   its own, with `share` (may be NULL) as its shared memory: *to_worker
   writes to its link, *from_worker reads what it writes to its link; its
   standard output and error into `output` (or dmlref's standard error when
   NULL).  `stop` is a CHILD_STOP_*.  NULL (nothing open) when it cannot be
   started. */
child *child_start_worker(const worker_kind *kind, int argc, const char *const *argv,
                          shared_memory *share, capture *output, int stop, channel **to_worker,
                          channel **from_worker);

/* In main(), when argv[1] is WORKER_ARGUMENT: sets up the process as a
   worker, runs the function of the kind its command line names (one of
   kinds[0, count)) and returns its exit status (EXIT_USAGE-like 3, with a
   message, for a command line that is not a worker's). */
int worker_run(int argc, char **argv, const worker_kind *kinds, size_t count);

/* Waits up to `seconds` (0: only looks) for the child to exit: 1 when it
   has (its exit is then known), 0 when not. */
int child_wait(child *c, double seconds);

/* How a child that exited ended (child_wait gave 1). */
typedef struct child_exit {
    int crashed;        /* a signal (POSIX) or an exception code (Windows) ended it */
    unsigned long code; /* the exit status, the signal, or the exception code */
    char what[96];      /* crashed: "signal 11, Segmentation fault",
                           "exception 0xC0000005, access violation" */
} child_exit;
void child_exit_of(const child *c, child_exit *e);

/* The child's private memory in bytes (Linux: RssAnon; Windows: its
   private commit or its working set, whichever is larger): 1, or 0 where
   the system does not tell. */
int child_private_memory(const child *c, unsigned long long *bytes);

/* Stops the child and everything it started (as its kind of stop says),
   waits for it to end, and frees it.  NULL is ignored.  Everything it
   started: POSIX its process group; on Linux also every descendant,
   whatever group or session it joined, and whatever it left behind (dmlref
   is their subreaper); Windows its Job object, which no process in it can
   leave (no breakaway is allowed). */
void child_stop(child *c);

#endif /* DMLREF_PLATFORM_PROCESS_H */
