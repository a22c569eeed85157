/*
 * playground.h - the web page's one door into the library
 * (docs/playground/): a case's JSON text in, everything the page shows of
 * it out, as one JSON object.  Compiled to WebAssembly for the page (make
 * playground) and natively for tests/unit/test_playground.c; a thin client of
 * the library, like the command line.
 */
#ifndef DMLREF_PLAYGROUND_H
#define DMLREF_PLAYGROUND_H

/* Tensors of more elements show their first this many. */
#define PLAYGROUND_MAX_ELEMENTS 4096

/* The memory cap cases are read under (the page's memory is the browser's). */
#define PLAYGROUND_MEMORY_CAP (256u << 20)

/* Everything the page shows of the case (or vector) in `text`, read as
 * `dmlref explain` reads a file named `source`:
 *
 *   {"read": false, "status": S, "rule": R, "message": M}   it cannot be read
 *
 * or {"read": true, and
 *   "name", "operator", "feature_level", "oob",
 *   "levels": [{"level": "1_0", "status": "OK" or S, "rule": R, "message": M}...]
 *             dmlref_validate() at every feature level;
 *   "result": {"status": "OK" or S, "rule", "message", "path"}: the case at
 *             its own level, refused or not (the JSON path of what a
 *             refusal names);
 *   "tensors": [{"name", "role": "input"|"output", "dtype", "sizes",
 *                "strides" (as given, or null), "count" (elements),
 *                "values": the first PLAYGROUND_MAX_ELEMENTS elements in
 *                row-major order, as `dmlref show` writes them; an output's
 *                null where any value passes, ["a", "b"] where any one of
 *                these does; null for a tensor without values}];
 *   "variants": [{"name": "subnormals_flushed", "rule": "R-NZ-10",
 *                 "outputs": [each output as in "tensors", its values the
 *                 variant's]}...]: the permitted variants (vectors/FORMAT.md)
 *             `dmlref eval` computes for the case, whatever the text
 *             states; [] when it has none or was not evaluated;
 *   "vector": the vector `dmlref eval` writes (a refused case: with the
 *             expect_error it is refused with), or null;
 *   "show": `dmlref show`'s text; "explain": `dmlref explain`'s, of
 *             `element` ("OutputTensor[1,0]") or, when it is NULL or "", of
 *             the whole case;
 *   "sources": [{"tensor", "at", "role": "value"|"index"|"loser"}...]: the
 *             elements `element` comes from; "explain_error": M when
 *             `element` names no element}.
 *
 * Never NULL but when memory runs out; free it with dmlref_playground_free. */
char *dmlref_playground_run(const char *text, const char *source, const char *element);
void dmlref_playground_free(char *result);

#endif /* DMLREF_PLAYGROUND_H */
