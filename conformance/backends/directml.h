/*
 * directml.h - the part of DirectML's C interface that directml_process.c
 * uses, written for this project from Microsoft's public API reference
 * (learn.microsoft.com, "Direct Machine Learning (DirectML)": the enums with
 * their values, the structures, the interfaces and their IIDs), since
 * mingw-w64 ships d3d12.h but no DirectML.h.
 *
 * Only what the backend calls is declared.  An interface's vtable must
 * still list every method before the last one used, in the reference's
 * order, so the methods it never calls are declared too, as placeholders
 * typed `void *`.  Nothing here is checked by a compiler against the real
 * header: a wrong order or value shows as a failed or wrong dispatch, which
 * the backend's --canary catches.
 *
 * Calling convention: the interfaces' methods are __stdcall (the only one
 * on x86-64), and a method returning a structure takes a hidden pointer to
 * the result after `This` and returns that pointer (MSVC's C++ convention,
 * as d3d12.h declares it for ID3D12DescriptorHeap::GetCPUDescriptorHandle-
 * ForHeapStart).
 */
#ifndef DMLREF_DIRECTML_H
#define DMLREF_DIRECTML_H

#include <d3d12.h>

/* ---- enums ------------------------------------------------------------------- */

/* The same numbers as dmlref_tensor_data_type. */
typedef enum DML_TENSOR_DATA_TYPE {
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
    DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DML_TENSOR_DATA_TYPE_UINT32 = 3,
    DML_TENSOR_DATA_TYPE_UINT16 = 4,
    DML_TENSOR_DATA_TYPE_UINT8 = 5,
    DML_TENSOR_DATA_TYPE_INT32 = 6,
    DML_TENSOR_DATA_TYPE_INT16 = 7,
    DML_TENSOR_DATA_TYPE_INT8 = 8,
    DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DML_TENSOR_DATA_TYPE_UINT64 = 10,
    DML_TENSOR_DATA_TYPE_INT64 = 11
} DML_TENSOR_DATA_TYPE;

typedef enum DML_TENSOR_TYPE {
    DML_TENSOR_TYPE_INVALID = 0,
    DML_TENSOR_TYPE_BUFFER = 1
} DML_TENSOR_TYPE;

typedef enum DML_TENSOR_FLAGS {
    DML_TENSOR_FLAG_NONE = 0x0,
    DML_TENSOR_FLAG_OWNED_BY_DML = 0x1
} DML_TENSOR_FLAGS;

/* The same numbers as dmlref_operator_type. */
typedef enum DML_OPERATOR_TYPE {
    DML_OPERATOR_INVALID = 0,
    DML_OPERATOR_SCATTER = 94, /* DML_OPERATOR_SCATTER_ELEMENTS is the same value */
    DML_OPERATOR_GATHER_ELEMENTS = 107,
    DML_OPERATOR_GATHER_ND = 108,
    DML_OPERATOR_NONZERO_COORDINATES = 133,
    DML_OPERATOR_GATHER_ND1 = 140
} DML_OPERATOR_TYPE;

/* The same numbers as dmlref_feature_level. */
typedef enum DML_FEATURE_LEVEL {
    DML_FEATURE_LEVEL_1_0 = 0x1000,
    DML_FEATURE_LEVEL_2_0 = 0x2000,
    DML_FEATURE_LEVEL_2_1 = 0x2100,
    DML_FEATURE_LEVEL_3_0 = 0x3000,
    DML_FEATURE_LEVEL_3_1 = 0x3100,
    DML_FEATURE_LEVEL_4_0 = 0x4000,
    DML_FEATURE_LEVEL_4_1 = 0x4100,
    DML_FEATURE_LEVEL_5_0 = 0x5000,
    DML_FEATURE_LEVEL_5_1 = 0x5100,
    DML_FEATURE_LEVEL_5_2 = 0x5200,
    DML_FEATURE_LEVEL_6_0 = 0x6000,
    DML_FEATURE_LEVEL_6_1 = 0x6100,
    DML_FEATURE_LEVEL_6_2 = 0x6200,
    DML_FEATURE_LEVEL_6_3 = 0x6300,
    DML_FEATURE_LEVEL_6_4 = 0x6400
} DML_FEATURE_LEVEL;

typedef enum DML_FEATURE {
    DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT = 0,
    DML_FEATURE_FEATURE_LEVELS = 1
} DML_FEATURE;

