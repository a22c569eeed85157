/*
 * conformance.h - what dmlref check's pieces share (not installed).
 */
#ifndef DMLREF_CONFORMANCE_H
#define DMLREF_CONFORMANCE_H

#include "command_base/command_base.h"
#include "core/kernels_compare.h"
#include "platform/process.h"
#include "suite/suite.h"
#include "dmlref/backend.h"

#include <stdarg.h>
#include <stddef.h>

/* dmlref check: returns an exit code; its help text. */
/* What dmlref check runs and how (src/cli parses them from the command line). */
typedef struct check_options {
    const char *backend, *exec, *backend_options, *junit, *json, *rerun;
    path_list filters, excludes, rerun_names;
    dmlref_feature_level level; /* 0: the backend's own */
    double timeout;
    unsigned long max_failures;  /* 0: no limit */
    unsigned long shard, shards; /* this run takes file k when k % shards == shard - 1 */
    unsigned long jobs;
    int verbose, strict_status, list;
} check_options;

/* dmlref check over the vectors under `paths` (files or folders): prints a
   line per failed case and the summary, writes the reports; returns an exit
   code.  Frees o->rerun_names. */
int check_run(check_options *o, path_list *paths);

/* The most backends check runs at once (--jobs). */
#define CHECK_MAX_JOBS 64

/* A job of check --jobs: a worker process (src/platform/process.h) that
   runs the cases its parent sends down its link on a backend of its own and
   sends back a record for each.  The harness's table of worker kinds names
   it (CHECK_JOB_WORKER, check_job_worker), so that on Windows, where a
   worker is dmlref started again, dmlref finds the function by its name. */
#define CHECK_JOB_WORKER "check-job"
int check_job_worker(worker_link *link, int argc, char **argv);

/* dmlref fuzz: returns an exit code. */
/* What dmlref fuzz runs and how (src/cli parses them from the command line). */
typedef struct fuzz_options {
    const char *library, *command, *options; /* the backend: --backend, --exec */
    int fast_kernels;                        /* or the fast kernels, in this process */
    const char *out_dir;                     /* where shrunk failures go */
    dmlref_operator_type op;                 /* 0: every operator */
    uint64_t seed, cases, shrink_limit;
    int cases_given;         /* --cases, even 0 */
    double seconds, timeout; /* --time (0: by --cases), per case */
} fuzz_options;

/* dmlref fuzz: random cases against the reference, each failure shrunk and
   written; prints a line per failure and the summary; returns an exit code. */
int fuzz_run(const fuzz_options *o);

typedef enum case_result { CASE_PASS, CASE_FAIL, CASE_SKIP, CASE_ERROR } case_result;

/* How a backend answered one case. */
typedef enum run_kind {
    RUN_OUTPUTS,     /* it ran and left outputs */
    RUN_UNSUPPORTED, /* it does not support the case */
    RUN_REFUSED,     /* it refused the case, or failed with a status */
    RUN_ERROR        /* it crashed, hung, or answered nonsense */
} run_kind;

enum {
    DAMAGE_NONE = 0,
    DAMAGE_PAST_END,
    DAMAGE_BEFORE_START,
    DAMAGE_INPUT_WRITTEN,
    DAMAGE_OUTSIDE
};

typedef struct backend_run {
    run_kind kind;
    dmlref_status status; /* RUN_REFUSED: the status the backend named, or DMLREF_OK */
    char rule[DMLREF_ERROR_RULE_CAPACITY]; /* RUN_REFUSED: the rule it named, or "" */
    int fatal;              /* RUN_ERROR: the backend cannot run at all (create() failed) */
    int damage;             /* DAMAGE_*: a write outside an output's bytes */
    size_t damaged_tensor;  /* binding order */
    uint64_t damage_offset; /* DAMAGE_PAST_END: from the tensor's start; DAMAGE_BEFORE_START:
                               bytes before it */
    int damage_fault;       /* the access hit a guard page (a read or a write) */
    char message[640];
    /* Found while starting this case: the backend wrote after its reply to
       the case before, which is that case's fault, not this one's. */
    int late;
    char late_message[256];
    /* The backend's time: from handing it the case (starting it first, if
       it was not running) to its answer, or to the end of waiting for one.
       dmlref's own work around it (laying out and filling the buffers,
       writing the request, reading the outputs back) is not in it. */
    double seconds;
} backend_run;

