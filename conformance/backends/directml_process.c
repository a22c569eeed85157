/*
 * directml_process.c - the real DirectML behind `dmlref check --exec`: a
 * process backend (docs/conformance.md, "The process interface") that runs
 * each case through DirectML.dll on a Direct3D 12 device.
 *
 *   directml_process --dll DirectML.dll            answers the requests on stdin
 *   directml_process --dll DirectML.dll --canary   runs one built-in GatherElements
 *                                                  case; exit 0 when DirectML wrote
 *                                                  the right values, else 2 and why
 *   ... --log FILE                                 also appends to FILE the adapter,
 *                                                  the DLL and, at the end of input,
 *                                                  how many cases DirectML computed,
 *                                                  refused and was not asked
 *
 * A Windows program (mingw-w64); scripts/check/directml_leg.sh runs it under wine
 * with vkd3d and lavapipe.  Each request is read by libdmlref's vector
 * reader, as reference_process.c does, into host buffers that are byte-exact
 * images of the tensors (strides, padding, TotalTensorSizeInBytes).  The
 * case's descriptors go to DirectML unchanged and nothing is validated here:
 * an HRESULT from IDMLDevice::CreateOperator (or a later call) is the reply's
 * refusal, so what is judged is DirectML's own validation.
 *
 * Per case: CreateOperator, CompileOperator, the operator initializer, one
 * default-heap buffer per tensor (filled through an upload heap, outputs
 * prefilled with 0xCD), the initializer's and the operator's dispatches in
 * one command list, then the outputs through a readback heap.  The device,
 * queue, command list and DirectML device live for the whole run; everything
 * else is released at the end of its case.
 *
 * Two kinds of case are not run:
 *   - a feature level below DirectML's maximum: DMLCreateDevice1's level is
 *     only a minimum, and DirectML validates at its maximum whatever it is
 *     asked, so such a case is "unsupported";
 *   - a case without input data (shapes that cannot hold any): only
 *     CreateOperator is asked; it refuses, or the case is "unsupported".
 */
#define COBJMACROS
#include "dmlref.h"
#include "dmlref/vector.h"

#include <windows.h>

#include <initguid.h> /* the IIDs of d3d12.h and dxgi1_4.h, defined here */

#include "directml.h"
#include <dxgi1_4.h>
#include <fcntl.h>
#include <io.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OUTPUTS 2
#define MAX_TENSORS 4 /* Scatter's three inputs and its output */
#define PREFILL_BYTE 0xCD
/* Bytes of each output's buffer past its TotalTensorSizeInBytes, prefilled
   and checked after the dispatch: DirectML must not touch them (D14). */
#define OUTPUT_GUARD_BYTES 256

/* --log's file, or NULL: what a report keeps of the run */
static FILE *g_log;

/* How the cases of this process went, for --log. */
static struct {
    unsigned long computed, refused, unsupported;
} g_tally;

/* ---- text ---------------------------------------------------------------------- */

typedef struct text {
    char *bytes;
    size_t length, capacity;
} text;

static void append(text *t, const char *bytes, size_t length)
{
    if (t->length + length + 1 > t->capacity) {
        size_t capacity = t->capacity ? t->capacity : 4096;
        char *grown;
        while (t->length + length + 1 > capacity)
            capacity *= 2;
        if (!(grown = realloc(t->bytes, capacity))) {
            fputs("directml_process: out of memory\n", stderr);
            exit(1);
        }
        t->bytes = grown, t->capacity = capacity;
    }
    memcpy(t->bytes + t->length, bytes, length);
    t->length += length;
    t->bytes[t->length] = '\0';
}

static void append_text(text *t, const char *s)
{
    append(t, s, strlen(s));
}

static void append_json_string(text *t, const char *s)
{
    json_t *string = json_string(s ? s : "");
    char *encoded = string ? json_dumps(string, JSON_ENCODE_ANY) : NULL;
    append_text(t, encoded ? encoded : "\"\"");
    free(encoded);
    json_decref(string);
}

/* ---- failures: the call and its HRESULT ------------------------------------------ */

typedef struct failure {
    char message[512];
} failure;

static const char *hresult_name(HRESULT hr)
{
    switch ((unsigned long)hr) {
    case 0x80004001ul:
        return "E_NOTIMPL";
    case 0x80004002ul:
        return "E_NOINTERFACE";
    case 0x80004003ul:
        return "E_POINTER";
    case 0x80004005ul:
        return "E_FAIL";
    case 0x8007000Eul:
        return "E_OUTOFMEMORY";
    case 0x80070057ul:
        return "E_INVALIDARG";
    case 0x887A0001ul:
        return "DXGI_ERROR_INVALID_CALL";
    case 0x887A0004ul:
        return "DXGI_ERROR_UNSUPPORTED";
    case 0x887A0005ul:
        return "DXGI_ERROR_DEVICE_REMOVED";
    case 0x887A0006ul:
        return "DXGI_ERROR_DEVICE_HUNG";
    case 0x887A0007ul:
        return "DXGI_ERROR_DEVICE_RESET";
    case 0x887A0020ul:
        return "DXGI_ERROR_DRIVER_INTERNAL_ERROR";
    default:
        return NULL;
    }
}

/* Records "CALL: 0x80070057 (E_INVALIDARG)"; returns 0 when hr failed, so
   that a call reads `if (!succeeded(f, "Call", Call(...)))`. */
static int succeeded(failure *f, const char *call, HRESULT hr)
{
    const char *name = hresult_name(hr);
    if (SUCCEEDED(hr))
        return 1;
    snprintf(f->message, sizeof f->message, "%s: 0x%08lx%s%s%s", call, (unsigned long)hr,
             name ? " (" : "", name ? name : "", name ? ")" : "");
    return 0;
}

/* ---- the device, for the whole run --------------------------------------------------- */

typedef struct gpu {
    HMODULE directml;
    ID3D12Device *device;
    ID3D12CommandQueue *queue;
    ID3D12CommandAllocator *allocator;
    ID3D12GraphicsCommandList *list;
    ID3D12Fence *fence;
    UINT64 fence_value;
    HANDLE fence_event;
    IDMLDevice *dml;
    IDMLCommandRecorder *recorder;
    DML_FEATURE_LEVEL max_level;
    UINT descriptor_size;
} gpu;