typedef enum DML_EXECUTION_FLAGS {
    DML_EXECUTION_FLAG_NONE = 0x0,
    DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION = 0x1,
    DML_EXECUTION_FLAG_DISABLE_META_COMMANDS = 0x2,
    DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE = 0x4
} DML_EXECUTION_FLAGS;

typedef enum DML_CREATE_DEVICE_FLAGS {
    DML_CREATE_DEVICE_FLAG_NONE = 0x0,
    DML_CREATE_DEVICE_FLAG_DEBUG = 0x1
} DML_CREATE_DEVICE_FLAGS;

typedef enum DML_BINDING_TYPE {
    DML_BINDING_TYPE_NONE = 0,
    DML_BINDING_TYPE_BUFFER = 1,
    DML_BINDING_TYPE_BUFFER_ARRAY = 2
} DML_BINDING_TYPE;

/* ---- tensors and operators ----------------------------------------------------- */

typedef struct DML_BUFFER_TENSOR_DESC {
    DML_TENSOR_DATA_TYPE DataType;
    DML_TENSOR_FLAGS Flags;
    UINT DimensionCount;
    const UINT *Sizes;
    const UINT *Strides; /* NULL: packed */
    UINT64 TotalTensorSizeInBytes;
    UINT GuaranteedBaseOffsetAlignment;
} DML_BUFFER_TENSOR_DESC;

typedef struct DML_TENSOR_DESC {
    DML_TENSOR_TYPE Type;
    const void *Desc; /* a DML_BUFFER_TENSOR_DESC for DML_TENSOR_TYPE_BUFFER */
} DML_TENSOR_DESC;

typedef struct DML_OPERATOR_DESC {
    DML_OPERATOR_TYPE Type;
    const void *Desc; /* the DML_*_OPERATOR_DESC of Type */
} DML_OPERATOR_DESC;

typedef struct DML_GATHER_ELEMENTS_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *IndicesTensor;
    const DML_TENSOR_DESC *OutputTensor;
    UINT Axis;
} DML_GATHER_ELEMENTS_OPERATOR_DESC;

/* DML_SCATTER_ELEMENTS_OPERATOR_DESC is the same structure. */
typedef struct DML_SCATTER_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *IndicesTensor;
    const DML_TENSOR_DESC *UpdatesTensor;
    const DML_TENSOR_DESC *OutputTensor;
    UINT Axis;
} DML_SCATTER_OPERATOR_DESC;

typedef struct DML_GATHER_ND_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *IndicesTensor;
    const DML_TENSOR_DESC *OutputTensor;
    UINT InputDimensionCount;
    UINT IndicesDimensionCount;
} DML_GATHER_ND_OPERATOR_DESC;

typedef struct DML_GATHER_ND1_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *IndicesTensor;
    const DML_TENSOR_DESC *OutputTensor;
    UINT InputDimensionCount;
    UINT IndicesDimensionCount;
    UINT BatchDimensionCount;
} DML_GATHER_ND1_OPERATOR_DESC;

typedef struct DML_NONZERO_COORDINATES_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputCountTensor;
    const DML_TENSOR_DESC *OutputCoordinatesTensor;
} DML_NONZERO_COORDINATES_OPERATOR_DESC;

/* ---- feature queries ------------------------------------------------------------- */

typedef struct DML_FEATURE_QUERY_FEATURE_LEVELS {
    UINT RequestedFeatureLevelCount;
    const DML_FEATURE_LEVEL *RequestedFeatureLevels;
} DML_FEATURE_QUERY_FEATURE_LEVELS;

typedef struct DML_FEATURE_DATA_FEATURE_LEVELS {
    DML_FEATURE_LEVEL MaxSupportedFeatureLevel;
} DML_FEATURE_DATA_FEATURE_LEVELS;

/* ---- bindings --------------------------------------------------------------------- */

typedef struct DML_BINDING_PROPERTIES {
    UINT RequiredDescriptorCount;
    UINT64 TemporaryResourceSize;
    UINT64 PersistentResourceSize;
} DML_BINDING_PROPERTIES;

typedef struct DML_BUFFER_BINDING {
    ID3D12Resource *Buffer;
    UINT64 Offset;
    UINT64 SizeInBytes;
} DML_BUFFER_BINDING;

typedef struct DML_BUFFER_ARRAY_BINDING {
    UINT BindingCount;
    const DML_BUFFER_BINDING *Bindings;
} DML_BUFFER_ARRAY_BINDING;

