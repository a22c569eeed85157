/*
 * xvfb_xkbcomp.c - lets Xvfb run the xkbcomp of an unpacked stack.
 *
 * Xvfb compiles its keymap by running "XkbBinDirectory/xkbcomp", where
 * XkbBinDirectory is a variable of the server set to the path compiled into
 * it (/usr/bin on Debian); no option or environment variable changes it
 * (-xkbdir names the keymap data only).  scripts/check/directml_bundle.sh builds
 * this file into the stack as lib/xvfb_xkbcomp.so, and
 * `scripts/check/directml_leg.sh --stack DIR` preloads it into Xvfb alone
 * (LD_PRELOAD) with DMLREF_XKBCOMP_DIR=DIR/usr/bin: before the server's
 * main runs, the constructor points XkbBinDirectory at that folder.  Nothing
 * on the host is changed, and in a program without that variable (the shell
 * and xkbcomp that Xvfb starts inherit LD_PRELOAD) it does nothing.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdlib.h>

static void point_xkbcomp_directory(void) __attribute__((constructor));

static void point_xkbcomp_directory(void)
{
    const char **directory = (const char **)dlsym(RTLD_DEFAULT, "XkbBinDirectory");
    const char *wanted = getenv("DMLREF_XKBCOMP_DIR");

    if (directory != NULL && wanted != NULL && wanted[0] != '\0')
        *directory = wanted;
}
