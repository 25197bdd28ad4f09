/* cudalint (pycparser frontend): minimal <errno.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_ERRNO_H
#define __CUDALINT_PYC_ERRNO_H
extern int errno;
#define EINVAL 22
#define ENOMEM 12
#endif
