/*
 * backend.c - how dmlref check and dmlref fuzz reach an implementation:
 *   - a plug-in (include/dmlref/backend.h), run for each case in a worker
 *     process of its own (src/platform/process.h): its buffers lie in
 *     memory shared with dmlref, each between pages the worker cannot touch
 *     (an access there faults and is reported as such), and every byte
 *     between them is checked after the case; whatever the case leaves behind
 *     (a thread, a second reply, a crash in destroy(), a changed working
 *     folder) dies with its process and is charged to it;
 *   - a process speaking JSON Lines (docs/conformance.md): one case per line
 *     on its stdin, one reply per line on its stdout, restarted after a
 *     crash, a hang or a malformed reply.
 *
 * Every wait is bounded.  Each backend runs with everything it starts as
 * one child (a process group, a Job object), and a case's deadline
 * (--timeout) covers writing the request, running and replying; when it
 * passes, or the backend stops reading or writing, the whole child is
 * killed.  Time dmlref spends itself (writing the request's text, reading
 * the reply's) is not charged.  A backend's stdout (plug-in) and stderr go
 * to a capture of their own (src/platform/process.h: its last bytes only),
 * never into dmlref's report: the last line is quoted when a case ends in
 * an error.  Not even a plug-in's load-time code runs in dmlref: its name,
 * version and level come from its first worker.
 */
#include "conformance/conformance.h"
#include "conformance/line_reader.h"
#include "core/core.h"
#include "platform/clock.h"
#include "platform/fault.h"
#include "platform/library.h"
#include "platform/memory.h"
#include "platform/process.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define GUARD_FILL 0xFDu
#define OUTPUT_FILL 0xCDu /* outputs start as this, so an unwritten element shows */

/* After its reply (or after closing its pipe), a child gets this long, at
   least, to exit before it is killed. */
#define EXIT_GRACE_SECONDS 1.0

/* How much a plug-in's worker may grow (MiB of private memory since its
   first case) before it is started again; DMLREF_PLUGIN_MEMORY_GROWTH_MB
   sets another. */
#define PLUGIN_MEMORY_GROWTH_MB 2048

/* The worker's exit status after it reported a touch of a guard page. */
#define WORKER_FAULT_EXIT 70

/* How a child's exit reads in a message. */
static void describe_exit(const child *c, char *buf, size_t capacity)
{
    child_exit e;
    child_exit_of(c, &e);
    if (e.crashed)
        snprintf(buf, capacity, "the backend crashed (%s)", e.what);
    else
        snprintf(buf, capacity, "the backend's process exited (status %lu)", e.code);
}

/* Appends "; <label> ends: <its last line>" to message, if it printed any. */
static void append_last_line(capture *c, const char *label, char *message, size_t capacity)
{
    char line[256];
    size_t used = strlen(message);
    capture_last_line(c, line, sizeof line);
    if (line[0])
        snprintf(message + used, capacity - used, "; %s ends: %s", label, line);
}

/* ---- the plug-in's buffers ------------------------------------------------------------
 * Shared memory laid out as [guard pages][buffer, its last page's rest]... with
 * one more guard page at the end.  Each buffer starts on a page boundary (and
 * on its GuaranteedBaseOffsetAlignment, whatever it is), so the bytes before
 * it are a guard page; past its end, the rest of its last page is filled and
 * checked byte for byte, then the next guard page.  The worker maps the
 * guard pages inaccessible for each case.  The layout says where in
 * offsets from the memory's start, since the worker's view may lie at
 * another address (the alignments hold in both up to
 * MEMORY_SHARED_ALIGNMENT). */

typedef struct arena_layout {
    uint64_t alignment;   /* of the base: the largest of the buffers' */
    uint64_t base_offset; /* of the aligned base, from the mapping's start (set by arena_fill) */
    uint64_t total;       /* bytes from the base, the last guard page included */
    uint64_t page;
    uint32_t count; /* tensors, in binding order */
    /* from the base (at least a page); start 0: no buffer */
    uint64_t start[OPERATOR_MAX_TENSORS], size[OPERATOR_MAX_TENSORS];
} arena_layout;

static size_t align_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

static const dmlref_binding *binding_of(const dmlref_vector *v, size_t i)
{
    size_t n_in = dmlref_vector_input_count(v);
    return i < n_in ? &dmlref_vector_inputs(v)[i] : &dmlref_vector_outputs(v)[i - n_in];
}

/* The tensor descriptors in binding order; their number. */
static size_t tensor_descs(const dmlref_operator_desc *op,
                           const dmlref_tensor_desc *out[OPERATOR_MAX_TENSORS])
{
    const operator_info *row = operator_find(op->Type);
    if (!row)
        return 0;
    operator_desc_tensors(row, op->Desc, out);
    return row->input_count + row->output_count;
}

/* Lays out the buffers of v: *mapping_needed is the size of mapping they
   take, the largest alignment's slack included. */
static void arena_lay_out(arena_layout *a, const dmlref_vector *v, size_t *mapping_needed)
{
    const dmlref_tensor_desc *descs[OPERATOR_MAX_TENSORS] = {NULL};
    size_t i, cursor = 0, largest;
    memset(a, 0, sizeof *a);
    a->page = memory_page_size();
    a->count = (uint32_t)(dmlref_vector_input_count(v) + dmlref_vector_output_count(v));
    tensor_descs(dmlref_vector_operator(v), descs);
    largest = (size_t)a->page;
    for (i = 0; i < a->count; ++i) {
        const dmlref_binding *b = binding_of(v, i);
        size_t alignment = (size_t)a->page;
        if (!b->data)
            continue; /* a case without data: no buffer */
        if (descs[i] && descs[i]->GuaranteedBaseOffsetAlignment > alignment &&
            (descs[i]->GuaranteedBaseOffsetAlignment &
             (descs[i]->GuaranteedBaseOffsetAlignment - 1)) == 0)
            alignment =
                descs[i]->GuaranteedBaseOffsetAlignment; /* a power of two: page-aligned too */
        if (alignment > largest)
            largest = alignment;
        a->start[i] = align_up(cursor + (size_t)a->page, alignment); /* a guard page before */
        a->size[i] = b->size_in_bytes;
        cursor = align_up((size_t)(a->start[i] + a->size[i]), (size_t)a->page);
    }
    a->total = cursor + a->page;
    a->alignment = largest;
    *mapping_needed = (size_t)a->total + largest; /* room to align the base wherever it falls */
}