typedef struct DML_BINDING_DESC {
    DML_BINDING_TYPE Type;
    const void *Desc; /* NULL, a DML_BUFFER_BINDING or a DML_BUFFER_ARRAY_BINDING */
} DML_BINDING_DESC;

typedef struct IDMLDispatchable IDMLDispatchable;

typedef struct DML_BINDING_TABLE_DESC {
    IDMLDispatchable *Dispatchable;
    D3D12_CPU_DESCRIPTOR_HANDLE CPUDescriptorHandle;
    D3D12_GPU_DESCRIPTOR_HANDLE GPUDescriptorHandle;
    UINT SizeInDescriptors;
} DML_BINDING_TABLE_DESC;

/* ---- interfaces --------------------------------------------------------------------- */

/* The methods every interface starts with: IUnknown's, then IDMLObject's. */
#define DMLREF_IDMLOBJECT_METHODS(Self)                                                            \
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(Self * self, REFIID riid, void **object);           \
    ULONG(STDMETHODCALLTYPE *AddRef)(Self * self);                                                 \
    ULONG(STDMETHODCALLTYPE *Release)(Self * self);                                                \
    void *GetPrivateData;                                                                          \
    void *SetPrivateData;                                                                          \
    void *SetPrivateDataInterface;                                                                 \
    void *SetName

/* IDMLDeviceChild's one method, after IDMLObject's. */
#define DMLREF_IDMLDEVICECHILD_METHODS(Self)                                                       \
    DMLREF_IDMLOBJECT_METHODS(Self);                                                               \
    void *GetDevice

/* IDMLDispatchable (after IDMLPageable, which adds nothing): its binding
   properties, returned through the hidden result pointer. */
#define DMLREF_IDMLDISPATCHABLE_METHODS(Self)                                                      \
    DMLREF_IDMLDEVICECHILD_METHODS(Self);                                                          \
    DML_BINDING_PROPERTIES *(STDMETHODCALLTYPE *                                                   \
                             GetBindingProperties)(Self * self, DML_BINDING_PROPERTIES * result)

typedef struct IDMLOperator IDMLOperator;
typedef struct IDMLCompiledOperator IDMLCompiledOperator;
typedef struct IDMLOperatorInitializer IDMLOperatorInitializer;
typedef struct IDMLBindingTable IDMLBindingTable;
typedef struct IDMLCommandRecorder IDMLCommandRecorder;
typedef struct IDMLDevice IDMLDevice;

typedef struct IDMLOperatorVtbl {
    DMLREF_IDMLDEVICECHILD_METHODS(IDMLOperator);
} IDMLOperatorVtbl;
struct IDMLOperator {
    const IDMLOperatorVtbl *lpVtbl;
};

typedef struct IDMLDispatchableVtbl {
    DMLREF_IDMLDISPATCHABLE_METHODS(IDMLDispatchable);
} IDMLDispatchableVtbl;
struct IDMLDispatchable {
    const IDMLDispatchableVtbl *lpVtbl;
};

typedef struct IDMLCompiledOperatorVtbl {
    DMLREF_IDMLDISPATCHABLE_METHODS(IDMLCompiledOperator);
} IDMLCompiledOperatorVtbl;
struct IDMLCompiledOperator {
    const IDMLCompiledOperatorVtbl *lpVtbl;
};

typedef struct IDMLOperatorInitializerVtbl {
    DMLREF_IDMLDISPATCHABLE_METHODS(IDMLOperatorInitializer);
    HRESULT(STDMETHODCALLTYPE *Reset)
    (IDMLOperatorInitializer *self, UINT operatorCount, IDMLCompiledOperator *const *operators);
} IDMLOperatorInitializerVtbl;
struct IDMLOperatorInitializer {
    const IDMLOperatorInitializerVtbl *lpVtbl;
};

typedef struct IDMLBindingTableVtbl {
    DMLREF_IDMLDEVICECHILD_METHODS(IDMLBindingTable);
    void(STDMETHODCALLTYPE *BindInputs)(IDMLBindingTable *self, UINT bindingCount,
                                        const DML_BINDING_DESC *bindings);
    void(STDMETHODCALLTYPE *BindOutputs)(IDMLBindingTable *self, UINT bindingCount,
                                         const DML_BINDING_DESC *bindings);
    void(STDMETHODCALLTYPE *BindTemporaryResource)(IDMLBindingTable *self,
                                                   const DML_BINDING_DESC *binding);
    void(STDMETHODCALLTYPE *BindPersistentResource)(IDMLBindingTable *self,
                                                    const DML_BINDING_DESC *binding);
    HRESULT(STDMETHODCALLTYPE *Reset)(IDMLBindingTable *self, const DML_BINDING_TABLE_DESC *desc);
} IDMLBindingTableVtbl;
struct IDMLBindingTable {
    const IDMLBindingTableVtbl *lpVtbl;
};