static void format_level(unsigned level, char *buf, size_t size)
{
    snprintf(buf, size, "%u_%u", (level >> 12) & 0xFu, (level >> 8) & 0xFu);
}

/* The name of the adapter the default device was made on, as UTF-8. */
static void adapter_name(ID3D12Device *device, char *name, size_t size)
{
    IDXGIFactory4 *factory = NULL;
    IDXGIAdapter *adapter = NULL;
    DXGI_ADAPTER_DESC desc;
    LUID luid;
    snprintf(name, size, "unknown");
    device->lpVtbl->GetAdapterLuid(device, &luid);
    if (SUCCEEDED(CreateDXGIFactory1(&IID_IDXGIFactory4, (void **)&factory)) &&
        SUCCEEDED(
            IDXGIFactory4_EnumAdapterByLuid(factory, luid, &IID_IDXGIAdapter, (void **)&adapter)) &&
        SUCCEEDED(IDXGIAdapter_GetDesc(adapter, &desc)))
        WideCharToMultiByte(CP_UTF8, 0, desc.Description, -1, name, (int)size, NULL, NULL);
    if (adapter)
        IDXGIAdapter_Release(adapter);
    if (factory)
        IDXGIFactory4_Release(factory);
}

/* DirectML's highest feature level, asked with every level it may know. */
static int query_max_level(gpu *g, failure *f)
{
    static const DML_FEATURE_LEVEL levels[] = {
        DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
        DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
        DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
        DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4};
    DML_FEATURE_QUERY_FEATURE_LEVELS query;
    DML_FEATURE_DATA_FEATURE_LEVELS answer;
    query.RequestedFeatureLevelCount = sizeof levels / sizeof *levels;
    query.RequestedFeatureLevels = levels;
    if (!succeeded(f, "IDMLDevice::CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS)",
                   g->dml->lpVtbl->CheckFeatureSupport(g->dml, DML_FEATURE_FEATURE_LEVELS,
                                                       sizeof query, &query, sizeof answer,
                                                       &answer)))
        return 0;
    g->max_level = answer.MaxSupportedFeatureLevel;
    return 1;
}

/* Loads DirectML, makes the Direct3D 12 device on the default adapter and
   DirectML's device on it, and says on stderr what they are. */
static int open_gpu(gpu *g, const char *dll, failure *f)
{
    D3D12_COMMAND_QUEUE_DESC queue_desc;
    DMLCreateDevice1_function create_device;
    char adapter[256], level[16];

    memset(g, 0, sizeof *g);
    if (!(g->directml = LoadLibraryA(dll))) {
        snprintf(f->message, sizeof f->message, "LoadLibrary(%s): error %lu", dll,
                 (unsigned long)GetLastError());
        return 0;
    }
    create_device =
        (DMLCreateDevice1_function)(void (*)(void))GetProcAddress(g->directml, "DMLCreateDevice1");
    if (!create_device) {
        snprintf(f->message, sizeof f->message, "%s exports no DMLCreateDevice1", dll);
        return 0;
    }
    if (!succeeded(f, "D3D12CreateDevice",
                   D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device,
                                     (void **)&g->device)))
        return 0;
    memset(&queue_desc, 0, sizeof queue_desc);
    queue_desc.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    if (!succeeded(f, "ID3D12Device::CreateCommandQueue",
                   ID3D12Device_CreateCommandQueue(g->device, &queue_desc, &IID_ID3D12CommandQueue,
                                                   (void **)&g->queue)) ||
        !succeeded(f, "ID3D12Device::CreateCommandAllocator",
                   ID3D12Device_CreateCommandAllocator(g->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                       &IID_ID3D12CommandAllocator,
                                                       (void **)&g->allocator)) ||
        !succeeded(f, "ID3D12Device::CreateCommandList",
                   ID3D12Device_CreateCommandList(
                       g->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, g->allocator, NULL,
                       &IID_ID3D12GraphicsCommandList, (void **)&g->list)) ||
        !succeeded(f, "ID3D12GraphicsCommandList::Close",
                   ID3D12GraphicsCommandList_Close(g->list)) ||
        !succeeded(f, "ID3D12Device::CreateFence",
                   ID3D12Device_CreateFence(g->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                            (void **)&g->fence)))
        return 0;
    if (!(g->fence_event = CreateEventA(NULL, FALSE, FALSE, NULL))) {
        snprintf(f->message, sizeof f->message, "CreateEvent: error %lu",
                 (unsigned long)GetLastError());
        return 0;
    }
    if (!succeeded(f, "DMLCreateDevice1",
                   create_device(g->device, DML_CREATE_DEVICE_FLAG_NONE, DML_FEATURE_LEVEL_1_0,
                                 &dmlref_iid_IDMLDevice, (void **)&g->dml)) ||
        !succeeded(f, "IDMLDevice::CreateCommandRecorder",
                   g->dml->lpVtbl->CreateCommandRecorder(g->dml, &dmlref_iid_IDMLCommandRecorder,
                                                         (void **)&g->recorder)) ||
        !query_max_level(g, f))
        return 0;
    g->descriptor_size = ID3D12Device_GetDescriptorHandleIncrementSize(
        g->device, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV);
    adapter_name(g->device, adapter, sizeof adapter);
    format_level(g->max_level, level, sizeof level);
    fprintf(stderr, "directml_process: adapter \"%s\", DirectML's maximum feature level %s, %s\n",
            adapter, level, dll);
    if (g_log)
        fprintf(g_log,
                "directml_process: adapter \"%s\", DirectML's maximum feature level %s, %s\n",
                adapter, level, dll);
    return 1;
}

/* ---- a case's descriptors, as DirectML's ----------------------------------------------- */