/* Fills the buffers (inputs, poisoned outputs) in the slot of the mapping
   that starts at `slot`, and every byte between them (the guard pages
   too: a plug-in that lifts their protection and writes there is found by
   its bytes). */
static void arena_fill(arena_layout *a, unsigned char *mapping, size_t slot, const dmlref_vector *v)
{
    size_t largest = (size_t)a->alignment, i, gap_from = 0;
    unsigned char *base = mapping + slot +
                          (align_up((size_t)(uintptr_t)(mapping + slot), largest) -
                           (size_t)(uintptr_t)(mapping + slot));
    a->base_offset = (uint64_t)(base - mapping);
    for (i = 0; i < a->count; ++i) {
        size_t start = (size_t)a->start[i], size = (size_t)a->size[i];
        if (!size)
            continue;
        memset(base + gap_from, GUARD_FILL, start - gap_from);
        if (i < dmlref_vector_input_count(v))
            memcpy(base + start, binding_of(v, i)->data, size);
        else
            memset(base + start, OUTPUT_FILL, size);
        gap_from = start + size;
    }
    memset(base + gap_from, GUARD_FILL, (size_t)a->total - gap_from);
}

/* The first byte between the buffers that is not GUARD_FILL, charged to the
   nearer buffer: 1 with run->damage set, 0 when all are intact. */
static int arena_find_guard_damage(const arena_layout *a, const unsigned char *base,
                                   backend_run *run)
{
    size_t i, gap_from = 0, previous = (size_t)-1;
    for (i = 0; i <= a->count; ++i) {
        size_t gap_to = i < a->count ? (size_t)a->start[i] : (size_t)a->total, k;
        if (i < a->count && !a->size[i])
            continue;
        for (k = gap_from; k < gap_to && base[k] == GUARD_FILL; ++k)
            ;
        if (k < gap_to && previous == (size_t)-1 && i == a->count) {
            run->damage = DAMAGE_OUTSIDE;
            return 1;
        }
        if (k < gap_to) {
            int past = previous != (size_t)-1 &&
                       (i == a->count || k - gap_from < gap_to - k); /* the nearer buffer */
            run->damage = past ? DAMAGE_PAST_END : DAMAGE_BEFORE_START;
            run->damaged_tensor = past ? previous : i;
            run->damage_offset = past ? k - (size_t)a->start[previous] : gap_to - k;
            return 1;
        }
        if (i < a->count) {
            previous = i;
            gap_from = (size_t)(a->start[i] + a->size[i]);
        }
    }
    return 0;
}

/* ---- the plug-in's worker -----------------------------------------------------------
 * A child process that serves one case at a time (the worker kind
 * "plugin": a fork of dmlref on POSIX, dmlref started again on Windows).
 * It loads the plug-in and calls create() once; then each request carries
 * the operator's descriptor and where the buffers lie, so nothing the
 * plug-in does to the process (a changed working folder, closed files)
 * changes what it is asked.  Started from a process that never ran an
 * OpenMP team (dmlref evaluates on one thread), so an OpenMP plug-in runs
 * in a worker started again after a crash as in the first. */
typedef struct wire_tensor {
    uint32_t data_type, flags, dimension_count, alignment, has_strides;
    uint32_t sizes[8], strides[8];
    uint64_t total_bytes;
} wire_tensor;

typedef struct worker_request {
    uint64_t sequence;
    uint32_t level, op_type, tensor_count, has_data;
    uint32_t attributes[OPERATOR_MAX_ATTRIBUTES]; /* the operator's, in field order */
    wire_tensor tensors[OPERATOR_MAX_TENSORS];    /* binding order */
    arena_layout layout;
} worker_request;

typedef struct worker_reply {
    uint64_t sequence; /* the request's */
    int32_t kind;      /* REPLY_* */
    int32_t status;
    int32_t tensor;    /* REPLY_GUARD_FAULT: the tensor whose guard was touched */
    int32_t before;    /* REPLY_GUARD_FAULT: 1 before its start, 0 past its end */
    uint64_t offset;   /* REPLY_GUARD_FAULT: bytes before its start / from its start */
    char message[512]; /* REPLY_READY: the plug-in's name */
    char version[128]; /* REPLY_READY */
} worker_reply;

enum {
    REPLY_RAN = 0,
    REPLY_UNSUPPORTED = 1,
    REPLY_REFUSED = 2,
    REPLY_CREATE_FAILED = 3, /* the plug-in's create() failed: it cannot run at all */
    REPLY_GUARD_FAULT = 4,   /* it touched a guard page */
    REPLY_LATE_FAULT = 5,    /* it touched the case before's buffers: a thread outlived it */
    /* the worker's first words, unasked: the plug-in is loaded and created
       (status: its max_feature_level), or REPLY_CREATE_FAILED */
    REPLY_READY = 6
};

static void request_encode(worker_request *q, const dmlref_vector *v, dmlref_feature_level level)
{
    const dmlref_operator_desc *op = dmlref_vector_operator(v);
    const operator_info *row = operator_find(op->Type); /* a vector's operator has a row */
    const dmlref_tensor_desc *descs[OPERATOR_MAX_TENSORS] = {NULL};
    size_t i, n = tensor_descs(op, descs);
    q->level = (uint32_t)level;
    q->op_type = (uint32_t)op->Type;
    q->tensor_count = (uint32_t)n;
    q->has_data = (uint32_t)dmlref_vector_has_data(v);
    if (row)
        operator_desc_attributes(row, op->Desc, q->attributes);
    for (i = 0; i < n; ++i) {
        wire_tensor *t = &q->tensors[i];
        uint32_t k, rank = descs[i]->DimensionCount;
        t->data_type = (uint32_t)descs[i]->DataType;
        t->flags = descs[i]->Flags;
        t->dimension_count = rank;
        t->alignment = descs[i]->GuaranteedBaseOffsetAlignment;
        t->has_strides = descs[i]->Strides != NULL;
        t->total_bytes = descs[i]->TotalTensorSizeInBytes;
        for (k = 0; k < rank && k < DMLREF_TENSOR_DIMENSION_COUNT_MAX; ++k) {
            t->sizes[k] = descs[i]->Sizes[k];
            t->strides[k] = descs[i]->Strides ? descs[i]->Strides[k] : 0;
        }
    }
}

