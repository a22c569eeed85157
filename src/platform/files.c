/*
 * files.c - what files.h is the same on every side (files_posix.c and
 * files_windows.c ask the system).
 */
#include "platform/files.h"

#include <stdlib.h>

int same_file(const file_identity *a, const file_identity *b)
{
    return a->volume == b->volume && a->file == b->file;
}

void free_folder_listing(folder_listing *listing)
{
    size_t i;
    for (i = 0; i < listing->count; ++i)
        free(listing->names[i]);
    free(listing->names);
    listing->names = NULL;
    listing->count = 0;
}
