/*
 * operators.c - the table of operators: one row per operator type, and the
 * public calls that read it (names, first feature levels, output shapes).
 *
 * A row is written from the descriptor struct itself: IN, OUT and ATTRIBUTE
 * take a field, so each name is the field's own and each offset its
 * offsetof.  The functions a row names live with the operator's rules
 * (validate.c) and kernels (src/kernels/, reference/).
 */
#include "core/core.h"
#include "kernels/kernels.h"
#include "reference/reference.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

#define SLOT(desc, field, flags)                                                                   \
    {                                                                                              \
#field, (flags), offsetof(desc, field)                                                     \
    }
#define IN(desc, field) SLOT(desc, field, 0)
#define INDICES(desc, field) SLOT(desc, field, OPERATOR_SLOT_INDICES)
#define INDEX_TUPLES(desc, field)                                                                  \
    SLOT(desc, field, OPERATOR_SLOT_INDICES | OPERATOR_SLOT_INDEX_TUPLES)
#define OUT(desc, field) SLOT(desc, field, OPERATOR_SLOT_OUTPUT)
#define ATTRIBUTE(desc, field)                                                                     \
    {                                                                                              \
#field, offsetof(desc, field)                                                              \
    }

/* Every descriptor struct fits operator_desc_storage (a negative array size
   fails the build). */
#define FITS(desc) typedef char fits_##desc[sizeof(desc) <= OPERATOR_DESC_CAPACITY ? 1 : -1]
FITS(dmlref_gather_elements_desc);
FITS(dmlref_scatter_elements_desc);
FITS(dmlref_gather_nd_desc);
FITS(dmlref_gather_nd1_desc);
FITS(dmlref_nonzero_coordinates_desc);

/* ---- adapters --------------------------------------------------------------- */

/* GATHER_ND is GATHER_ND1 with BatchDimensionCount = 0 (R-GN-10): its
   validation, shapes and kernels are GATHER_ND1's. */
static void gather_nd_as_nd1(const void *desc, operator_desc_storage *adapted)
{
    const dmlref_gather_nd1_desc nd1 = gather_nd1_of(desc);
    memcpy(adapted->bytes, &nd1, sizeof nd1);
}

/* The kernels take their buffers as separate, named arguments; execute
   hands them over in binding order.  One adapter per operator and kernel
   set: reference_<op> calls dmlref_ref_<op>, fast_<op> dmlref_fast_<op>. */
#define KERNEL_ADAPTERS(op, buffer_arguments)                                                      \
    static dmlref_status reference_##op(const kernel_context *ctx, const void *desc,               \
                                        void *const *buffers, dmlref_error *err)                   \
    {                                                                                              \
        return dmlref_ref_##op(ctx, desc, buffer_arguments, err);                                  \
    }                                                                                              \
    static dmlref_status fast_##op(const kernel_context *ctx, const void *desc,                    \
                                   void *const *buffers, dmlref_error *err)                        \
    {                                                                                              \
        return dmlref_fast_##op(ctx, desc, buffer_arguments, err);                                 \
    }

#define BUFFERS_3 buffers[0], buffers[1], buffers[2]
#define BUFFERS_4 buffers[0], buffers[1], buffers[2], buffers[3]
KERNEL_ADAPTERS(gather_elements, BUFFERS_3)
KERNEL_ADAPTERS(scatter_elements, BUFFERS_4)
KERNEL_ADAPTERS(gather_nd1, BUFFERS_3)
KERNEL_ADAPTERS(nonzero_coordinates, BUFFERS_3)

/* ---- the table ------------------------------------------------------------------
 * First feature levels: DirectML's feature level history (R-SC-12 for
 * Scatter, whose page wrongly says 1_0).
 */