/* The descriptor a request carries, rebuilt in the worker's own memory. */
typedef struct decoded {
    dmlref_tensor_desc tensors[OPERATOR_MAX_TENSORS];
    operator_desc_storage desc;
    dmlref_operator_desc op;
} decoded;

/* The operator's row (NULL: none, and no descriptor). */
static const operator_info *request_decode(worker_request *q, decoded *d)
{
    const dmlref_tensor_desc *t[OPERATOR_MAX_TENSORS];
    const operator_info *row = operator_find((dmlref_operator_type)q->op_type);
    uint32_t i;
    memset(d, 0, sizeof *d);
    for (i = 0; i < q->tensor_count && i < OPERATOR_MAX_TENSORS; ++i) {
        wire_tensor *w = &q->tensors[i];
        d->tensors[i].DataType = (dmlref_tensor_data_type)w->data_type;
        d->tensors[i].Flags = w->flags;
        d->tensors[i].DimensionCount = w->dimension_count;
        d->tensors[i].Sizes = w->sizes;
        d->tensors[i].Strides = w->has_strides ? w->strides : NULL;
        d->tensors[i].TotalTensorSizeInBytes = w->total_bytes;
        d->tensors[i].GuaranteedBaseOffsetAlignment = w->alignment;
    }
    for (i = 0; i < OPERATOR_MAX_TENSORS; ++i)
        t[i] = &d->tensors[i];
    d->op.Type = (dmlref_operator_type)q->op_type;
    d->op.Desc = d->desc.bytes;
    if (row)
        operator_desc_build(row, d->desc.bytes, t, q->attributes);
    return row;
}

/* What the fault handler needs: the case at hand's layout, the mapping. */
static unsigned char *fault_mapping;
static size_t fault_mapping_size;
static unsigned char *fault_base;
static arena_layout fault_layout;
static unsigned char *previous_base; /* the case before's buffers, or NULL */
static arena_layout previous_layout;
static uint64_t fault_sequence;
static worker_link *fault_link;

/* A fault inside the case's part of the mapping is a touch of a guard page
   (the buffers are readable and writable): reply so, and end.  Elsewhere in
   the mapping it is a touch of the case before's buffers (the two cases lie
   in different halves): a thread that outlived it.  Anything else is the
   backend's own crash: it goes on as a crash once the handler returns. */
static void on_access_fault(uintptr_t address)
{
    uintptr_t base = (uintptr_t)fault_base;
    const arena_layout *a = &fault_layout;
    if (fault_base && address >= base && address < base + a->total) {
        uint64_t offset = (uint64_t)(address - base);
        size_t i, before = (size_t)-1, after = (size_t)-1;
        worker_reply r;
        memset(&r, 0, sizeof r);
        r.sequence = fault_sequence;
        r.kind = REPLY_GUARD_FAULT;
        for (i = 0; i < a->count; ++i) { /* the nearest buffer on either side */
            if (!a->size[i])
                continue;
            if (a->start[i] > offset && before == (size_t)-1)
                before = i;
            if (a->start[i] + a->size[i] <= offset)
                after = i;
        }
        if (after != (size_t)-1 &&
            (before == (size_t)-1 ||
             offset - (a->start[after] + a->size[after]) < a->start[before] - offset)) {
            r.tensor = (int32_t)after, r.before = 0;
            r.offset = offset - a->start[after];
        } else if (before != (size_t)-1) {
            r.tensor = (int32_t)before, r.before = 1;
            r.offset = a->start[before] - offset;
        }
        worker_link_write(fault_link, &r, sizeof r);
        process_exit_now(WORKER_FAULT_EXIT);
    }
    if (fault_mapping && address >= (uintptr_t)fault_mapping &&
        address < (uintptr_t)fault_mapping + fault_mapping_size) {
        worker_reply r;
        size_t i;
        memset(&r, 0, sizeof r);
        r.sequence = fault_sequence;
        r.kind = REPLY_GUARD_FAULT;
        r.tensor = -1; /* far from every buffer of the case */
        for (i = 0; previous_base && i < previous_layout.count; ++i)
            if (address >= (uintptr_t)(previous_base + previous_layout.start[i]) &&
                address <
                    (uintptr_t)(previous_base + previous_layout.start[i] + previous_layout.size[i]))
                r.kind = REPLY_LATE_FAULT;
        worker_link_write(fault_link, &r, sizeof r);
        process_exit_now(WORKER_FAULT_EXIT);
    }
}

/* Sets the access to a layout's buffers: their pages, the rest of the last
   page included. */
static void protect_buffers(unsigned char *base, const arena_layout *a, memory_access access)
{
    size_t i;
    for (i = 0; i < a->count; ++i)
        if (a->size[i])
            memory_protect(base + a->start[i],
                           align_up((size_t)(a->start[i] + a->size[i]), (size_t)a->page) -
                               (size_t)a->start[i],
                           access);
}

/* The plug-in's table, loaded in this process (a worker: never dmlref
   itself, whose process its load-time code must not touch); NULL with a
   message. */
static const dmlref_backend_v1 *load_plugin(const char *path, char *message, size_t capacity)
{
    char reason[256];
    library *l = library_open(path, reason, sizeof reason); /* kept until exit */
    dmlref_backend_entry_fn entry;
    const dmlref_backend_v1 *table;
    if (!l) {
        snprintf(message, capacity, "cannot load: %s", reason);
        return NULL;
    }
    entry = (dmlref_backend_entry_fn)library_find(l, DMLREF_BACKEND_ENTRY_SYMBOL);
    table = entry ? entry(DMLREF_BACKEND_ABI_VERSION) : NULL;
    if (!table || table->abi_version != DMLREF_BACKEND_ABI_VERSION ||
        table->struct_size < sizeof(dmlref_backend_v1) || !table->create || !table->supports ||
        !table->execute || !table->destroy) {
        snprintf(message, capacity, "no %s for ABI version %u (or an incomplete table)",
                 DMLREF_BACKEND_ENTRY_SYMBOL, DMLREF_BACKEND_ABI_VERSION);
        return NULL;
    }
    return table;
}

/* The worker: loads the plug-in (argv[0]; argv[1] the options, if any),
   create(), says REPLY_READY (or why not), then one reply for each request
   until dmlref closes the pipe. */
