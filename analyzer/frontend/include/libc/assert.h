/* cudalint fallback <assert.h> (only when the system has none). Expands to __assert_fail like
 * glibc's, which the prelude also declares for device code. Not include-guarded: NDEBUG may
 * change between inclusions. */
#undef assert
#ifdef NDEBUG
#define assert(expr) ((void)0)
#else
#ifdef __cplusplus
extern "C"
#endif
void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function)
    __attribute__((noreturn));
#define assert(expr) ((expr) ? (void)0 : __assert_fail(#expr, __FILE__, __LINE__, __func__))
#endif
#if !defined(__cplusplus) && !defined(static_assert)
#define static_assert _Static_assert
#endif
