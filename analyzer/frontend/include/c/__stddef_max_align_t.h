/* cudalint: max_align_t (C11 / C++11), as clang's resource header defines it. */
#ifndef __CLANG_MAX_ALIGN_T_DEFINED
#define __CLANG_MAX_ALIGN_T_DEFINED
typedef struct {
  long long __clang_max_align_nonce1 __attribute__((__aligned__(__alignof__(long long))));
  long double __clang_max_align_nonce2 __attribute__((__aligned__(__alignof__(long double))));
} max_align_t;
#endif