static int plugin_worker(worker_link *link, int argc, char **argv)
{
    void *context = NULL;
    worker_reply r;
    worker_request q;
    const dmlref_backend_v1 *table;
    size_t mapping_size;
    unsigned char *mapping = worker_link_memory(link, &mapping_size);

    memset(&r, 0, sizeof r);
    fault_link = link;
    fault_mapping = mapping, fault_mapping_size = mapping_size;
    memory_protect(mapping, mapping_size, MEMORY_NO_ACCESS); /* each case opens its buffers */
    memory_keep_from_children(mapping, mapping_size);        /* a fork of the plug-in's lives on */
    fault_catch_access(on_access_fault);
    table = argc >= 1 ? load_plugin(argv[0], r.message, sizeof r.message) : NULL;
    if (!table) {
        r.kind = REPLY_CREATE_FAILED;
        worker_link_write(link, &r, sizeof r);
        process_exit_now(0);
    }
    if (table->create(argc >= 2 ? argv[1] : NULL, &context, r.message, sizeof r.message) !=
        DMLREF_OK) {
        char reason[sizeof r.message];
        memcpy(reason, r.message, sizeof reason);
        reason[sizeof reason - 1] = '\0';
        memset(&r, 0, sizeof r);
        r.kind = REPLY_CREATE_FAILED;
        snprintf(r.message, sizeof r.message, "the plug-in's create() failed: %.400s",
                 reason[0] ? reason : "(no message)");
        worker_link_write(link, &r, sizeof r);
        process_exit_now(0);
    }
    r.kind = REPLY_READY;
    r.status = (int32_t)table->max_feature_level;
    snprintf(r.message, sizeof r.message, "%s", table->name ? table->name : argv[0]);
    snprintf(r.version, sizeof r.version, "%s", table->version ? table->version : "");
    if (!worker_link_write(link, &r, sizeof r))
        process_exit_now(0);
    while (worker_link_read(link, &q, sizeof q)) { /* one write each: atomic */
        unsigned char *base = mapping + q.layout.base_offset;
        dmlref_binding bindings[OPERATOR_MAX_TENSORS];
        decoded d;
        const operator_info *row = request_decode(&q, &d);
        uint32_t i, n_in = row ? (uint32_t)row->input_count : 0;
        memset(&r, 0, sizeof r);
        r.sequence = q.sequence;
        for (i = 0; i < q.layout.count && i < OPERATOR_MAX_TENSORS; ++i) {
            bindings[i].data = q.layout.start[i] ? base + q.layout.start[i] : NULL;
            bindings[i].size_in_bytes = q.layout.size[i];
        }
        /* all of the mapping is a guard but the case's own buffers: the case
           before's become guards again, this one's open */
        if (fault_base) {
            previous_layout = fault_layout, previous_base = fault_base;
            protect_buffers(previous_base, &previous_layout, MEMORY_NO_ACCESS);
        }
        fault_layout = q.layout, fault_sequence = q.sequence, fault_base = base;
        protect_buffers(base, &q.layout, MEMORY_READ_WRITE);
        r.status = (int32_t)table->supports(context, &d.op, (dmlref_feature_level)q.level);
        if (r.status == DMLREF_OK && !q.has_data) {
            /* a case that must be refused and lacks buffers (a shape that
               cannot hold data): supports() is where a backend must refuse it */
            r.kind = REPLY_RAN;
            snprintf(r.message, sizeof r.message, "supports() accepted it");
        } else if (r.status == DMLREF_OK) {
            r.status = (int32_t)table->execute(context, &d.op, (dmlref_feature_level)q.level,
                                               bindings, n_in, bindings + n_in,
                                               q.layout.count - n_in, r.message, sizeof r.message);
            r.kind = r.status == DMLREF_OK ? REPLY_RAN : REPLY_REFUSED;
        } else {
            r.kind = (r.status >= DMLREF_ERROR_UNSUPPORTED_OPERATOR &&
                      r.status <= DMLREF_ERROR_UNSUPPORTED_LAYOUT)
                         ? REPLY_UNSUPPORTED
                         : REPLY_REFUSED;
            snprintf(r.message, sizeof r.message, "supports: %s",
                     dmlref_status_name((dmlref_status)r.status));
        }
        r.message[sizeof r.message - 1] = '\0';
        if (!worker_link_write(link, &r, sizeof r))
            break;
    }
    table->destroy(context);
    process_exit_now(0);
    return 0;
}

int conformance_is_worker(int argc, char **argv)
{
    return argc > 1 && strcmp(argv[1], WORKER_ARGUMENT) == 0;
}

int conformance_worker_main(int argc, char **argv)
{
    static const worker_kind kinds[] = {{"plugin", plugin_worker},
                                        {CHECK_JOB_WORKER, check_job_worker}};
    return worker_run(argc, argv, kinds, sizeof kinds / sizeof *kinds);
}

typedef struct plugin {
    const char *library_path;
    const char *options;
    capture *log;          /* its stdout and stderr */
    shared_memory *memory; /* the buffers */
    unsigned char *mapping;
    size_t mapping_size;
    child *worker; /* NULL when none */
    channel *to_worker, *from_worker;
    uint64_t sequence;
    /* what the last case left, to see a write that comes after its reply */
    int answered;
    uint64_t left_digest;
    size_t left_from, left_size;
    /* what the worker said when it started */
    char name[512], version[128];
    int32_t max_level;
    /* the worker's private memory after its first case (0: not yet known) */
    unsigned long long memory_after_first;
    unsigned long long memory_growth_limit; /* bytes */
} plugin;

static void worker_stop(plugin *p)
{
    if (!p->worker)
        return;
    channel_close(p->to_worker);
    channel_close(p->from_worker);
    child_stop(p->worker);
    p->worker = NULL, p->to_worker = p->from_worker = NULL;
    p->answered = 0;
}

/* A shared mapping of at least `needed` bytes, kept from case to case (its
   pages, once touched, cost no fault again); 0 when it cannot be had.  A
   worker maps the old one: it is stopped before the mapping grows. */
static int ensure_mapping(plugin *p, size_t needed)
{
    if (p->memory && p->mapping_size >= needed)
        return 1;
    worker_stop(p);
    shared_memory_free(p->memory);
    p->memory = NULL, p->mapping = NULL, p->mapping_size = 0;
    needed = needed < ((size_t)1 << 20) ? ((size_t)1 << 20) : needed;
    if (!(p->memory = shared_memory_create(needed)))
        return 0;
    p->mapping = shared_memory_bytes(p->memory);
    p->mapping_size = shared_memory_size(p->memory);
    return 1;
}

