/*
 * line_reader.c - line framing for the process protocol (line_reader.h).
 */
#include "conformance/line_reader.h"

#include <stdlib.h>
#include <string.h>

enum { FIRST_CAPACITY = 1 << 16 };

void line_reader_init(line_reader *r, size_t max_line)
{
    memset(r, 0, sizeof *r);
    r->max_line = max_line;
}

void line_reader_free(line_reader *r)
{
    free(r->buffer);
    line_reader_init(r, r->max_line);
}

void line_reader_clear(line_reader *r)
{
    r->start = r->used = r->scanned = 0;
}

void line_reader_limit(line_reader *r, size_t max_line)
{
    r->max_line = max_line;
}

size_t line_reader_held(const line_reader *r)
{
    return r->used - r->start;
}

char *line_reader_space(line_reader *r, size_t *room)
{
    size_t held = r->used - r->start;
    if (held > r->max_line) /* a newline may still come, but this line is already too long */
        return NULL;
    if (r->start > 0 && r->used + 1 >= r->capacity) { /* move what is held to the front */
        memmove(r->buffer, r->buffer + r->start, held);
        r->scanned -= r->start;
        r->start = 0;
        r->used = held;
    }
    if (r->used + 1 >= r->capacity) {
        /* room for the longest line, its newline and the NUL, and no more */
        size_t most = r->max_line + 2;
        size_t capacity = r->capacity ? 2 * r->capacity : FIRST_CAPACITY;
        char *grown;
        if (capacity > most)
            capacity = most;
        if (capacity <= r->capacity || !(grown = realloc(r->buffer, capacity)))
            return NULL;
        r->buffer = grown;
        r->capacity = capacity;
    }
    *room = r->capacity - r->used - 1; /* one byte stays for the NUL */
    return r->buffer + r->used;
}

void line_reader_received(line_reader *r, size_t n)
{
    r->used += n;
}

line_result line_reader_next(line_reader *r, char **line, size_t *length)
{
    char *newline =
        r->used > r->scanned ? memchr(r->buffer + r->scanned, '\n', r->used - r->scanned) : NULL;
    size_t end;
    if (!newline) {
        r->scanned = r->used;
        return r->used - r->start > r->max_line ? LINE_TOO_LONG : LINE_PARTIAL;
    }
    end = (size_t)(newline - r->buffer);
    if (end - r->start > r->max_line)
        return LINE_TOO_LONG;
    *newline = '\0';
    *line = r->buffer + r->start;
    *length = end - r->start;
    r->start = r->scanned = end + 1;
    if (r->start == r->used) /* nothing held: start over at the front */
        r->start = r->used = r->scanned = 0;
    return LINE_READY;
}