/* A backend under test: a plug-in (run in a child worker) or a process
   speaking JSON Lines.  NULL, with a message on stderr, when it cannot be
   loaded. */
typedef struct backend backend;
backend *backend_open(const char *library_path, const char *command, const char *options,
                      double timeout);
const char *backend_name(const backend *b);
const char *backend_version(const backend *b);
dmlref_feature_level backend_max_level(const backend *b);
/* Runs one case, within the backend's timeout. */
void backend_run_case(backend *b, dmlref_vector *v, dmlref_feature_level level, backend_run *run);
/* After the last case: late->late says whether the backend wrote after its
   last reply. */
void backend_finish(backend *b, backend_run *late);
/* Ends the backend and everything it started. */
void backend_close(backend *b);

/* dmlref started again as one of the harness's worker processes (a
   plug-in's host: src/platform/process.h): main() asks first thing whether
   its command line is a worker's, and if so returns what
   conformance_worker_main returns. */
int conformance_is_worker(int argc, char **argv);
int conformance_worker_main(int argc, char **argv);

/* What a case must come to when a backend runs it at `level`, by the oracle:
   refused (the status and rule dmlref_validate() gives at that level, or the
   vector's out-of-range refusal), or the vector's outputs.  A vector refused
   at its own level but valid at `level` states no outputs for it: undecided. */
typedef struct expectation {
    dmlref_feature_level level;
    int must_refuse;
    dmlref_status status;
    char rule[DMLREF_ERROR_RULE_CAPACITY];
    int undecided;
} expectation;
void expectation_at(const dmlref_vector *v, dmlref_feature_level level, expectation *e);

/* What a run of one case comes to, with a one-line message.  With
   strict_status a refusal must name the status the oracle gives (and, if it
   names a rule, the same rule).  An answer that the backend cannot run the
   case (a process's "unsupported", or a refusal naming
   DMLREF_ERROR_UNSUPPORTED_*, a plug-in's supports() included) is a skip,
   except where the oracle refuses the case with that very status: a correct
   refusal. */
case_result judge_run(dmlref_vector *v, const expectation *e, const backend_run *run,
                      int strict_status, char *message, size_t capacity);
/* Whether the backend answered that it cannot run the case (judge_run's
   "unsupported"): a pass so answered shows nothing it implements. */
int run_says_unsupported(const backend_run *run);
/* judge_run, and for a failure that names a wrong element, that element as
   dmlref explain --element takes it ("OutputTensor[0,1]"); else "". */
case_result judge_run_naming(dmlref_vector *v, const expectation *e, const backend_run *run,
                             int strict_status, char *message, size_t capacity, char *element,
                             size_t element_capacity);
/* judge_run at the vector's own feature level, statuses not compared. */
case_result judge_case(dmlref_vector *v, const backend_run *run, char *message, size_t capacity);

/* ---- the fast kernels against the reference kernels (fuzz.c) -----------------
 * dmlref fuzz --kernels fast, and dmlref verify and eval --kernels fast: the
 * vector's case through kernels_compare (src/core/kernels_compare.h), on its
 * input buffers, at its feature level and under its out-of-range policy,
 * both kernels on `threads` threads (0: OpenMP's default).  Returns k->same;
 * the vector's own output buffers are left as they were. */
int kernels_compare_vector(dmlref_vector *v, uint32_t threads, kernels_comparison *k);

#endif /* DMLREF_CONFORMANCE_H */