/* Starts the worker over the mapping there is and waits, until the
   deadline, for it to load the plug-in and create() it (what the plug-in
   does when it is loaded happens there).  0 with a message when it
   cannot; *fatal then says that create() failed (or the library is not a
   plug-in): starting again would fail the same way. */
static int worker_start(plugin *p, const deadline *d, double timeout, char *message,
                        size_t capacity, int *fatal)
{
    static const worker_kind kind = {"plugin", plugin_worker};
    const char *arguments[2];
    worker_reply r;
    channel_result got;
    *fatal = 0;
    if (!p->log) /* made here, not at open: each --jobs job has its own */
        p->log = capture_open();
    capture_clear(p->log);
    arguments[0] = p->library_path, arguments[1] = p->options;
    p->worker = child_start_worker(&kind, p->options ? 2 : 1, arguments, p->memory, p->log,
                                   CHILD_STOP_KILL, &p->to_worker, &p->from_worker);
    p->answered = 0;
    p->memory_after_first = 0;
    if (!p->worker) {
        snprintf(message, capacity, "dmlref cannot start the plug-in's process: %s",
                 strerror(errno));
        return 0;
    }
    memset(&r, 0, sizeof r);
    got = channel_read(p->from_worker, &r, sizeof r, d);
    r.message[sizeof r.message - 1] = '\0';
    r.version[sizeof r.version - 1] = '\0';
    if (got == CHANNEL_DONE && r.kind == REPLY_READY) {
        snprintf(p->name, sizeof p->name, "%s", r.message);
        snprintf(p->version, sizeof p->version, "%s", r.version);
        p->max_level = r.status;
        return 1;
    }
    if (got == CHANNEL_DONE && r.kind == REPLY_CREATE_FAILED) {
        *fatal = 1;
        snprintf(message, capacity, "%s", r.message);
    } else if (got == CHANNEL_TIMED_OUT) {
        snprintf(message, capacity,
                 "loading the plug-in and its create() timed out after %g s (--timeout)", timeout);
    } else if (got == CHANNEL_CLOSED && child_wait(p->worker, EXIT_GRACE_SECONDS)) {
        char how[160];
        describe_exit(p->worker, how, sizeof how);
        snprintf(message, capacity, "while loading the plug-in and calling its create(), %s", how);
    } else if (got == CHANNEL_CLOSED) {
        snprintf(message, capacity,
                 "while loading the plug-in and calling its create(), the backend closed "
                 "dmlref's pipe and did not exit");
    } else {
        snprintf(message, capacity,
                 "the plug-in's process said something else than that it was ready (kind %d)",
                 (int)r.kind);
    }
    append_last_line(p->log, "its output", message, capacity);
    worker_stop(p);
    return 0;
}

/* What the worker did after its last reply, seen before the next case is
   sent, after its reply, and after the last case.  A second reply, or a
   change to the buffers (a thread that outlived execute), belongs to the
   case before: said in run->late; the worker is started again so that the
   next case starts clean. */
static void check_worker_quiet(plugin *p, backend_run *run)
{
    char sink[sizeof(worker_reply)];
    size_t stray = 0, got;
    channel_result result;
    int changed;
    if (!p->worker || !p->answered || run->late)
        return;
    while ((result = channel_read_now(p->from_worker, sink, sizeof sink, &got)) == CHANNEL_DONE)
        stray += got;
    changed = XXH3_64bits(p->mapping + p->left_from, p->left_size) != p->left_digest;
    if (stray || changed) {
        run->late = 1;
        snprintf(run->late_message, sizeof run->late_message,
                 "after its reply to this case the backend %s (found %s)",
                 stray ? "replied again" : "wrote into its buffers or their guards",
                 "before the next case ended");
        worker_stop(p);
    } else if (result == CHANNEL_CLOSED) {
        worker_stop(p); /* it ended after replying: started again for the next case */
    }
}

/* A worker whose private memory grew by more than the limit since its
   first case (a leak) is started again before the next case: the growth
   of one case at most is ever added to it.  (Only where the system tells a
   process's private memory: Linux, Windows.) */
static void bound_worker_memory(plugin *p)
{
    unsigned long long now;
    if (!p->worker || !child_private_memory(p->worker, &now))
        return;
    if (!p->memory_after_first)
        p->memory_after_first = now ? now : 1;
    else if (now > p->memory_after_first + p->memory_growth_limit)
        worker_stop(p);
}

/* Remembers what the case just answered left, to see a later write. */
static void remember_what_was_left(plugin *p, const arena_layout *a)
{
    p->answered = 1;
    p->left_from = (size_t)a->base_offset;
    p->left_size = (size_t)a->total;
    p->left_digest = XXH3_64bits(p->mapping + p->left_from, p->left_size);
}

static void collect_buffers(const arena_layout *a, const unsigned char *base, dmlref_vector *v,
                            backend_run *run)
{
    size_t n_in = dmlref_vector_input_count(v), i;
    if (arena_find_guard_damage(a, base, run))
        return;
    for (i = 0; i < a->count; ++i) {
        const unsigned char *start = base + a->start[i];
        size_t size = (size_t)a->size[i];
        if (!size)
            continue;
        if (i < n_in && memcmp(start, binding_of(v, i)->data, size) != 0) {
            run->damage = DAMAGE_INPUT_WRITTEN, run->damaged_tensor = i;
            return;
        }
    }
    for (i = n_in; i < a->count; ++i)
        memcpy(binding_of(v, i)->data, base + a->start[i], (size_t)a->size[i]);
}

