/* cudalint (pycparser frontend): minimal <stdarg.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_STDARG_H
#define __CUDALINT_PYC_STDARG_H
typedef char *va_list;
#define va_start(ap, last) ((void)0)
#define va_arg(ap, type) (*(type *)(ap))
#define va_end(ap) ((void)0)
#define va_copy(dst, src) ((void)0)
#endif