static const operator_info k_operators[] = {
    {
        .type = DMLREF_OPERATOR_GATHER_ELEMENTS,
        .name = "GATHER_ELEMENTS",
        .introduced = DMLREF_FEATURE_LEVEL_2_1,
        .introduced_rule = "R-GE-5",
        .desc_size = sizeof(dmlref_gather_elements_desc),
        .input_count = 2,
        .output_count = 1,
        .tensors = {IN(dmlref_gather_elements_desc, InputTensor),
                    INDICES(dmlref_gather_elements_desc, IndicesTensor),
                    OUT(dmlref_gather_elements_desc, OutputTensor)},
        .attribute_count = 1,
        .attributes = {ATTRIBUTE(dmlref_gather_elements_desc, Axis)},
        .validate = validate_gather_elements,
        .infer_output_sizes = infer_gather_elements,
        .reference = reference_gather_elements,
        .fast = fast_gather_elements,
    },
    {
        .type = DMLREF_OPERATOR_SCATTER_ELEMENTS,
        .name = "SCATTER_ELEMENTS",
        .alias = "SCATTER", /* DML_OPERATOR_SCATTER: the same number and descriptor */
        .introduced = DMLREF_FEATURE_LEVEL_2_0,
        .introduced_rule = "R-SC-12",
        .desc_size = sizeof(dmlref_scatter_elements_desc),
        .input_count = 3,
        .output_count = 1,
        .tensors = {IN(dmlref_scatter_elements_desc, InputTensor),
                    INDICES(dmlref_scatter_elements_desc, IndicesTensor),
                    IN(dmlref_scatter_elements_desc, UpdatesTensor),
                    OUT(dmlref_scatter_elements_desc, OutputTensor)},
        .attribute_count = 1,
        .attributes = {ATTRIBUTE(dmlref_scatter_elements_desc, Axis)},
        .validate = validate_scatter_elements,
        .infer_output_sizes = infer_scatter_elements,
        .reference = reference_scatter_elements,
        .fast = fast_scatter_elements,
    },
    {
        .type = DMLREF_OPERATOR_GATHER_ND,
        .name = "GATHER_ND",
        .introduced = DMLREF_FEATURE_LEVEL_2_1,
        .introduced_rule = "R-GN-8",
        .desc_size = sizeof(dmlref_gather_nd_desc),
        .input_count = 2,
        .output_count = 1,
        .tensors = {IN(dmlref_gather_nd_desc, InputTensor),
                    INDEX_TUPLES(dmlref_gather_nd_desc, IndicesTensor),
                    OUT(dmlref_gather_nd_desc, OutputTensor)},
        .attribute_count = 2,
        .attributes = {ATTRIBUTE(dmlref_gather_nd_desc, InputDimensionCount),
                       ATTRIBUTE(dmlref_gather_nd_desc, IndicesDimensionCount)},
        .adapt = gather_nd_as_nd1, /* the functions below are GATHER_ND1's */
        .validate = validate_gather_nd1,
        .infer_output_sizes = infer_gather_nd1,
        .reference = reference_gather_nd1,
        .fast = fast_gather_nd1,
    },
    {
        .type = DMLREF_OPERATOR_NONZERO_COORDINATES,
        .name = "NONZERO_COORDINATES",
        .introduced = DMLREF_FEATURE_LEVEL_3_0,
        .introduced_rule = "R-NZ-6",
        .desc_size = sizeof(dmlref_nonzero_coordinates_desc),
        .input_count = 1,
        .output_count = 2,
        .tensors = {IN(dmlref_nonzero_coordinates_desc, InputTensor),
                    OUT(dmlref_nonzero_coordinates_desc, OutputCountTensor),
                    OUT(dmlref_nonzero_coordinates_desc, OutputCoordinatesTensor)},
        .attribute_count = 0,
        .validate = validate_nonzero_coordinates,
        .infer_output_sizes = infer_nonzero_coordinates,
        .reference = reference_nonzero_coordinates,
        .fast = fast_nonzero_coordinates,
    },
    {
        .type = DMLREF_OPERATOR_GATHER_ND1,
        .name = "GATHER_ND1",
        .introduced = DMLREF_FEATURE_LEVEL_3_0,
        .introduced_rule = "R-GN-8",
        .desc_size = sizeof(dmlref_gather_nd1_desc),
        .input_count = 2,
        .output_count = 1,
        .tensors = {IN(dmlref_gather_nd1_desc, InputTensor),
                    INDEX_TUPLES(dmlref_gather_nd1_desc, IndicesTensor),
                    OUT(dmlref_gather_nd1_desc, OutputTensor)},
        .attribute_count = 3,
        .attributes = {ATTRIBUTE(dmlref_gather_nd1_desc, InputDimensionCount),
                       ATTRIBUTE(dmlref_gather_nd1_desc, IndicesDimensionCount),
                       ATTRIBUTE(dmlref_gather_nd1_desc, BatchDimensionCount)},
        .validate = validate_gather_nd1,
        .infer_output_sizes = infer_gather_nd1,
        .reference = reference_gather_nd1,
        .fast = fast_gather_nd1,
    },
};

/* ---- lookups ----------------------------------------------------------------- */

const operator_info *operator_find(dmlref_operator_type type)
{
    size_t i;
    for (i = 0; i < COUNT_OF(k_operators); ++i)
        if (k_operators[i].type == type)
            return &k_operators[i];
    return NULL;
}