static void run_plugin(plugin *p, double timeout, dmlref_vector *v, dmlref_feature_level level,
                       backend_run *run)
{
    worker_request q;
    worker_reply r;
    size_t needed;
    channel_result got;
    int exited = 0, attempt;
    deadline d;

    /* dmlref's own work first: none of it is the backend's time */
    memset(&q, 0, sizeof q);
    arena_lay_out(&q.layout, v, &needed);
    if (!ensure_mapping(p, 2 * needed)) { /* two halves: consecutive cases alternate */
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message,
                 "dmlref cannot map %zu bytes for the case's buffers: %s", needed, strerror(errno));
        return;
    }
    request_encode(&q, v, level);
    for (attempt = 0;; ++attempt) {
        arena_fill(&q.layout, p->mapping, (p->sequence & 1) ? p->mapping_size / 2 : 0, v);
        q.sequence = ++p->sequence;
        capture_clear(p->log);
        check_worker_quiet(p, run); /* the case before, up to now */

        d = deadline_in(timeout); /* from here on, the backend's time */
        if (!p->worker &&
            !worker_start(p, &d, timeout, run->message, sizeof run->message, &run->fatal)) {
            run->kind = RUN_ERROR;
            run->seconds = clock_seconds() - d.start;
            return;
        }
        got = channel_write(p->to_worker, &q, sizeof q, &d);
        if (got == CHANNEL_DONE)
            got = channel_read(p->from_worker, &r, sizeof r, &d);
        if (got == CHANNEL_CLOSED) /* the pipe closed: ended, most likely */
            exited = child_wait(p->worker, EXIT_GRACE_SECONDS);
        if (got != CHANNEL_DONE || r.kind != REPLY_LATE_FAULT || attempt > 0) {
            if (got == CHANNEL_DONE && r.kind != REPLY_LATE_FAULT)
                check_worker_quiet(p, run); /* the case before, while this one ran */
            break;
        }
        /* a thread of the case before touched its buffers while this one ran:
           that case's fault; this one runs again on a new worker */
        run->late = 1;
        snprintf(run->late_message, sizeof run->late_message,
                 "after its reply to this case a thread of the backend touched its buffers "
                 "(found during the next case)");
        child_wait(p->worker, EXIT_GRACE_SECONDS);
        worker_stop(p);
        exited = 0;
    }
    run->seconds = clock_seconds() - d.start;

    run->kind = RUN_ERROR;
    if (got == CHANNEL_TIMED_OUT) {
        snprintf(run->message, sizeof run->message, "timed out after %g s", timeout);
    } else if (got == CHANNEL_CLOSED && exited) {
        describe_exit(p->worker, run->message, sizeof run->message);
    } else if (got == CHANNEL_CLOSED) {
        snprintf(run->message, sizeof run->message,
                 "the backend closed dmlref's pipe and did not exit");
    } else if (r.sequence != q.sequence) {
        snprintf(run->message, sizeof run->message,
                 "the backend's process answered out of turn (a reply to an earlier case)");
    } else if (r.kind == REPLY_GUARD_FAULT || r.kind == REPLY_LATE_FAULT) {
        run->kind = RUN_OUTPUTS;
        run->damage = r.tensor < 0 ? DAMAGE_OUTSIDE
                      : r.before   ? DAMAGE_BEFORE_START
                                   : DAMAGE_PAST_END;
        run->damage_fault = 1;
        run->damaged_tensor =
            (size_t)(r.tensor >= 0 && (uint32_t)r.tensor < q.layout.count ? r.tensor : 0);
        run->damage_offset = r.offset;
        if (p->worker) /* (check_worker_quiet stops one that already ended) */
            child_wait(p->worker, EXIT_GRACE_SECONDS);
        worker_stop(p);
    } else if (r.kind == REPLY_CREATE_FAILED) {
        r.message[sizeof r.message - 1] = '\0';
        snprintf(run->message, sizeof run->message, "%s", r.message);
        run->fatal = 1;
    } else if (r.kind >= REPLY_RAN && r.kind <= REPLY_REFUSED) {
        r.message[sizeof r.message - 1] = '\0';
        snprintf(run->message, sizeof run->message, "%s", r.message);
        run->kind = r.kind == REPLY_RAN           ? RUN_OUTPUTS
                    : r.kind == REPLY_UNSUPPORTED ? RUN_UNSUPPORTED
                                                  : RUN_REFUSED;
        run->status = (dmlref_status)r.status;
        if (p->worker) /* first: a write from here on is a late one */
            remember_what_was_left(p, &q.layout);
        if (run->kind == RUN_OUTPUTS && dmlref_vector_has_data(v))
            collect_buffers(&q.layout, p->mapping + q.layout.base_offset, v, run);
        if (run->damage != DAMAGE_NONE && run->damage != DAMAGE_INPUT_WRITTEN)
            worker_stop(p); /* it may have lifted a guard page's protection */
        else
            bound_worker_memory(p);
    } else {
        snprintf(run->message, sizeof run->message, "the backend's reply is garbled (kind %d)",
                 (int)r.kind);
    }
    if (run->kind == RUN_ERROR) {
        append_last_line(p->log, "its output", run->message, sizeof run->message);
        worker_stop(p); /* a crash, a hang, nonsense: the next case gets a new one */
    }
}

/* ---- the process backend -------------------------------------------------------- */

/* ---- the process backend -------------------------------------------------------- */

typedef struct process {
    const char *command;
    char previous[256]; /* the name of the case it answered last, or "" */
    capture *log;       /* its stderr */
    child *running;     /* NULL when not running */
    channel *to_child, *from_child;
    line_reader lines;
} process;

/* Stops the process and everything it started, closes its pipes. */
static void process_stop(process *p)
{
    if (!p->running)
        return;
    channel_close(p->to_child);
    channel_close(p->from_child);
    child_stop(p->running);
    p->running = NULL, p->to_child = p->from_child = NULL;
    p->previous[0] = '\0'; /* a new process answers nothing of the old one's */
    line_reader_clear(&p->lines);
}

static int process_start(process *p)
{
    p->running = child_start_command(p->command, p->log, &p->to_child, &p->from_child);
    line_reader_clear(&p->lines);
    return p->running != NULL;
}

/* Before a case: bytes the process wrote after its last reply belong to the
   case before (a second reply, a late write).  Said in run->late, and the
   process is restarted so that the case at hand starts clean. */
static void check_quiet_between_cases(process *p, backend_run *run)
{
    char sink[4096];
    size_t stray = line_reader_held(&p->lines), got;
    channel_result result = CHANNEL_NOTHING;
    if (!p->running)
        return;
    /* (a bounded look: a process that writes without end is stopped below) */
    while (stray < ((size_t)1 << 20) &&
           (result = channel_read_now(p->from_child, sink, sizeof sink, &got)) == CHANNEL_DONE)
        stray += got;
    if (stray) {
        run->late = 1;
        snprintf(run->late_message, sizeof run->late_message,
                 "after its reply to this case the backend wrote %s%zu more bytes",
                 stray >= ((size_t)1 << 20) ? "at least " : "", stray);
    }
    if (stray || result == CHANNEL_CLOSED) /* or it closed its stdout after its last reply */
        process_stop(p);                   /* started again for the case at hand */
}

