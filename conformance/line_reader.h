/*
 * line_reader.h - the process protocol's line framing, apart from any I/O so
 * that it can be tested and fuzzed alone (not installed).
 *
 * Bytes come in as a process writes them, in chunks of any size; lines come
 * out whole, without their newline, NUL-terminated.  A line longer than the
 * reader's limit is an error, not a reason to grow without bound.
 */
#ifndef DMLREF_LINE_READER_H
#define DMLREF_LINE_READER_H

#include <stddef.h>

typedef struct line_reader {
    char *buffer;
    size_t capacity;
    size_t start; /* buffer[start, used): received, not yet returned */
    size_t used;
    size_t scanned; /* buffer[start, scanned) holds no newline */
    size_t max_line;
} line_reader;

typedef enum line_result {
    LINE_READY,   /* *line holds the next line */
    LINE_PARTIAL, /* no whole line yet: receive more */
    LINE_TOO_LONG /* the line passes max_line bytes */
} line_result;

void line_reader_init(line_reader *r, size_t max_line);
void line_reader_free(line_reader *r);
/* Drops every byte held (a restarted process starts a new stream). */
void line_reader_clear(line_reader *r);
/* The longest line accepted from now on, without its newline. */
void line_reader_limit(line_reader *r, size_t max_line);

/* Where the next bytes go: room for at least one, *room bytes; NULL when
   memory runs out or the line at hand already passes the limit. */
char *line_reader_space(line_reader *r, size_t *room);
/* Counts `n` bytes written into the space line_reader_space() gave. */
void line_reader_received(line_reader *r, size_t n);

/* The next whole line, its newline replaced by NUL; *line stays valid until
   the next call of any line_reader function. */
line_result line_reader_next(line_reader *r, char **line, size_t *length);

/* Bytes received after the last line returned. */
size_t line_reader_held(const line_reader *r);

#endif /* DMLREF_LINE_READER_H */