typedef struct translation {
    DML_BUFFER_TENSOR_DESC buffers[MAX_TENSORS];
    DML_TENSOR_DESC tensors[MAX_TENSORS];
    size_t tensor_count;
    union {
        DML_GATHER_ELEMENTS_OPERATOR_DESC gather_elements;
        DML_SCATTER_OPERATOR_DESC scatter;
        DML_GATHER_ND_OPERATOR_DESC gather_nd;
        DML_GATHER_ND1_OPERATOR_DESC gather_nd1;
        DML_NONZERO_COORDINATES_OPERATOR_DESC nonzero_coordinates;
    } desc;
    DML_OPERATOR_DESC op;
    /* the tensors in binding order (each descriptor lists its inputs first),
       and the outputs' names in a reply */
    const dmlref_tensor_desc *bound[MAX_TENSORS];
    size_t input_count, output_count;
    const char *output_names[MAX_OUTPUTS];
} translation;

static const DML_TENSOR_DESC *tensor(translation *t, const dmlref_tensor_desc *d)
{
    DML_BUFFER_TENSOR_DESC *b = &t->buffers[t->tensor_count];
    DML_TENSOR_DESC *td = &t->tensors[t->tensor_count++];
    b->DataType = (DML_TENSOR_DATA_TYPE)d->DataType;
    b->Flags = (DML_TENSOR_FLAGS)d->Flags;
    b->DimensionCount = d->DimensionCount;
    b->Sizes = d->Sizes;
    b->Strides = d->Strides;
    b->TotalTensorSizeInBytes = d->TotalTensorSizeInBytes;
    b->GuaranteedBaseOffsetAlignment = d->GuaranteedBaseOffsetAlignment;
    td->Type = DML_TENSOR_TYPE_BUFFER;
    td->Desc = b;
    return td;
}

static const DML_TENSOR_DESC *input(translation *t, const dmlref_tensor_desc *d)
{
    t->bound[t->input_count++] = d;
    return tensor(t, d);
}

static const DML_TENSOR_DESC *output(translation *t, const dmlref_tensor_desc *d, const char *name)
{
    t->output_names[t->output_count] = name;
    t->bound[t->input_count + t->output_count++] = d;
    return tensor(t, d);
}

/* dmlref's descriptors mirror DirectML's field for field; SCATTER and
   SCATTER_ELEMENTS are one operator (94) with one descriptor. */