const operator_info *operator_find_name(const char *name)
{
    size_t i;
    if (!name)
        return NULL;
    for (i = 0; i < COUNT_OF(k_operators); ++i)
        if (strcmp(k_operators[i].name, name) == 0 ||
            (k_operators[i].alias && strcmp(k_operators[i].alias, name) == 0))
            return &k_operators[i];
    return NULL;
}

size_t operator_count(void)
{
    return COUNT_OF(k_operators);
}

const operator_info *operator_at(size_t i)
{
    return i < COUNT_OF(k_operators) ? &k_operators[i] : NULL;
}

/* ---- descriptors through the row ------------------------------------------------
 * Fields are copied with memcpy at their offsets: no type punning. */

void operator_desc_tensors(const operator_info *row, const void *desc,
                           const dmlref_tensor_desc **tensors)
{
    size_t i;
    for (i = 0; i < row->input_count + row->output_count; ++i)
        memcpy(&tensors[i], (const unsigned char *)desc + row->tensors[i].offset,
               sizeof tensors[i]);
}

void operator_desc_attributes(const operator_info *row, const void *desc, uint32_t *attributes)
{
    size_t i;
    for (i = 0; i < row->attribute_count; ++i)
        memcpy(&attributes[i], (const unsigned char *)desc + row->attributes[i].offset,
               sizeof attributes[i]);
}

void operator_desc_build(const operator_info *row, void *desc,
                         const dmlref_tensor_desc *const *tensors, const uint32_t *attributes)
{
    size_t i;
    memset(desc, 0, row->desc_size);
    for (i = 0; i < row->input_count + row->output_count; ++i)
        memcpy((unsigned char *)desc + row->tensors[i].offset, &tensors[i], sizeof tensors[i]);
    for (i = 0; i < row->attribute_count; ++i)
        memcpy((unsigned char *)desc + row->attributes[i].offset, &attributes[i],
               sizeof attributes[i]);
}

const void *operator_desc_adapted(const operator_info *row, const void *desc,
                                  operator_desc_storage *storage)
{
    if (!row->adapt)
        return desc;
    row->adapt(desc, storage);
    return storage->bytes;
}

/* ---- public calls ------------------------------------------------------------- */

const char *dmlref_operator_name(dmlref_operator_type type)
{
    const operator_info *row = operator_find(type);
    return row ? row->name : NULL;
}

int dmlref_operator_from_name(const char *name, dmlref_operator_type *type)
{
    const operator_info *row = operator_find_name(name);
    if (row && type)
        *type = row->type;
    return row != NULL;
}

dmlref_feature_level dmlref_operator_introduced(dmlref_operator_type type)
{
    const operator_info *row = operator_find(type);
    return row ? row->introduced : (dmlref_feature_level)0;
}

dmlref_status dmlref_infer_output_sizes(const dmlref_operator_desc *op,
                                        dmlref_feature_level feature_level, uint32_t output_index,
                                        uint32_t *dimension_count,
                                        uint32_t sizes[DMLREF_TENSOR_DIMENSION_COUNT_MAX],
                                        dmlref_error *err)
{
    rule_context c;
    const operator_info *row;
    operator_desc_storage storage;
    uint32_t rank = 0, inferred[MAX_RANK];

    c.op = "dmlref_infer_output_sizes";
    c.err = err;
    c.level = feature_level ? feature_level : DMLREF_FEATURE_LEVEL_LATEST; /* D19 */
    if (!op || !op->Desc || !dimension_count || !sizes)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "", "%s: %s is NULL", c.op,
                         !op                ? "op"
                         : !op->Desc        ? "op->Desc"
                         : !dimension_count ? "dimension_count"
                                            : "sizes");
    if (!(row = operator_find(op->Type)))
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: operator type %u is not one dmlref implements", c.op,
                         (unsigned)op->Type);
    c.op = row->name;
    if (!dmlref_feature_level_name(c.level))
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: feature level 0x%x is not a DirectML feature level", c.op,
                         (unsigned)c.level);
    if (output_index >= row->output_count)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: output_index = %u, the operator has %zu output%s", c.op, output_index,
                         row->output_count, row->output_count == 1 ? "" : "s");
    CHECK(row->infer_output_sizes(&c, operator_desc_adapted(row, op->Desc, &storage), output_index,
                                  &rank, inferred));
    *dimension_count = rank;
    memcpy(sizes, inferred, rank * sizeof *sizes);
    return DMLREF_OK;
}