static size_t longest_reply(const dmlref_vector *v)
{
    const dmlref_tensor_desc *descs[OPERATOR_MAX_TENSORS] = {NULL};
    size_t n = tensor_descs(dmlref_vector_operator(v), descs), i;
    uint64_t bytes = (uint64_t)1 << 16;
    for (i = dmlref_vector_input_count(v); i < n; ++i) {
        uint64_t elements = 1;
        uint32_t k;
        for (k = 0; k < descs[i]->DimensionCount && k < DMLREF_TENSOR_DIMENSION_COUNT_MAX; ++k)
            elements *= descs[i]->Sizes[k];
        bytes += 64 * elements;
    }
    return bytes < DMLREF_VECTOR_MAX_FILE_BYTES ? (size_t)bytes
                                                : (size_t)DMLREF_VECTOR_MAX_FILE_BYTES;
}

/* Whether a reply line is a JSON object whose "name" is `name`. */
static int names_case(const char *line, size_t length, const char *name)
{
    json_t *root;
    int same;
    if (!name[0] || length > ((size_t)1 << 20)) /* a second reply of a big case: found later */
        return 0;
    root = json_loadb(line, length, 0, NULL);
    same = root && json_is_string(json_object_get(root, "name")) &&
           strcmp(json_string_value(json_object_get(root, "name")), name) == 0;
    json_decref(root);
    return same;
}

typedef enum exchange_end {
    EXCHANGE_REPLIED,
    EXCHANGE_TIMED_OUT,
    EXCHANGE_CLOSED_STDOUT, /* end of file before a whole line */
    EXCHANGE_CLOSED_STDIN,  /* it stopped reading the request */
    EXCHANGE_LINE_TOO_LONG,
    EXCHANGE_NO_MEMORY
} exchange_end;

/* Writes the request and reads one line at once, neither ever blocking, both
   before the deadline.  *written says how much of the request went out (it
   goes on from there).  A line already held (a reply that came in one read
   with a late one before it) is taken first. */
static exchange_end exchange(process *p, const char *request, size_t length, const deadline *d,
                             size_t *written, char **line, size_t *line_length)
{
    for (;;) {
        size_t room, received;
        char *space;
        switch (line_reader_next(&p->lines, line, line_length)) {
        case LINE_READY:
            return EXCHANGE_REPLIED;
        case LINE_TOO_LONG:
            return EXCHANGE_LINE_TOO_LONG;
        default:
            break;
        }
        space = line_reader_space(&p->lines, &room);
        if (!space)
            return line_reader_held(&p->lines) > p->lines.max_line ? EXCHANGE_LINE_TOO_LONG
                                                                   : EXCHANGE_NO_MEMORY;
        switch (channel_transfer(p->to_child, request, length, written, p->from_child, space, room,
                                 &received, d)) {
        case TRANSFER_TIMED_OUT:
            return EXCHANGE_TIMED_OUT;
        case TRANSFER_OUTPUT_CLOSED:
            return EXCHANGE_CLOSED_STDIN;
        case TRANSFER_INPUT_CLOSED:
            return EXCHANGE_CLOSED_STDOUT;
        case TRANSFER_RECEIVED:
            break;
        }
        line_reader_received(&p->lines, received);
    }
}

static void run_process(process *p, double timeout, dmlref_vector *v, dmlref_feature_level level,
                        backend_run *run)
{
    char *text, *grown, *line = NULL;
    size_t length, line_length = 0, written = 0, i;
    dmlref_error err;
    dmlref_reply reply;
    exchange_end end;
    deadline d;

    /* dmlref's own work first: the request's text is not the backend's time */
    dmlref_vector_set_feature_level(v, level); /* --feature-level reaches the process too */
    if (dmlref_vector_write_with(v, DMLREF_VECTOR_WRITE_CASE | DMLREF_VECTOR_WRITE_ONE_LINE, &text,
                                 &length, &err) != DMLREF_OK) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "%s", err.message);
        return;
    }
    if (!(grown = realloc(text, length + 1))) {
        free(text);
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "dmlref ran out of memory writing the request");
        return;
    }
    text = grown;
    text[length++] = '\n';
    check_quiet_between_cases(p, run);
    if (!p->log) /* made here, not at open: each --jobs job has its own */
        p->log = capture_open();
    capture_clear(p->log);
    line_reader_limit(&p->lines, longest_reply(v));

    d = deadline_in(timeout); /* from here on, the backend's time */
    if (!p->running && !process_start(p)) {
        free(text);
        process_stop(p);
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "cannot start: %s", p->command);
        return;
    }
    end = exchange(p, text, length, &d, &written, &line, &line_length);
    if (strcmp(p->previous, dmlref_vector_name(v)) == 0)
        p->previous[0] = '\0'; /* the same name again (fuzz's shrinking): replies cannot tell */
    while (end == EXCHANGE_REPLIED && names_case(line, line_length, p->previous)) {
        /* a second reply to the case before, come late: that case's fault */
        run->late = 1;
        snprintf(run->late_message, sizeof run->late_message,
                 "the backend replied to this case again, after the next case had begun");
        p->previous[0] = '\0';
        end = exchange(p, text, length, &d, &written, &line, &line_length);
    }
    run->seconds = clock_seconds() - d.start;
    free(text);

    if (end == EXCHANGE_REPLIED && written < length) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message,
                 "the backend replied before reading the whole request (%zu of %zu bytes)", written,
                 length);
    } else if (end == EXCHANGE_REPLIED && line_reader_held(&p->lines)) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message,
                 "the backend wrote more than one line for this case");
    } else if (end != EXCHANGE_REPLIED) {
        /* a closed stdin or stdout is how a process that died shows first:
           wait a moment for its exit, so that a dead backend is reported as
           such, the same way every time, whichever pipe noticed first */
        const double grace = deadline_seconds_left(&d) < EXIT_GRACE_SECONDS
                                 ? deadline_seconds_left(&d)
                                 : EXIT_GRACE_SECONDS;
        int exited;
        run->kind = RUN_ERROR;
        switch (end) {
        case EXCHANGE_TIMED_OUT:
            snprintf(run->message, sizeof run->message, "timed out after %g s%s", timeout,
                     written < length ? " (it had not read the whole request)" : "");
            break;
        case EXCHANGE_CLOSED_STDIN:
            if (child_wait(p->running, grace))
                describe_exit(p->running, run->message, sizeof run->message);
            else
                snprintf(run->message, sizeof run->message,
                         "the backend stopped reading its stdin (%zu of %zu bytes of the request "
                         "read)",
                         written, length);
            break;
        case EXCHANGE_LINE_TOO_LONG:
            snprintf(run->message, sizeof run->message,
                     "the backend's reply is longer than %zu bytes, more than this case's outputs "
                     "can take",
                     p->lines.max_line);
            break;
        case EXCHANGE_NO_MEMORY:
            snprintf(run->message, sizeof run->message,
                     "dmlref ran out of memory reading the reply");
            break;
        default: /* its stdout closed: did it exit, or does it live on? */
            exited = child_wait(p->running, grace);
            if (exited)
                describe_exit(p->running, run->message, sizeof run->message);
            else
                snprintf(run->message, sizeof run->message,
                         "the backend closed its stdout and did not exit");
            break;
        }
        process_stop(p);
    }
    if (run->kind == RUN_ERROR) {
        append_last_line(p->log, "its stderr", run->message, sizeof run->message);
        process_stop(p); /* its next line could belong to this case */
        return;
    }

    for (i = 0; i < dmlref_vector_output_count(v); ++i) /* outputs start poisoned */
        if (dmlref_vector_outputs(v)[i].data)
            memset(dmlref_vector_outputs(v)[i].data, OUTPUT_FILL,
                   (size_t)dmlref_vector_outputs(v)[i].size_in_bytes);
    if (dmlref_vector_read_reply(v, line, line_length, dmlref_vector_outputs(v),
                                 dmlref_vector_output_count(v), &reply, &err) != DMLREF_OK) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "malformed reply: %s", err.message);
        process_stop(p); /* its next line could belong to this case */
        return;
    }
    snprintf(p->previous, sizeof p->previous, "%s", dmlref_vector_name(v));
    run->kind = reply.kind == DMLREF_REPLY_OUTPUTS       ? RUN_OUTPUTS
                : reply.kind == DMLREF_REPLY_UNSUPPORTED ? RUN_UNSUPPORTED
                                                         : RUN_REFUSED;
    run->status = reply.refusal_status;
    snprintf(run->rule, sizeof run->rule, "%s", reply.refusal_rule);
    snprintf(run->message, sizeof run->message, "%s", reply.message);
}

