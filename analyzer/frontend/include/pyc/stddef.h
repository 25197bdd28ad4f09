/* cudalint (pycparser frontend): minimal <stddef.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_STDDEF_H
#define __CUDALINT_PYC_STDDEF_H
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef int wchar_t;
#ifndef NULL
#define NULL 0L /* what clang's __null is in CUDA C++: a long 0 */
#endif
#define offsetof(type, member) ((size_t) & ((type *)0)->member)
#endif
