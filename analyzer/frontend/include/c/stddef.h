/* cudalint: freestanding <stddef.h>.
 *
 * The libclang wheel ships no clang resource headers, and glibc does not provide <stddef.h>
 * (it expects the compiler to), so every C/C++ standard header fails without this file.
 * Supports glibc's "__need_*" protocol: a header that defines e.g. __need_size_t before
 * including <stddef.h> gets only that piece. Definitions use clang's predefined type macros. */

#if !defined(__need_ptrdiff_t) && !defined(__need_size_t) && !defined(__need_rsize_t) &&     \
    !defined(__need_wchar_t) && !defined(__need_NULL) && !defined(__need_nullptr_t) &&       \
    !defined(__need_unreachable) && !defined(__need_max_align_t) &&                           \
    !defined(__need_offsetof) && !defined(__need_wint_t)
/* Plain #include <stddef.h>: everything. */
#define __CUDALINT_STDDEF_H 1
#define __STDDEF_H 1
#define _STDDEF_H 1
#define __need_ptrdiff_t
#define __need_size_t
#define __need_wchar_t
#define __need_NULL
#define __need_max_align_t
#define __need_offsetof
#endif

#if defined(__need_ptrdiff_t)
#ifndef __CUDALINT_PTRDIFF_T
#define __CUDALINT_PTRDIFF_T
#define _PTRDIFF_T
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#endif
#undef __need_ptrdiff_t
#endif

#if defined(__need_size_t)
#ifndef __CUDALINT_SIZE_T
#define __CUDALINT_SIZE_T
#define _SIZE_T
typedef __SIZE_TYPE__ size_t;
#endif
#undef __need_size_t
#endif

#if defined(__need_rsize_t)
#ifndef __CUDALINT_RSIZE_T
#define __CUDALINT_RSIZE_T
typedef __SIZE_TYPE__ rsize_t;
#endif
#undef __need_rsize_t
#endif

#if defined(__need_wchar_t)
/* wchar_t is a keyword in C++. */
#if !defined(__cplusplus) && !defined(__CUDALINT_WCHAR_T)
#define __CUDALINT_WCHAR_T
#define _WCHAR_T
typedef __WCHAR_TYPE__ wchar_t;
#endif
#undef __need_wchar_t
#endif

#if defined(__need_wint_t)
#if !defined(__CUDALINT_WINT_T) && !defined(_WINT_T)
#define __CUDALINT_WINT_T
#define _WINT_T
typedef __WINT_TYPE__ wint_t;
#endif
#undef __need_wint_t
#endif

#if defined(__need_NULL)
#undef NULL
#ifdef __cplusplus
#define NULL __null
#else
#define NULL ((void *)0)
#endif
#undef __need_NULL
#endif

#if defined(__need_nullptr_t)
#if defined(__cplusplus) && !defined(__CUDALINT_NULLPTR_T)
#define __CUDALINT_NULLPTR_T
namespace std { typedef decltype(nullptr) nullptr_t; }
using ::std::nullptr_t;
#endif
#undef __need_nullptr_t
#endif

#if defined(__need_unreachable)
#ifndef unreachable
#define unreachable() __builtin_unreachable()
#endif
#undef __need_unreachable
#endif

#if defined(__need_max_align_t)
#include <__stddef_max_align_t.h>
#undef __need_max_align_t
#endif

#if defined(__need_offsetof)
#ifndef offsetof
#define offsetof(t, d) __builtin_offsetof(t, d)
#endif
#undef __need_offsetof
#endif
