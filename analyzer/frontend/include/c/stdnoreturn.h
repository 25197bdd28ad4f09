/* cudalint: freestanding <stdnoreturn.h>. */
#ifndef __STDNORETURN_H
#define __STDNORETURN_H
#ifndef __cplusplus
#define noreturn _Noreturn
#endif
#endif
