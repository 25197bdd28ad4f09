/* cudalint fallback <errno.h> (only when the system has none). */
#ifndef __CUDALINT_FALLBACK_ERRNO_H
#define __CUDALINT_FALLBACK_ERRNO_H
#ifdef __cplusplus
extern "C" {
#endif
int *__errno_location(void);
#define errno (*__errno_location())
#define EPERM 1
#define ENOENT 2
#define EINTR 4
#define EIO 5
#define ENOMEM 12
#define EACCES 13
#define EEXIST 17
#define EINVAL 22
#define ERANGE 34
#define EDOM 33
#define EAGAIN 11
#ifdef __cplusplus
}
#endif
#endif
