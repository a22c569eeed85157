/*
 * case_files.h - the suite's hand-written cases (src/suite/cases/), embedded
 * into the command at build time by scripts/build/embed_cases.sh, which writes
 * their definitions into $(BUILD)/gen/suite_cases.c.  Part of the command.
 */
#ifndef DMLREF_SUITE_CASE_FILES_H
#define DMLREF_SUITE_CASE_FILES_H

#include <stddef.h>

typedef struct suite_case_file {
    const char *path;          /* relative to src/suite/cases, e.g.
                                  "gather_elements/float32/2d/doc_example.json" */
    const unsigned char *text; /* the file's bytes (no NUL after them) */
    size_t length;
} suite_case_file;

/* In the order of src/suite/cases/LIST. */
extern const suite_case_file suite_case_files[];
extern const size_t suite_case_file_count;

#endif /* DMLREF_SUITE_CASE_FILES_H */
