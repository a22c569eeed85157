/*
 * test_platform_files.c - src/platform/files.h does on this system what it
 * says: listings whole or an error (never an empty folder for one that
 * cannot be read), what a path names and which file it reaches, temporary
 * files and folders, a file and an empty folder replaced, reading without
 * waiting on what is not a regular file, bytes written as they are.  The
 * same program runs against files_posix.c and, built with mingw-w64 and run
 * on Windows (or wine), against files_windows.c.  Everything happens in a
 * fresh folder under the system's temporary folder, removed at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <cmocka.h>

#include "platform/files.h"

#ifdef _WIN32
#define DEVICE_PATH "NUL"
#else
#include <sys/stat.h>
#include <unistd.h>
#define DEVICE_PATH "/dev/null"
#endif

/* the paths of the tests: the scratch folder and a short name in it */
#define PATH_SIZE 4096
static char scratch[PATH_SIZE / 4];

/* scratch/name, in a buffer of PATH_SIZE of the caller's. */
static const char *in_scratch(char *buffer, const char *name)
{
    snprintf(buffer, PATH_SIZE, "%s/%s", scratch, name);
    return buffer;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* The file's bytes, as they are, into buffer; their count. */
static size_t file_bytes(const char *path, char *buffer, size_t size)
{
    FILE *f = fopen(path, "rb");
    size_t got;
    assert_non_null(f);
    got = fread(buffer, 1, size - 1, f);
    buffer[got] = '\0';
    fclose(f);
    return got;
}

static int listed(const folder_listing *listing, const char *name)
{
    size_t i;
    for (i = 0; i < listing->count; ++i)
        if (strcmp(listing->names[i], name) == 0)
            return 1;
    return 0;
}

/* Removes path and all it holds, with the functions under test. */
static void remove_all(const char *path)
{
    file_facts facts;
    folder_listing listing;
    size_t i;
    if (link_facts(path, &facts) != 0)
        return;
    if (facts.kind == FILE_KIND_FOLDER && list_folder(path, &listing) == 0) {
        for (i = 0; i < listing.count; ++i) {
            char inner[PATH_SIZE];
            snprintf(inner, sizeof inner, "%s/%s", path, listing.names[i]);
            remove_all(inner);
        }
        free_folder_listing(&listing);
    }
    assert_int_equal(remove_path(path), 0);
}

static int make_scratch(void **state)
{
    char folder[PATH_SIZE / 4 - 32];
    (void)state;
    if (temporary_files_folder(folder, sizeof folder) != 0)
        return -1;
    snprintf(scratch, sizeof scratch, "%s/dmlref-platform-XXXXXX", folder);
    return make_temporary_folder(scratch) == 0 ? 0 : -1;
}

static int remove_scratch(void **state)
{
    file_facts facts;
    (void)state;
    remove_all(scratch);
    return link_facts(scratch, &facts) == ENOENT ? 0 : -1;
}

static void test_a_listing_is_whole_or_an_error(void **state)
{
    char path[PATH_SIZE], other[PATH_SIZE];
    folder_listing listing;
    (void)state;
    assert_int_equal(make_folder(in_scratch(path, "empty")), 0);
    assert_int_equal(list_folder(path, &listing), 0);
    assert_int_equal(listing.count, 0); /* no "." or ".." */
    free_folder_listing(&listing);

    assert_int_equal(make_folder(in_scratch(path, "three")), 0);
    put_file(in_scratch(path, "three/a.json"), "a");
    put_file(in_scratch(path, "three/.hidden"), "b");
    assert_int_equal(make_folder(in_scratch(path, "three/sub")), 0);
    assert_int_equal(list_folder(in_scratch(path, "three/"), &listing), 0);
    assert_int_equal(listing.count, 3);
    assert_true(listed(&listing, "a.json") && listed(&listing, ".hidden") &&
                listed(&listing, "sub"));
    free_folder_listing(&listing);
    assert_null(listing.names);

    /* what cannot be listed is an error, never an empty folder */
    assert_int_equal(list_folder(in_scratch(path, "missing"), &listing), ENOENT);
    assert_int_equal(listing.count, 0);
    assert_null(listing.names);
    assert_int_equal(list_folder(in_scratch(path, "three/a.json"), &listing), ENOTDIR);
    assert_int_equal(listing.count, 0);
    assert_int_equal(list_folder("", &listing), ENOENT);

    assert_int_equal(make_folder(in_scratch(path, "empty")), EEXIST);
    assert_int_equal(make_folder(in_scratch(other, "three/a.json")), EEXIST);
}

static void test_facts_and_identities(void **state)
{
    char path[PATH_SIZE], other[PATH_SIZE];
    file_facts a, b;
    (void)state;
    assert_int_equal(make_folder(in_scratch(path, "facts")), 0);
    put_file(in_scratch(path, "facts/file.json"), "{}");
    assert_int_equal(path_facts(in_scratch(path, "facts"), &a), 0);
    assert_int_equal(a.kind, FILE_KIND_FOLDER);
    /* one folder through two spellings: one identity */
    assert_int_equal(path_facts(in_scratch(other, "facts/./"), &b), 0);
    assert_true(same_file(&a.identity, &b.identity));
    assert_int_equal(path_facts(in_scratch(other, "facts/file.json"), &b), 0);
    assert_int_equal(b.kind, FILE_KIND_REGULAR);
    assert_false(same_file(&a.identity, &b.identity));
    assert_int_equal(link_facts(other, &b), 0);
    assert_int_equal(b.kind, FILE_KIND_REGULAR);
    assert_int_equal(path_facts(in_scratch(path, "facts/missing"), &a), ENOENT);
    assert_int_equal(path_facts(DEVICE_PATH, &a), 0);
    assert_int_equal(a.kind, FILE_KIND_OTHER);
}

#ifndef _WIN32
/* POSIX: a symbolic link is a link to link_facts, what it names to
   path_facts; remove_path removes the link, not the folder. */
static void test_links_are_seen_as_links(void **state)
{
    char path[PATH_SIZE];
    file_facts facts;
    (void)state;
    assert_int_equal(make_folder(in_scratch(path, "target")), 0);
    assert_int_equal(symlink("target", in_scratch(path, "link")), 0);
    assert_int_equal(link_facts(path, &facts), 0);
    assert_int_equal(facts.kind, FILE_KIND_LINK);
    assert_int_equal(path_facts(path, &facts), 0);
    assert_int_equal(facts.kind, FILE_KIND_FOLDER);
    assert_int_equal(remove_path(path), 0);
    assert_int_equal(path_facts(in_scratch(path, "target"), &facts), 0);
}

/* POSIX: a FIFO is refused before it is opened: no wait for a writer. */
static void test_a_fifo_is_never_opened(void **state)
{
    char path[PATH_SIZE];
    FILE *f;
    (void)state;
    assert_int_equal(mkfifo(in_scratch(path, "pipe.json"), 0600), 0);
    assert_int_equal(open_regular_file(path, &f), FILE_NOT_REGULAR);
    assert_null(f);
}

static void test_permissions(void **state)
{
    char path[PATH_SIZE];
    file_facts facts;
    FILE *f;
    (void)state;
    in_scratch(path, "mode.XXXXXX");
    assert_int_equal(make_temporary_file(path, &f), 0);
    assert_int_equal(path_facts(path, &facts), 0);
    assert_int_equal(facts.permissions, 0600);
    assert_int_equal(set_file_permissions(f, 0640), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(path_facts(path, &facts), 0);
    assert_int_equal(facts.permissions, 0640);
    assert_int_equal(permissions_under_umask(0777) & ~0777u, 0);
}
#endif

static void test_reading_takes_regular_files_only(void **state)
{
    char path[PATH_SIZE], bytes[64];
    FILE *f;
    size_t got;
    (void)state;
    /* bytes as they are: no "\r\n" made or eaten */
    put_file(in_scratch(path, "lines.json"), "a\r\nb\n");
    assert_int_equal(open_regular_file(path, &f), 0);
    got = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    assert_int_equal(got, 5);
    assert_memory_equal(bytes, "a\r\nb\n", 5);
    assert_int_equal(open_regular_file(scratch, &f), FILE_NOT_REGULAR);
    assert_null(f);
    assert_int_equal(open_regular_file(DEVICE_PATH, &f), FILE_NOT_REGULAR);
    assert_int_equal(open_regular_file(in_scratch(path, "missing.json"), &f), ENOENT);
    assert_null(f);

    assert_int_equal(open_device_for_writing(DEVICE_PATH, &f), 0);
    assert_int_equal(fputs("nothing\n", f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void test_a_file_is_replaced_whole(void **state)
{
    char target[PATH_SIZE], temporary[PATH_SIZE], bytes[64];
    file_facts facts;
    folder_listing listing;
    FILE *f;
    (void)state;
    assert_int_equal(make_folder(in_scratch(target, "replace")), 0);
    put_file(in_scratch(target, "replace/out.json"), "old\n");
    in_scratch(temporary, "replace/.out.json.XXXXXX");
    assert_int_equal(make_temporary_file(temporary, &f), 0);
    assert_null(strstr(temporary, "XXXXXX"));
    assert_int_equal(fputs("new\n", f) >= 0, 1);
    assert_int_equal(flush_to_disk(f), 0);
    assert_int_equal(set_file_permissions(f, permissions_under_umask(0666)), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(replace_file(temporary, target), 0);
    assert_int_equal(file_bytes(target, bytes, sizeof bytes), 4);
    assert_string_equal(bytes, "new\n"); /* "wb": no "\r\n" on Windows */
    assert_int_equal(path_facts(temporary, &facts), ENOENT);
    assert_int_equal(list_folder(in_scratch(target, "replace"), &listing), 0);
    assert_int_equal(listing.count, 1);
    free_folder_listing(&listing);
    /* a template without its XXXXXX is refused */
    in_scratch(temporary, "replace/no-template");
    assert_int_not_equal(make_temporary_file(temporary, &f), 0);
}

static void test_a_folder_replaces_an_empty_one_only(void **state)
{
    char building[PATH_SIZE], target[PATH_SIZE], path[PATH_SIZE], manifest[PATH_SIZE + 16];
    file_facts facts;
    int reason;
    (void)state;
    in_scratch(building, ".suite.XXXXXX");
    assert_int_equal(make_temporary_folder(building), 0);
    assert_int_equal(set_path_permissions(building, permissions_under_umask(0777)), 0);
    snprintf(manifest, sizeof manifest, "%s/MANIFEST", building);
    put_file(manifest, "x\n");

    /* onto a folder that holds anything: refused, both left as they were */
    assert_int_equal(make_folder(in_scratch(target, "full")), 0);
    put_file(in_scratch(path, "full/other"), "y\n");
    reason = replace_empty_folder(building, target);
    assert_true(reason == ENOTEMPTY || reason == EEXIST);
    assert_int_equal(path_facts(in_scratch(path, "full/other"), &facts), 0);
    assert_int_equal(path_facts(manifest, &facts), 0);

    /* onto an empty folder, and onto nothing */
    assert_int_equal(make_folder(in_scratch(target, "empty_target")), 0);
    assert_int_equal(replace_empty_folder(building, target), 0);
    assert_int_equal(path_facts(building, &facts), ENOENT);
    assert_int_equal(path_facts(in_scratch(path, "empty_target/MANIFEST"), &facts), 0);
    assert_int_equal(replace_empty_folder(target, in_scratch(path, "new_target")), 0);
    assert_int_equal(path_facts(in_scratch(path, "new_target/MANIFEST"), &facts), 0);

    /* a folder that holds anything is not removed */
    reason = remove_path(in_scratch(path, "new_target"));
    assert_true(reason == ENOTEMPTY || reason == EEXIST);
}

static void test_paths(void **state)
{
    char path[PATH_SIZE];
    char *resolved, *again;
    file_facts a, b;
    (void)state;
    assert_true(is_path_separator('/'));
    assert_int_equal(path_root_length("relative/x"), 0);
    assert_int_equal(path_root_length("/x"), 1);
#ifdef _WIN32
    assert_true(is_path_separator('\\'));
    assert_int_equal(path_root_length("C:"), 2);
    assert_int_equal(path_root_length("c:x"), 2);
    assert_int_equal(path_root_length("C:\\x"), 3);
    assert_int_equal(path_root_length("\\\\server\\share\\x"), 15);
#else
    assert_false(is_path_separator('\\'));
    assert_int_equal(path_root_length("C:\\x"), 0);
#endif
    assert_int_equal(make_folder(in_scratch(path, "real")), 0);
    assert_int_equal(make_folder(in_scratch(path, "real/sub")), 0);
    assert_int_equal(real_path(in_scratch(path, "real/sub/.."), &resolved), 0);
    assert_int_equal(real_path(in_scratch(path, "real"), &again), 0);
    assert_string_equal(resolved, again);
    assert_int_equal(path_facts(resolved, &a), 0);
    assert_int_equal(path_facts(path, &b), 0);
    assert_true(same_file(&a.identity, &b.identity));
    free(resolved);
    free(again);
    assert_int_equal(real_path(in_scratch(path, "real/missing"), &resolved), ENOENT);
    assert_null(resolved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_listing_is_whole_or_an_error),
        cmocka_unit_test(test_facts_and_identities),
#ifndef _WIN32
        cmocka_unit_test(test_links_are_seen_as_links),
        cmocka_unit_test(test_a_fifo_is_never_opened),
        cmocka_unit_test(test_permissions),
#endif
        cmocka_unit_test(test_reading_takes_regular_files_only),
        cmocka_unit_test(test_a_file_is_replaced_whole),
        cmocka_unit_test(test_a_folder_replaces_an_empty_one_only),
        cmocka_unit_test(test_paths),
    };
    return cmocka_run_group_tests_name("platform files", tests, make_scratch, remove_scratch);
}