static void translate(const dmlref_operator_desc *op, translation *t)
{
    memset(t, 0, sizeof *t);
    t->op.Type = (DML_OPERATOR_TYPE)op->Type;
    t->op.Desc = &t->desc;
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: {
        const dmlref_gather_elements_desc *d = op->Desc;
        t->desc.gather_elements.InputTensor = input(t, d->InputTensor);
        t->desc.gather_elements.IndicesTensor = input(t, d->IndicesTensor);
        t->desc.gather_elements.OutputTensor = output(t, d->OutputTensor, "OutputTensor");
        t->desc.gather_elements.Axis = d->Axis;
        break;
    }
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: {
        const dmlref_scatter_elements_desc *d = op->Desc;
        t->desc.scatter.InputTensor = input(t, d->InputTensor);
        t->desc.scatter.IndicesTensor = input(t, d->IndicesTensor);
        t->desc.scatter.UpdatesTensor = input(t, d->UpdatesTensor);
        t->desc.scatter.OutputTensor = output(t, d->OutputTensor, "OutputTensor");
        t->desc.scatter.Axis = d->Axis;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND: {
        const dmlref_gather_nd_desc *d = op->Desc;
        t->desc.gather_nd.InputTensor = input(t, d->InputTensor);
        t->desc.gather_nd.IndicesTensor = input(t, d->IndicesTensor);
        t->desc.gather_nd.OutputTensor = output(t, d->OutputTensor, "OutputTensor");
        t->desc.gather_nd.InputDimensionCount = d->InputDimensionCount;
        t->desc.gather_nd.IndicesDimensionCount = d->IndicesDimensionCount;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND1: {
        const dmlref_gather_nd1_desc *d = op->Desc;
        t->desc.gather_nd1.InputTensor = input(t, d->InputTensor);
        t->desc.gather_nd1.IndicesTensor = input(t, d->IndicesTensor);
        t->desc.gather_nd1.OutputTensor = output(t, d->OutputTensor, "OutputTensor");
        t->desc.gather_nd1.InputDimensionCount = d->InputDimensionCount;
        t->desc.gather_nd1.IndicesDimensionCount = d->IndicesDimensionCount;
        t->desc.gather_nd1.BatchDimensionCount = d->BatchDimensionCount;
        break;
    }
    case DMLREF_OPERATOR_NONZERO_COORDINATES: {
        const dmlref_nonzero_coordinates_desc *d = op->Desc;
        t->desc.nonzero_coordinates.InputTensor = input(t, d->InputTensor);
        t->desc.nonzero_coordinates.OutputCountTensor =
            output(t, d->OutputCountTensor, "OutputCountTensor");
        t->desc.nonzero_coordinates.OutputCoordinatesTensor =
            output(t, d->OutputCoordinatesTensor, "OutputCoordinatesTensor");
        break;
    }
    }
}

/* ---- one case on the GPU ----------------------------------------------------------------- */

/* What a case creates, released together at its end. */
typedef struct case_objects {
    IDMLOperator *op;
    IDMLCompiledOperator *compiled;
    IDMLOperatorInitializer *initializer;
    IDMLBindingTable *table;
    ID3D12DescriptorHeap *heap;
    ID3D12Resource *buffers[MAX_TENSORS]; /* the tensors', in binding order */
    ID3D12Resource *upload, *readback, *temporary, *persistent;
} case_objects;

#define RELEASE(object)                                                                            \
    do {                                                                                           \
        if (object)                                                                                \
            (object)->lpVtbl->Release(object);                                                     \
    } while (0)

static void release_case(case_objects *c)
{
    size_t i;
    RELEASE(c->table);
    RELEASE(c->initializer);
    RELEASE(c->compiled);
    RELEASE(c->op);
    RELEASE(c->heap);
    for (i = 0; i < MAX_TENSORS; ++i)
        RELEASE(c->buffers[i]);
    RELEASE(c->upload);
    RELEASE(c->readback);
    RELEASE(c->temporary);
    RELEASE(c->persistent);
}

/* A tensor's GPU buffer: TotalTensorSizeInBytes, rounded up to whole 32-bit
   words, as DirectML's raw views read them. */
static UINT64 buffer_size(const dmlref_tensor_desc *d)
{
    UINT64 size = (d->TotalTensorSizeInBytes + 3) & ~(UINT64)3;
    return size ? size : 4;
}

/* The GPU buffer of bound tensor i of a case: an output's has its guard. */
static UINT64 gpu_buffer_size(const translation *t, size_t i)
{
    return buffer_size(t->bound[i]) + (i >= t->input_count ? OUTPUT_GUARD_BYTES : 0);
}

static int create_buffer(gpu *g, D3D12_HEAP_TYPE heap_type, UINT64 size,
                         D3D12_RESOURCE_STATES state, ID3D12Resource **buffer, failure *f)
{
    D3D12_HEAP_PROPERTIES heap;
    D3D12_RESOURCE_DESC desc;
    memset(&heap, 0, sizeof heap);
    heap.Type = heap_type;
    heap.CreationNodeMask = heap.VisibleNodeMask = 1;
    memset(&desc, 0, sizeof desc);
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = size;
    desc.Height = desc.DepthOrArraySize = desc.MipLevels = 1;
    desc.Format = DXGI_FORMAT_UNKNOWN;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    desc.Flags = heap_type == D3D12_HEAP_TYPE_DEFAULT ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS
                                                      : D3D12_RESOURCE_FLAG_NONE;
    return succeeded(f, "ID3D12Device::CreateCommittedResource",
                     ID3D12Device_CreateCommittedResource(g->device, &heap, D3D12_HEAP_FLAG_NONE,
                                                          &desc, state, NULL, &IID_ID3D12Resource,
                                                          (void **)buffer));
}

static void transition(gpu *g, ID3D12Resource *buffer, D3D12_RESOURCE_STATES before,
                       D3D12_RESOURCE_STATES after)
{
    D3D12_RESOURCE_BARRIER barrier;
    memset(&barrier, 0, sizeof barrier);
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    barrier.Transition.pResource = buffer;
    barrier.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    barrier.Transition.StateBefore = before;
    barrier.Transition.StateAfter = after;
    ID3D12GraphicsCommandList_ResourceBarrier(g->list, 1, &barrier);
}

/* The initializer's writes are seen by the operator's dispatch. */
static void uav_barrier(gpu *g)
{
    D3D12_RESOURCE_BARRIER barrier;
    memset(&barrier, 0, sizeof barrier);
    barrier.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
    ID3D12GraphicsCommandList_ResourceBarrier(g->list, 1, &barrier);
}

static DML_BUFFER_BINDING whole(ID3D12Resource *buffer, UINT64 size)
{
    DML_BUFFER_BINDING b;
    b.Buffer = buffer;
    b.Offset = 0;
    b.SizeInBytes = size;
    return b;
}

/* Creates the case's buffers and fills them through one upload buffer:
   inputs from their host images, outputs with PREFILL_BYTE. */
static int upload_tensors(gpu *g, const translation *t, const dmlref_vector *v, case_objects *c,
                          UINT64 offsets[MAX_TENSORS], failure *f)
{
    const dmlref_binding *host = dmlref_vector_inputs(v);
    UINT64 total = 0;
    unsigned char *mapped;
    D3D12_RANGE nothing_read = {0, 0};
    size_t i;

    for (i = 0; i < t->input_count + t->output_count; ++i) {
        offsets[i] = total;
        total += (gpu_buffer_size(t, i) + 255) & ~(UINT64)255;
        if (!create_buffer(g, D3D12_HEAP_TYPE_DEFAULT, gpu_buffer_size(t, i),
                           D3D12_RESOURCE_STATE_COPY_DEST, &c->buffers[i], f))
            return 0;
    }
    if (!create_buffer(g, D3D12_HEAP_TYPE_UPLOAD, total, D3D12_RESOURCE_STATE_GENERIC_READ,
                       &c->upload, f) ||
        !succeeded(f, "ID3D12Resource::Map(upload)",
                   ID3D12Resource_Map(c->upload, 0, &nothing_read, (void **)&mapped)))
        return 0;
    memset(mapped, 0, (size_t)total);
    for (i = 0; i < t->input_count; ++i) {
        UINT64 n = t->bound[i]->TotalTensorSizeInBytes;
        if (n > host[i].size_in_bytes)
            n = host[i].size_in_bytes;
        memcpy(mapped + offsets[i], host[i].data, (size_t)n);
    }
    for (i = 0; i < t->output_count; ++i)
        memset(mapped + offsets[t->input_count + i], PREFILL_BYTE,
               (size_t)gpu_buffer_size(t, t->input_count + i));
    ID3D12Resource_Unmap(c->upload, 0, NULL);

    for (i = 0; i < t->input_count + t->output_count; ++i) {
        ID3D12GraphicsCommandList_CopyBufferRegion(g->list, c->buffers[i], 0, c->upload, offsets[i],
                                                   gpu_buffer_size(t, i));
        transition(g, c->buffers[i], D3D12_RESOURCE_STATE_COPY_DEST,
                   D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
    }
    return 1;
}

/* Binds and records the initializer's dispatch, then the operator's, each on
   its own range of the descriptor heap (both run in one command list). */
static int record_dispatches(gpu *g, const translation *t, case_objects *c,
                             const DML_BINDING_PROPERTIES *init, const DML_BINDING_PROPERTIES *exec,
                             failure *f)
{
    D3D12_DESCRIPTOR_HEAP_DESC heap_desc;
    DML_BINDING_TABLE_DESC table;
    DML_BUFFER_BINDING buffers[MAX_TENSORS], temporary, persistent;
    DML_BUFFER_ARRAY_BINDING owned_inputs;
    DML_BINDING_DESC bindings[MAX_TENSORS], one;
    UINT init_count = init->RequiredDescriptorCount ? init->RequiredDescriptorCount : 1;
    UINT exec_count = exec->RequiredDescriptorCount ? exec->RequiredDescriptorCount : 1;
    UINT64 temporary_size = init->TemporaryResourceSize > exec->TemporaryResourceSize
                                ? init->TemporaryResourceSize
                                : exec->TemporaryResourceSize;
    int owned = 0;
    size_t i;

    memset(&heap_desc, 0, sizeof heap_desc);
    heap_desc.Type = D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV;
    heap_desc.NumDescriptors = init_count + exec_count;
    heap_desc.Flags = D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE;
    if (!succeeded(f, "ID3D12Device::CreateDescriptorHeap",
                   ID3D12Device_CreateDescriptorHeap(g->device, &heap_desc,
                                                     &IID_ID3D12DescriptorHeap, (void **)&c->heap)))
        return 0;
    if (temporary_size && !create_buffer(g, D3D12_HEAP_TYPE_DEFAULT, temporary_size,
                                         D3D12_RESOURCE_STATE_UNORDERED_ACCESS, &c->temporary, f))
        return 0;
    if (exec->PersistentResourceSize &&
        !create_buffer(g, D3D12_HEAP_TYPE_DEFAULT, exec->PersistentResourceSize,
                       D3D12_RESOURCE_STATE_UNORDERED_ACCESS, &c->persistent, f))
        return 0;
    temporary = whole(c->temporary, temporary_size);
    persistent = whole(c->persistent, exec->PersistentResourceSize);

    /* the initializer: inputs owned by DirectML, the persistent resource as its output */
    table.Dispatchable = (IDMLDispatchable *)c->initializer;
    c->heap->lpVtbl->GetCPUDescriptorHandleForHeapStart(c->heap, &table.CPUDescriptorHandle);
    c->heap->lpVtbl->GetGPUDescriptorHandleForHeapStart(c->heap, &table.GPUDescriptorHandle);
    table.SizeInDescriptors = init_count;
    if (!succeeded(f, "IDMLDevice::CreateBindingTable",
                   g->dml->lpVtbl->CreateBindingTable(g->dml, &table, &dmlref_iid_IDMLBindingTable,
                                                      (void **)&c->table)))
        return 0;
    for (i = 0; i < t->input_count; ++i) {
        owned |= (t->bound[i]->Flags & DMLREF_TENSOR_FLAG_OWNED_BY_DML) != 0;
        buffers[i] = t->bound[i]->Flags & DMLREF_TENSOR_FLAG_OWNED_BY_DML
                         ? whole(c->buffers[i], t->bound[i]->TotalTensorSizeInBytes)
                         : whole(NULL, 0);
    }
    owned_inputs.BindingCount = (UINT)t->input_count;
    owned_inputs.Bindings = buffers;
    one.Type = DML_BINDING_TYPE_BUFFER_ARRAY;
    one.Desc = &owned_inputs;
    c->table->lpVtbl->BindInputs(c->table, owned ? 1 : 0, owned ? &one : NULL);
    one.Type = c->persistent ? DML_BINDING_TYPE_BUFFER : DML_BINDING_TYPE_NONE;
    one.Desc = c->persistent ? &persistent : NULL;
    c->table->lpVtbl->BindOutputs(c->table, 1, &one);
    if (init->TemporaryResourceSize) {
        one.Type = DML_BINDING_TYPE_BUFFER;
        one.Desc = &temporary;
        c->table->lpVtbl->BindTemporaryResource(c->table, &one);
    }
    ID3D12GraphicsCommandList_SetDescriptorHeaps(g->list, 1, &c->heap);
    g->recorder->lpVtbl->RecordDispatch(g->recorder, (ID3D12CommandList *)g->list,
                                        (IDMLDispatchable *)c->initializer, c->table);
    uav_barrier(g);

    /* the operator: every tensor but the inputs bound at initialization */
    table.Dispatchable = (IDMLDispatchable *)c->compiled;
    table.CPUDescriptorHandle.ptr += (SIZE_T)init_count * g->descriptor_size;
    table.GPUDescriptorHandle.ptr += (UINT64)init_count * g->descriptor_size;
    table.SizeInDescriptors = exec_count;
    if (!succeeded(f, "IDMLBindingTable::Reset", c->table->lpVtbl->Reset(c->table, &table)))
        return 0;
    for (i = 0; i < t->input_count; ++i) {
        buffers[i] = whole(c->buffers[i], t->bound[i]->TotalTensorSizeInBytes);
        bindings[i].Type = t->bound[i]->Flags & DMLREF_TENSOR_FLAG_OWNED_BY_DML
                               ? DML_BINDING_TYPE_NONE
                               : DML_BINDING_TYPE_BUFFER;
        bindings[i].Desc = bindings[i].Type == DML_BINDING_TYPE_BUFFER ? &buffers[i] : NULL;
    }
    c->table->lpVtbl->BindInputs(c->table, (UINT)t->input_count, bindings);
    for (i = t->input_count; i < t->input_count + t->output_count; ++i) {
        buffers[i] = whole(c->buffers[i], t->bound[i]->TotalTensorSizeInBytes);
        bindings[i].Type = DML_BINDING_TYPE_BUFFER;
        bindings[i].Desc = &buffers[i];
    }
    c->table->lpVtbl->BindOutputs(c->table, (UINT)t->output_count, bindings + t->input_count);
    if (exec->TemporaryResourceSize) {
        one.Type = DML_BINDING_TYPE_BUFFER;
        one.Desc = &temporary;
        c->table->lpVtbl->BindTemporaryResource(c->table, &one);
    }
    if (c->persistent) {
        one.Type = DML_BINDING_TYPE_BUFFER;
        one.Desc = &persistent;
        c->table->lpVtbl->BindPersistentResource(c->table, &one);
    }
    g->recorder->lpVtbl->RecordDispatch(g->recorder, (ID3D12CommandList *)g->list,
                                        (IDMLDispatchable *)c->compiled, c->table);
    uav_barrier(g);
    return 1;
}

/* Closes the command list, runs it and waits for the GPU to finish it. */
static int execute_and_wait(gpu *g, failure *f)
{
    ID3D12CommandList *lists[1];
    lists[0] = (ID3D12CommandList *)g->list;
    if (!succeeded(f, "ID3D12GraphicsCommandList::Close", ID3D12GraphicsCommandList_Close(g->list)))
        return 0;
    ID3D12CommandQueue_ExecuteCommandLists(g->queue, 1, lists);
    if (!succeeded(f, "ID3D12CommandQueue::Signal",
                   ID3D12CommandQueue_Signal(g->queue, g->fence, ++g->fence_value)))
        return 0;
    if (ID3D12Fence_GetCompletedValue(g->fence) < g->fence_value) {
        if (!succeeded(f, "ID3D12Fence::SetEventOnCompletion",
                       ID3D12Fence_SetEventOnCompletion(g->fence, g->fence_value, g->fence_event)))
            return 0;
        WaitForSingleObject(g->fence_event, INFINITE);
    }
    return succeeded(f, "ID3D12Device::GetDeviceRemovedReason",
                     ID3D12Device_GetDeviceRemovedReason(g->device));
}

/* Runs a case with data through DirectML into its host output buffers. */
static int run_case(gpu *g, const translation *t, const dmlref_vector *v, failure *f)
{
    case_objects c;
    DML_BINDING_PROPERTIES init, exec;
    UINT64 offsets[MAX_TENSORS], readback_total = 0, readback_offsets[MAX_OUTPUTS];
    const dmlref_binding *host = dmlref_vector_outputs(v);
    const dmlref_tensor_desc *const *outputs = t->bound + t->input_count;
    unsigned char *mapped;
    D3D12_RANGE read;
    size_t i;
    int ok = 0;

    memset(&c, 0, sizeof c);
    if (!succeeded(f, "IDMLDevice::CreateOperator",
                   g->dml->lpVtbl->CreateOperator(g->dml, &t->op, &dmlref_iid_IDMLOperator,
                                                  (void **)&c.op)) ||
        !succeeded(f, "IDMLDevice::CompileOperator",
                   g->dml->lpVtbl->CompileOperator(g->dml, c.op, DML_EXECUTION_FLAG_NONE,
                                                   &dmlref_iid_IDMLCompiledOperator,
                                                   (void **)&c.compiled)) ||
        !succeeded(f, "IDMLDevice::CreateOperatorInitializer",
                   g->dml->lpVtbl->CreateOperatorInitializer(g->dml, 1, &c.compiled,
                                                             &dmlref_iid_IDMLOperatorInitializer,
                                                             (void **)&c.initializer)))
        goto done;
    c.initializer->lpVtbl->GetBindingProperties(c.initializer, &init);
    c.compiled->lpVtbl->GetBindingProperties(c.compiled, &exec);

    if (!succeeded(f, "ID3D12CommandAllocator::Reset",
                   ID3D12CommandAllocator_Reset(g->allocator)) ||
        !succeeded(f, "ID3D12GraphicsCommandList::Reset",
                   ID3D12GraphicsCommandList_Reset(g->list, g->allocator, NULL)))
        goto done;
    if (!upload_tensors(g, t, v, &c, offsets, f) || !record_dispatches(g, t, &c, &init, &exec, f))
        goto close;
    for (i = 0; i < t->output_count; ++i) {
        readback_offsets[i] = readback_total;
        readback_total += (gpu_buffer_size(t, t->input_count + i) + 255) & ~(UINT64)255;
    }
    if (!create_buffer(g, D3D12_HEAP_TYPE_READBACK, readback_total, D3D12_RESOURCE_STATE_COPY_DEST,
                       &c.readback, f))
        goto close;
    for (i = 0; i < t->output_count; ++i) {
        ID3D12Resource *buffer = c.buffers[t->input_count + i];
        transition(g, buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                   D3D12_RESOURCE_STATE_COPY_SOURCE);
        ID3D12GraphicsCommandList_CopyBufferRegion(g->list, c.readback, readback_offsets[i], buffer,
                                                   0, gpu_buffer_size(t, t->input_count + i));
    }
    if (!execute_and_wait(g, f))
        goto done;
    read.Begin = 0;
    read.End = (SIZE_T)readback_total;
    if (!succeeded(f, "ID3D12Resource::Map(readback)",
                   ID3D12Resource_Map(c.readback, 0, &read, (void **)&mapped)))
        goto done;
    ok = 1;
    for (i = 0; i < t->output_count; ++i) {
        UINT64 n = outputs[i]->TotalTensorSizeInBytes, end = gpu_buffer_size(t, t->input_count + i);
        const unsigned char *bytes = mapped + readback_offsets[i];
        UINT64 b;
        for (b = n; b < end && bytes[b] == PREFILL_BYTE; ++b)
            ;
        if (b < end && ok) {
            snprintf(f->message, sizeof f->message,
                     "DirectML wrote past the TotalTensorSizeInBytes of %s (byte %llu of its "
                     "%llu; D14)",
                     t->output_names[i], (unsigned long long)b, (unsigned long long)n);
            ok = 0;
        }
        if (n > host[i].size_in_bytes)
            n = host[i].size_in_bytes;
        memcpy(host[i].data, bytes, (size_t)n);
    }
    read.End = 0;
    ID3D12Resource_Unmap(c.readback, 0, &read);
    goto done;
close:
    /* the list is open: closed so that the next case may reset it */
    ID3D12GraphicsCommandList_Close(g->list);
done:
    release_case(&c);
    return ok;
}

/* Only CreateOperator, for a case whose shapes cannot hold data. */
static int create_only(gpu *g, const translation *t, failure *f)
{
    IDMLOperator *op = NULL;
    int ok = succeeded(
        f, "IDMLDevice::CreateOperator",
        g->dml->lpVtbl->CreateOperator(g->dml, &t->op, &dmlref_iid_IDMLOperator, (void **)&op));
    RELEASE(op);
    return ok;
}

/* ---- replies ----------------------------------------------------------------------------- */

static uint64_t element_bits(const unsigned char *data, uint64_t offset, uint32_t size)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    data += offset * size;
    switch (size) {
    case 1:
        memcpy(&u8, data, 1);
        return u8;
    case 2:
        memcpy(&u16, data, 2);
        return u16;
    case 4:
        memcpy(&u32, data, 4);
        return u32;
    default:
        memcpy(&u64, data, 8);
        return u64;
    }
}

/* "[e0, e1, ...]": the logical elements, row-major over the sizes, each
   read through the strides (none: packed). */
static void append_elements(text *t, const dmlref_tensor_desc *desc, const unsigned char *data)
{
    uint32_t coordinate[DMLREF_TENSOR_DIMENSION_COUNT_MAX] = {0};
    uint32_t strides[DMLREF_TENSOR_DIMENSION_COUNT_MAX];
    uint32_t size = dmlref_data_type_size(desc->DataType), d, rank = desc->DimensionCount;
    uint64_t count = 1, k, stride = 1;
    for (d = rank; d-- > 0;) {
        strides[d] = desc->Strides ? desc->Strides[d] : (uint32_t)stride;
        stride *= desc->Sizes[d];
        count *= desc->Sizes[d];
    }
    append_text(t, "[");
    for (k = 0; k < count; ++k) {
        uint64_t offset = 0;
        char element[64];
        for (d = 0; d < rank; ++d)
            offset += (uint64_t)coordinate[d] * strides[d];
        if (k > 0)
            append_text(t, ", ");
        append_text(t, dmlref_format_element(desc->DataType, element_bits(data, offset, size),
                                             element, sizeof element));
        for (d = rank; d-- > 0;) {
            if (++coordinate[d] < desc->Sizes[d])
                break;
            coordinate[d] = 0;
        }
    }
    append_text(t, "]");
}

static void append_status(text *reply, const char *name, const char *status, const char *message)
{
    append_text(reply, "{\"name\": ");
    append_json_string(reply, name);
    append_text(reply, ", \"status\": \"");
    append_text(reply, status);
    append_text(reply, "\", \"message\": ");
    append_json_string(reply, message);
    append_text(reply, "}");
}

static void append_outputs(text *reply, const char *name, const translation *t,
                           const dmlref_vector *v)
{
    size_t i;
    append_text(reply, "{\"name\": ");
    append_json_string(reply, name);
    append_text(reply, ", \"outputs\": {");
    for (i = 0; i < t->output_count; ++i) {
        append_text(reply, i ? ", \"" : "\"");
        append_text(reply, t->output_names[i]);
        append_text(reply, "\": ");
        append_elements(reply, t->bound[t->input_count + i], dmlref_vector_outputs(v)[i].data);
    }
    append_text(reply, "}}");
}

/* ---- requests ----------------------------------------------------------------------------- */

/* Reads a request.  A case whose shapes cannot hold data comes without it,
   and the reader takes such a case only when it expects an error: it is read
   again saying so, for its descriptors alone. */
static dmlref_vector *read_case(json_t *request, const char *line, size_t length, dmlref_error *err)
{
    dmlref_vector_read_options options;
    dmlref_vector *v = NULL;
    char *marked;
    options.flags = DMLREF_VECTOR_READ_CASE | DMLREF_VECTOR_READ_REFUSED;
    options.memory_cap = 0;
    if (dmlref_vector_parse(line, length, "request", &options, &v, err) == DMLREF_OK)
        return v;
    if (!json_is_object(request) || json_object_get(request, "expect_error"))
        return NULL;
    json_object_set_new(request, "expect_error",
                        json_pack("{s:s}", "status", "DMLREF_ERROR_INVALID_SIZES"));
    marked = json_dumps(request, JSON_COMPACT);
    if (marked &&
        dmlref_vector_parse(marked, strlen(marked), "request", &options, &v, NULL) != DMLREF_OK)
        v = NULL;
    free(marked);
    return v;
}

/* The reply to one request; 0 when the device is lost, after which the
   process ends (the harness starts a new one for the next case). */
static int answer(gpu *g, const char *line, size_t length, text *reply)
{
    json_t *request = json_loadb(line, length, 0, NULL);
    const char *name = json_string_value(json_object_get(request, "name"));
    dmlref_vector *v;
    dmlref_error err;
    translation t;
    failure f;
    int alive = 1;

    memset(&err, 0, sizeof err);
    if (!(v = read_case(request, line, length, &err))) {
        append_status(reply, name, "error", err.message[0] ? err.message : "not a case");
        json_decref(request);
        return 1;
    }
    translate(dmlref_vector_operator(v), &t);
    if ((unsigned)dmlref_vector_feature_level(v) < (unsigned)g->max_level) {
        char max[16], asked[16], message[256];
        format_level(g->max_level, max, sizeof max);
        format_level(dmlref_vector_feature_level(v), asked, sizeof asked);
        snprintf(message, sizeof message,
                 "DirectML validates at its maximum feature level, %s, and cannot be asked to "
                 "validate at %s",
                 max, asked);
        append_status(reply, name, "unsupported", message);
        ++g_tally.unsupported;
    } else if (!dmlref_vector_has_data(v)) {
        if (create_only(g, &t, &f)) {
            append_status(reply, name, "unsupported",
                          "DirectML accepted the descriptors (IDMLDevice::CreateOperator: S_OK), "
                          "but the case carries no data to run");
            ++g_tally.unsupported;
        } else {
            append_status(reply, name, "error", f.message);
            ++g_tally.refused;
        }
    } else if (run_case(g, &t, v, &f)) {
        append_outputs(reply, name, &t, v);
        ++g_tally.computed;
    } else {
        append_status(reply, name, "error", f.message);
        ++g_tally.refused;
        alive = ID3D12Device_GetDeviceRemovedReason(g->device) == S_OK;
    }
    dmlref_vector_free(v);
    json_decref(request);
    return alive;
}

static int read_line(text *line)
{
    char chunk[65536];
    line->length = 0;
    while (fgets(chunk, sizeof chunk, stdin)) {
        size_t n = strlen(chunk);
        append(line, chunk, n);
        if (n > 0 && chunk[n - 1] == '\n') {
            line->bytes[--line->length] = '\0';
            if (line->length > 0 && line->bytes[line->length - 1] == '\r')
                line->bytes[--line->length] = '\0';
            return 1;
        }
    }
    return line->length > 0;
}

static int serve(gpu *g)
{
    text line = {NULL, 0, 0}, reply = {NULL, 0, 0};
    int alive = 1;
    while (alive && read_line(&line)) {
        if (line.length == 0)
            continue;
        reply.length = 0;
        alive = answer(g, line.bytes, line.length, &reply);
        fwrite(reply.bytes, 1, reply.length, stdout);
        fputc('\n', stdout);
        fflush(stdout); /* the harness waits for the line */
    }
    free(line.bytes);
    free(reply.bytes);
    if (!alive)
        fputs("directml_process: the device was removed; ending\n", stderr);
    if (g_log)
        fprintf(g_log,
                "directml_process: %lu cases computed, %lu refused by DirectML, %lu not asked "
                "(unsupported)%s\n",
                g_tally.computed, g_tally.refused, g_tally.unsupported,
                alive ? "" : "; the device was removed");
    return alive ? 0 : 1;
}

/* ---- the canary ----------------------------------------------------------------------------- */

/* GatherElements on FLOAT32 {2, 3} = 1..6, along each axis, with INT32 and
   UINT32 indices: every element of each output is written by a dispatch. */
static const struct canary_case {
    const char *request;
    float expected[6];
} k_canary[] = {
    {"{\"format\": \"dmlref-vector-1\", \"name\": \"canary/int32_axis0\", \"operator\": "
     "\"GATHER_ELEMENTS\", "
     "\"feature_level\": \"6_4\", \"attributes\": {\"Axis\": 0}, \"tensors\": {"
     "\"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3], \"data\": [1, 2, 3, 4, 5, 6]}, "
     "\"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [2, 3], \"data\": [1, 0, 1, 0, 1, 0]}, "
     "\"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3]}}}",
     {4, 2, 6, 1, 5, 3}},
    {"{\"format\": \"dmlref-vector-1\", \"name\": \"canary/uint32_axis1\", \"operator\": "
     "\"GATHER_ELEMENTS\", "
     "\"feature_level\": \"6_4\", \"attributes\": {\"Axis\": 1}, \"tensors\": {"
     "\"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3], \"data\": [1, 2, 3, 4, 5, 6]}, "
     "\"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2, 3], \"data\": [2, 0, 1, 1, 2, 0]}, "
     "\"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3]}}}",
     {3, 1, 2, 5, 6, 4}},
};

/* 0 when DirectML computed every canary case right; else 2, having said why
   on stdout in one line.  A stack that returns S_OK and writes nothing must
   fail here. */
static int canary(const char *dll)
{
    gpu g;
    failure f;
    size_t k;
    if (!open_gpu(&g, dll, &f)) {
        printf("directml_process: canary: %s\n", f.message);
        return 2;
    }
    for (k = 0; k < sizeof k_canary / sizeof *k_canary; ++k) {
        const struct canary_case *c = &k_canary[k];
        dmlref_vector_read_options options;
        dmlref_vector *v = NULL;
        dmlref_error err;
        translation t;
        float got[6];
        uint32_t words[6];
        size_t i, prefilled = 0, wrong = 0;
        options.flags = DMLREF_VECTOR_READ_CASE;
        options.memory_cap = 0;
        if (dmlref_vector_parse(c->request, strlen(c->request), "canary", &options, &v, &err) !=
            DMLREF_OK) {
            printf("directml_process: %s\n", err.message);
            return 2;
        }
        translate(dmlref_vector_operator(v), &t);
        if (!run_case(&g, &t, v, &f)) {
            printf("directml_process: canary: %s: %s\n", dmlref_vector_name(v), f.message);
            return 2;
        }
        memcpy(got, dmlref_vector_outputs(v)[0].data, sizeof got);
        memcpy(words, got, sizeof words);
        for (i = 0; i < 6; ++i) {
            prefilled += words[i] == 0xCDCDCDCDu;
            wrong += memcmp(&got[i], &c->expected[i], sizeof got[i]) != 0;
        }
        if (prefilled == 6) {
            printf("directml_process: canary: %s: the dispatch returned S_OK but OutputTensor "
                   "still holds its prefill 0xCDCDCDCD: this Vulkan driver/vkd3d drops compute "
                   "writes\n",
                   dmlref_vector_name(v));
            return 2;
        }
        if (wrong) {
            printf("directml_process: canary: %s: OutputTensor is [%g, %g, %g, %g, %g, %g], "
                   "not [%g, %g, %g, %g, %g, %g]\n",
                   dmlref_vector_name(v), got[0], got[1], got[2], got[3], got[4], got[5],
                   c->expected[0], c->expected[1], c->expected[2], c->expected[3], c->expected[4],
                   c->expected[5]);
            return 2;
        }
        dmlref_vector_free(v);
    }
    fputs("directml_process: canary passed: GatherElements FLOAT32 {2, 3} along both axes, "
          "INT32 and UINT32 indices\n",
          stderr);
    return 0;
}

/* ---- main ----------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *dll = NULL;
    int i, run_canary = 0;
    gpu g;
    failure f;

    _setmode(_fileno(stdin), _O_BINARY); /* "\n", never "\r\n" */
    _setmode(_fileno(stdout), _O_BINARY);
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--dll") == 0 && i + 1 < argc) {
            dll = argv[++i];
        } else if (strcmp(argv[i], "--canary") == 0) {
            run_canary = 1;
        } else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
            if (!(g_log = fopen(argv[++i], "ab"))) { /* "\n", never "\r\n" */
                fprintf(stderr, "directml_process: --log %s: cannot open it\n", argv[i]);
                return 3;
            }
        } else {
            fprintf(stderr, "directml_process: unknown argument '%s'\n", argv[i]);
            dll = NULL;
            break;
        }
    }
    if (!dll) {
        fputs("usage: directml_process --dll DirectML.dll [--canary] [--log FILE]\n", stderr);
        return 3;
    }
    if (run_canary)
        return canary(dll);
    if (!open_gpu(&g, dll, &f)) {
        fprintf(stderr, "directml_process: %s\n", f.message);
        return 1;
    }
    return serve(&g);
}
