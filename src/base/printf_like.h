/*
 * printf_like.h - PRINTF_LIKE(string, first): the attribute that lets the
 * compiler check calls of a printf-style function.  Its own header, so that
 * the command's layers can use it without the rest of base.h.
 */
#ifndef DMLREF_PRINTF_LIKE_H
#define DMLREF_PRINTF_LIKE_H

/* printf-style checking of dmlref's own formatting functions.  mingw-w64
   builds must use its C99 stdio (-D__USE_MINGW_ANSI_STDIO=1), whose
   %zu and %llu GCC checks as gnu_printf; Microsoft's own printf would not
   know them. */
#if defined(__MINGW32__)
#define PRINTF_LIKE(string, first) __attribute__((format(gnu_printf, string, first)))
#elif defined(__GNUC__)
#define PRINTF_LIKE(string, first) __attribute__((format(printf, string, first)))
#else
#define PRINTF_LIKE(string, first)
#endif

#endif /* DMLREF_PRINTF_LIKE_H */
