/*
 * dmlref/backend.h - the plug-in interface through which `dmlref check` and
 * `dmlref fuzz` run another implementation of the operators.
 *
 * A plug-in is a shared library (a .so, a .dylib, a Windows .dll) that
 * exports one function, with C linkage, under that name:
 *
 *     DMLREF_BACKEND_EXPORT
 *     const dmlref_backend_v1 *dmlref_backend_entry(uint32_t abi_version);
 *
 * DMLREF_BACKEND_EXPORT makes it visible: __declspec(dllexport) on
 * Windows, which MinGW-w64's gcc and clang and Microsoft's cl.exe all
 * take (with cl.exe, a .def file "EXPORTS dmlref_backend_entry" does as
 * well; a 32-bit DLL must keep the default __cdecl convention, whose name
 * is exported undecorated, so that GetProcAddress finds it); default
 * visibility with gcc and clang elsewhere (for a plug-in built with
 * -fvisibility=hidden).  In C++, include this header as it is: it declares
 * everything extern "C".
 *
 * dmlref calls it with DMLREF_BACKEND_ABI_VERSION; the plug-in returns its
 * table (static storage, never freed), or NULL when it does not speak that
 * version.  dmlref then checks abi_version and struct_size, calls create
 * once, and for each case supports, then execute, on host buffers laid out
 * exactly as dmlref_execute() takes them (include/dmlref.h): the
 * descriptors are DirectML's, the bindings in descriptor order, inputs
 * first.  A GPU backend uploads, runs and downloads inside execute.
 *
 * dmlref runs the plug-in in a worker process (with everything it starts
 * in a process group or, on Windows, a Job object of its own; its stdout
 * and stderr in a file of their own): a crash or a hang is reported as an
 * error for the case at hand, and the worker is started again for the next
 * one.  The worker is a fork of dmlref on POSIX and dmlref's executable
 * started again on Windows, which loads the DLL once more: the library is
 * loaded in dmlref too (for its name and feature level), then in each
 * worker, where create() runs.  Each buffer starts on a page, after a page the plug-in cannot
 * touch, and the rest of its last page is checked: a write past an output's
 * TotalTensorSizeInBytes, before a buffer, or into an input is a failure.
 * Output padding (bytes of an output that hold no element) may be written.
 * Nothing may touch the buffers after execute returns (docs/conformance.md).
 *
 * Fields are only ever added at the end, with struct_size telling dmlref how
 * much of the table a plug-in fills; a change of meaning takes a new ABI
 * version and a new struct name.
 */
#ifndef DMLREF_BACKEND_H
#define DMLREF_BACKEND_H

#include "dmlref.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DMLREF_BACKEND_ABI_VERSION 1u

typedef struct dmlref_backend_v1 {
    uint32_t abi_version;                   /* DMLREF_BACKEND_ABI_VERSION */
    uint32_t struct_size;                   /* sizeof(dmlref_backend_v1) */
    const char *name;                       /* "my-gpu-backend" */
    const char *version;                    /* the backend's own version, free text */
    dmlref_feature_level max_feature_level; /* the highest level it implements */

    /* Creates a context.  `options` is the text given with
       --backend-options, or NULL.  On failure, a one-line message. */
    dmlref_status (*create)(const char *options, void **context, char *message,
                            size_t message_capacity);

    /* DMLREF_OK when it can run the operator as described at this level;
       DMLREF_ERROR_UNSUPPORTED_* when it cannot (the case is skipped); any
       other error when it refuses the description as invalid. */
    dmlref_status (*supports)(void *context, const dmlref_operator_desc *op,
                              dmlref_feature_level feature_level);

    /* Runs the operator.  DMLREF_OK, or an error with a one-line message
       (a refusal of an invalid case, or a failure). */
    dmlref_status (*execute)(void *context, const dmlref_operator_desc *op,
                             dmlref_feature_level feature_level, const dmlref_binding *inputs,
                             size_t input_count, const dmlref_binding *outputs, size_t output_count,
                             char *message, size_t message_capacity);

    void (*destroy)(void *context);
} dmlref_backend_v1;

/* The one symbol a plug-in exports. */
typedef const dmlref_backend_v1 *(*dmlref_backend_entry_fn)(uint32_t abi_version);
#define DMLREF_BACKEND_ENTRY_SYMBOL "dmlref_backend_entry"

#if defined(_WIN32) || defined(__CYGWIN__)
#define DMLREF_BACKEND_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define DMLREF_BACKEND_EXPORT __attribute__((visibility("default")))
#else
#define DMLREF_BACKEND_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif /* DMLREF_BACKEND_H */