typedef struct IDMLCommandRecorderVtbl {
    DMLREF_IDMLDEVICECHILD_METHODS(IDMLCommandRecorder);
    void(STDMETHODCALLTYPE *RecordDispatch)(IDMLCommandRecorder *self,
                                            ID3D12CommandList *commandList,
                                            IDMLDispatchable *dispatchable,
                                            IDMLBindingTable *bindings);
} IDMLCommandRecorderVtbl;
struct IDMLCommandRecorder {
    const IDMLCommandRecorderVtbl *lpVtbl;
};

typedef struct IDMLDeviceVtbl {
    DMLREF_IDMLOBJECT_METHODS(IDMLDevice);
    HRESULT(STDMETHODCALLTYPE *CheckFeatureSupport)
    (IDMLDevice *self, DML_FEATURE feature, UINT featureQueryDataSize, const void *featureQueryData,
     UINT featureSupportDataSize, void *featureSupportData);
    HRESULT(STDMETHODCALLTYPE *CreateOperator)
    (IDMLDevice *self, const DML_OPERATOR_DESC *desc, REFIID riid, void **object);
    HRESULT(STDMETHODCALLTYPE *CompileOperator)
    (IDMLDevice *self, IDMLOperator *op, DML_EXECUTION_FLAGS flags, REFIID riid, void **object);
    HRESULT(STDMETHODCALLTYPE *CreateOperatorInitializer)
    (IDMLDevice *self, UINT operatorCount, IDMLCompiledOperator *const *operators, REFIID riid,
     void **object);
    HRESULT(STDMETHODCALLTYPE *CreateCommandRecorder)(IDMLDevice *self, REFIID riid, void **object);
    HRESULT(STDMETHODCALLTYPE *CreateBindingTable)
    (IDMLDevice *self, const DML_BINDING_TABLE_DESC *desc, REFIID riid, void **object);
    void *Evict;
    void *MakeResident;
    HRESULT(STDMETHODCALLTYPE *GetDeviceRemovedReason)(IDMLDevice *self);
} IDMLDeviceVtbl;
struct IDMLDevice {
    const IDMLDeviceVtbl *lpVtbl;
};

/* DMLCreateDevice1, looked up in DirectML.dll with GetProcAddress. */
typedef HRESULT(WINAPI *DMLCreateDevice1_function)(ID3D12Device *d3d12Device,
                                                   DML_CREATE_DEVICE_FLAGS flags,
                                                   DML_FEATURE_LEVEL minimumFeatureLevel,
                                                   REFIID riid, void **device);

/* ---- interface identifiers ------------------------------------------------------------ */

static const GUID dmlref_iid_IDMLDevice = {
    0x6dbd6437, 0x96fd, 0x423f, {0xa9, 0x8c, 0xae, 0x5e, 0x7c, 0x2a, 0x57, 0x3f}};
static const GUID dmlref_iid_IDMLOperator = {
    0x26caae7a, 0x3081, 0x4633, {0x95, 0x81, 0x22, 0x6f, 0xbe, 0x57, 0x69, 0x5d}};
static const GUID dmlref_iid_IDMLCompiledOperator = {
    0x6b15e56a, 0xbf5c, 0x4902, {0x92, 0xd8, 0xda, 0x3a, 0x65, 0x0a, 0xfe, 0xa4}};
static const GUID dmlref_iid_IDMLOperatorInitializer = {
    0x427c1113, 0x435c, 0x469c, {0x86, 0x76, 0x4d, 0x5d, 0xd0, 0x72, 0xf8, 0x13}};
static const GUID dmlref_iid_IDMLBindingTable = {
    0x29c687dc, 0xde74, 0x4e3b, {0xab, 0x00, 0x11, 0x68, 0xf2, 0xfc, 0x3c, 0xfc}};
static const GUID dmlref_iid_IDMLCommandRecorder = {
    0xe6857a76, 0x2e3e, 0x4fdd, {0xbf, 0xf4, 0x5d, 0x2b, 0xa1, 0x0f, 0xb4, 0x53}};

#endif /* DMLREF_DIRECTML_H */
