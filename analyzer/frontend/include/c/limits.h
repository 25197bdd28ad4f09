/* cudalint: <limits.h> on clang's predefined macros.
 * With a hosted libc (glibc), its <limits.h> is included first for POSIX limits (PATH_MAX, ...);
 * _GCC_LIMITS_H_ stops glibc from #include_next-ing a compiler <limits.h> after it (there is
 * none after /usr/include). The integer limits are then (re)defined from clang's builtins. */
#ifndef __CUDALINT_LIMITS_H
#define __CUDALINT_LIMITS_H

#if defined __GNUC__ && !defined _GCC_LIMITS_H_
#define _GCC_LIMITS_H_
#endif

#if __STDC_HOSTED__ && defined(__has_include_next)
#if __has_include_next(<limits.h>)
#include_next <limits.h>
#endif
#endif

#undef SCHAR_MAX
#undef SCHAR_MIN
#undef UCHAR_MAX
#undef CHAR_MIN
#undef CHAR_MAX
#undef CHAR_BIT
#undef SHRT_MAX
#undef SHRT_MIN
#undef USHRT_MAX
#undef INT_MAX
#undef INT_MIN
#undef UINT_MAX
#undef LONG_MAX
#undef LONG_MIN
#undef ULONG_MAX
#undef LLONG_MAX
#undef LLONG_MIN
#undef ULLONG_MAX
#undef MB_LEN_MAX

#define CHAR_BIT __CHAR_BIT__
#define SCHAR_MAX __SCHAR_MAX__
#define SCHAR_MIN (-__SCHAR_MAX__ - 1)
#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)
#ifdef __CHAR_UNSIGNED__
#define CHAR_MIN 0
#define CHAR_MAX UCHAR_MAX
#else
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX __SCHAR_MAX__
#endif
#define SHRT_MAX __SHRT_MAX__
#define SHRT_MIN (-__SHRT_MAX__ - 1)
#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define LONG_MAX __LONG_MAX__
#define LONG_MIN (-__LONG_MAX__ - 1L)
#define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)
#define LLONG_MAX __LONG_LONG_MAX__
#define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)
#define MB_LEN_MAX 16

/* GNU spellings some code still uses. */
#ifndef LONG_LONG_MAX
#define LONG_LONG_MAX __LONG_LONG_MAX__
#define LONG_LONG_MIN (-__LONG_LONG_MAX__ - 1LL)
#define ULONG_LONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)
#endif

#endif /* __CUDALINT_LIMITS_H */