/* ---- a backend, whichever kind ------------------------------------------------------ */

struct backend {
    plugin plug_in;
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
        /* its name and level come from its first worker (kept for the
           first case): what runs when it is loaded never runs here */
        char message[sizeof((backend_run *)0)->message];
        const char *limit = getenv("DMLREF_PLUGIN_MEMORY_GROWTH_MB");
        int fatal;
        deadline d = deadline_in(timeout);
        plugin *p = &b->plug_in;
        b->is_plugin = 1;
        p->library_path = library_path;
        p->options = text_options;
        p->memory_growth_limit = (unsigned long long)PLUGIN_MEMORY_GROWTH_MB << 20;
        if (limit && strtoul(limit, NULL, 10) > 0)
            p->memory_growth_limit = (unsigned long long)strtoul(limit, NULL, 10) << 20;
        if (!ensure_mapping(p, 0)) {
            fprintf(stderr, "dmlref: %s: cannot map memory for the plug-in's buffers: %s\n",
                    library_path, strerror(errno));
            backend_close(b);
            return NULL;
        }
        if (!worker_start(p, &d, timeout, message, sizeof message, &fatal)) {
            char clean[sizeof message];
            size_t i;
            for (i = 0; message[i] && i + 1 < sizeof clean; ++i) /* one line, whatever it said */
                clean[i] = (unsigned char)message[i] < 0x20 ? ' ' : message[i];
            clean[i] = '\0';
            fprintf(stderr, "dmlref: %s: %s\n", library_path, clean);
            backend_close(b);
            return NULL;
        }
        b->name = p->name[0] ? p->name : library_path;
        b->version = p->version;
        b->max_level = (dmlref_feature_level)p->max_level;
    } else {
        b->p.command = command;
        line_reader_init(&b->p.lines, 1 << 16);
        b->name = command;
        b->version = "";
    }
    return b;
}

const char *backend_name(const backend *b)
{
    return b->name;
}
const char *backend_version(const backend *b)
{
    return b->version;
}
dmlref_feature_level backend_max_level(const backend *b)
{
    return b->max_level;
}

void backend_run_case(backend *b, dmlref_vector *v, dmlref_feature_level level, backend_run *run)
{
    memset(run, 0, sizeof *run);
    if (b->is_plugin)
        run_plugin(&b->plug_in, b->timeout, v, level, run);
    else
        run_process(&b->p, b->timeout, v, level, run);
}

void backend_finish(backend *b, backend_run *late)
{
    memset(late, 0, sizeof *late);
    if (b->is_plugin) {
        check_worker_quiet(&b->plug_in, late);
    } else if (b->p.running) {
        /* the end of its input: it may exit by itself (and release a
           device); what it writes until then is the last case's */
        channel_close(b->p.to_child);
        b->p.to_child = NULL;
        child_wait(b->p.running, 2.0);
        check_quiet_between_cases(&b->p, late);
        process_stop(&b->p);
    }
}

void backend_close(backend *b)
{
    if (!b)
        return;
    if (b->p.running) { /* end of input: time to exit by itself, and release a device */
        channel_close(b->p.to_child);
        b->p.to_child = NULL;
        child_wait(b->p.running, 2.0);
    }
    process_stop(&b->p);
    if (b->plug_in.worker) { /* the same for the plug-in's destroy() */
        channel_close(b->plug_in.to_worker);
        b->plug_in.to_worker = NULL;
        child_wait(b->plug_in.worker, 2.0);
    }
    worker_stop(&b->plug_in);
    line_reader_free(&b->p.lines);
    capture_close(b->p.log);
    capture_close(b->plug_in.log);
    shared_memory_free(b->plug_in.memory);
    free(b);
}
