/* cudalint (pycparser frontend): minimal <assert.h> for parsing plain-C CUDA files with pycparser. */
#ifndef __CUDALINT_PYC_ASSERT_H
#define __CUDALINT_PYC_ASSERT_H
void __cudalint_assert(int condition);
#define assert(e) __cudalint_assert(e)
#endif
