/* cudalint: CUDA execution-space and storage qualifiers as clang attributes.
 *
 * clang understands __attribute__((global/device/host/shared/constant/launch_bounds)) natively
 * in CUDA mode (-x cuda), which is what lets the analyzer see CUDAGLOBAL_ATTR etc. on cursors.
 * Qualifiers clang 18 has no CUDA attribute for (__managed__, __grid_constant__,
 * __cluster_dims__, __maxnreg__) are mapped to annotate("cudalint_...") so they stay visible
 * in the AST as ANNOTATE_ATTR cursors instead of being silently dropped. */
#ifndef __HOST_DEFINES_H__ /* CUDA's own include guard: code such as helper_cuda.h tests it */
#define __HOST_DEFINES_H__

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
/* clang only honours attribute((managed)) for HIP: a managed variable is a __device__ global
 * that the host may also touch. */
#define __managed__ __attribute__((device)) __attribute__((annotate("cudalint_managed")))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

#if defined(__has_attribute) && __has_attribute(grid_constant)
#define __grid_constant__ __attribute__((grid_constant))
#else
#define __grid_constant__ __attribute__((annotate("cudalint_grid_constant")))
#endif
#define __cluster_dims__(...) __attribute__((annotate("cudalint_cluster_dims", __VA_ARGS__)))
#define __maxnreg__(n) __attribute__((annotate("cudalint_maxnreg", n)))

#define __forceinline__ __inline__ __attribute__((always_inline))
/* clang >= 15 treats __noinline__ as a keyword in CUDA mode; defining it as a macro would
 * break libstdc++'s own __attribute__((__noinline__)). */
#if !(defined(__has_feature) && __has_feature(cuda_noinline_keyword))
#define __noinline__ __attribute__((noinline))
#endif
#define __inline_hint__
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __annotate__(a) __attribute__((a))
#define __location__(a) __annotate__(a)
#define __specialization_static
#define __no_return__ __attribute__((noreturn))
#define __nv_pure__ __attribute__((pure))
#define __nv_register_params__
#define CUDARTAPI
#define CUDARTAPI_CDECL
#define CUDART_CB
#define CUDA_CB
#define CUDAAPI
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__
#define __CUDA_ALIGN__(n) __align__(n)
#define __CUDA_DEPRECATED
#define __CUDART_API_PTDS(api) api
#define __CUDART_API_PTSZ(api) api
#define __CUDA_HOSTDEVICE__ __host__ __device__
#define __CUDA_DEVICE__ __device__

/* Used by real toolkit headers that may be reached through a user -I (they are searched after
 * the bundled ones). */
#define __NV_SILENCE_DEPRECATION_BEGIN
#define __NV_SILENCE_DEPRECATION_END
#define __NV_SILENCE_HOST_DEPRECATION_BEGIN
#define __NV_SILENCE_HOST_DEPRECATION_END
#define __CUDA_HOSTDEVICE_FP8__ __host__ __device__
#define __CUDA_HOSTDEVICE_FP8_DECL__ static __host__ __device__

/* Default arguments in the runtime API prototypes (C++ only, as in CUDA's headers). */
#ifdef __cplusplus
#define __dv(v) = v
#else
#define __dv(v)
#endif

#endif /* __HOST_DEFINES_H__ */
