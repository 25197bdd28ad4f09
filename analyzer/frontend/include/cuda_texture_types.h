/* cudalint: the legacy texture/surface *reference* API (texture<T, dim, mode>, surface<T, dim>,
 * tex1Dfetch(texRef, i), cudaBindTexture, ...). CUDA 12 removed it, but older code and books
 * use it. nvcc treats a file-scope texture<> as a device object; clang sees a host variable,
 * so parse.py turns clang's "reference to __host__ variable" error for these into a warning. */
#ifndef __CUDA_TEXTURE_TYPES_H__
#define __CUDA_TEXTURE_TYPES_H__
#include "driver_types.h"

#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceTypeCubemap 0x0C
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2
#define cudaSurfaceTypeCubemapLayered 0xFC

#ifdef __cplusplus
template <class T, int texType = cudaTextureType1D, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct texture : public textureReference {
  __host__ texture(int norm = 0, enum cudaTextureFilterMode fMode = cudaFilterModePoint,
                   enum cudaTextureAddressMode aMode = cudaAddressModeClamp);
  __host__ texture(int norm, enum cudaTextureFilterMode fMode, enum cudaTextureAddressMode aMode,
                   struct cudaChannelFormatDesc desc);
};
template <class T, int dim = 1> struct surface : public surfaceReference {
  __host__ surface(void);
  __host__ surface(struct cudaChannelFormatDesc desc);
};

/* Fetches (the element type; normalized-float reads are typed like element reads here). */
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex1Dfetch(const texture<T, d, m> &t, int x);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex1D(const texture<T, d, m> &t, float x);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex2D(const texture<T, d, m> &t, float x, float y);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex3D(const texture<T, d, m> &t, float x, float y, float z);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex1DLayered(const texture<T, d, m> &t, float x, int layer);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex2DLayered(const texture<T, d, m> &t, float x, float y, int layer);
template <class T, int d, enum cudaTextureReadMode m> __device__ T texCubemap(const texture<T, d, m> &t, float x, float y, float z);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex2DLod(const texture<T, d, m> &t, float x, float y, float level);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex1DLod(const texture<T, d, m> &t, float x, float level);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex3DLod(const texture<T, d, m> &t, float x, float y, float z, float level);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex1DLayeredLod(const texture<T, d, m> &t, float x, int layer, float level);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex2DLayeredLod(const texture<T, d, m> &t, float x, float y, int layer, float level);
template <class T, int d, enum cudaTextureReadMode m> __device__ T texCubemapLayered(const texture<T, d, m> &t, float x, float y, float z, int layer);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex1DGrad(const texture<T, d, m> &t, float x, float dPdx, float dPdy);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex2DGrad(const texture<T, d, m> &t, float x, float y, float2 dPdx, float2 dPdy);
template <class T, int d, enum cudaTextureReadMode m> __device__ T tex3DGrad(const texture<T, d, m> &t, float x, float y, float z, float4 dPdx, float4 dPdy);
template <class T, int d> __device__ void surf1Dread(T *res, const surface<void, d> &s, int x, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
template <class T, int d> __device__ void surf3Dread(T *res, const surface<void, d> &s, int x, int y, int z, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
template <class T, int d> __device__ void surf1DLayeredread(T *res, const surface<void, d> &s, int x, int layer, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
template <class T, int d> __device__ void surf2DLayeredread(T *res, const surface<void, d> &s, int x, int y, int layer, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
template <class T, int d> __device__ void surf1DLayeredwrite(T val, const surface<void, d> &s, int x, int layer, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
template <class T, int d> __device__ void surf2DLayeredwrite(T val, const surface<void, d> &s, int x, int y, int layer, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
template <class T, int d> __device__ void surf2Dread(T *res, const surface<void, d> &s, int x, int y, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
template <class T, int d> __device__ void surf1Dwrite(T val, const surface<void, d> &s, int x, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
template <class T, int d> __device__ void surf2Dwrite(T val, const surface<void, d> &s, int x, int y, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
template <class T, int d> __device__ void surf3Dwrite(T val, const surface<void, d> &s, int x, int y, int z, enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);

/* Host binding. */
extern "C" cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *texref, const void *devPtr, const struct cudaChannelFormatDesc *desc, size_t size);
extern "C" cudaError_t cudaBindTexture2D(size_t *offset, const struct textureReference *texref, const void *devPtr, const struct cudaChannelFormatDesc *desc, size_t width, size_t height, size_t pitch);
extern "C" cudaError_t cudaBindTextureToArray(const struct textureReference *texref, cudaArray_const_t array, const struct cudaChannelFormatDesc *desc);
extern "C" cudaError_t cudaUnbindTexture(const struct textureReference *texref);
extern "C" cudaError_t cudaBindSurfaceToArray(const struct surfaceReference *surfref, cudaArray_const_t array, const struct cudaChannelFormatDesc *desc);
template <class T, int d, enum cudaTextureReadMode m>
cudaError_t cudaBindTexture(size_t *offset, const texture<T, d, m> &tex, const void *devPtr, size_t size = ~(size_t)0);
template <class T, int d, enum cudaTextureReadMode m>
cudaError_t cudaBindTexture(size_t *offset, const texture<T, d, m> &tex, const void *devPtr, const struct cudaChannelFormatDesc &desc, size_t size = ~(size_t)0);
template <class T, int d, enum cudaTextureReadMode m>
cudaError_t cudaBindTexture2D(size_t *offset, const texture<T, d, m> &tex, const void *devPtr, size_t width, size_t height, size_t pitch);
template <class T, int d, enum cudaTextureReadMode m>
cudaError_t cudaBindTexture2D(size_t *offset, const texture<T, d, m> &tex, const void *devPtr, const struct cudaChannelFormatDesc &desc, size_t width, size_t height, size_t pitch);
template <class T, int d, enum cudaTextureReadMode m>
cudaError_t cudaBindTextureToArray(const texture<T, d, m> &tex, cudaArray_const_t array);
template <class T, int d, enum cudaTextureReadMode m>
cudaError_t cudaBindTextureToArray(const texture<T, d, m> &tex, cudaArray_const_t array, const struct cudaChannelFormatDesc &desc);
template <class T, int d, enum cudaTextureReadMode m>
cudaError_t cudaUnbindTexture(const texture<T, d, m> &tex);
template <class T, int d>
cudaError_t cudaBindSurfaceToArray(const surface<T, d> &surf, cudaArray_const_t array);
template <class T, int d>
cudaError_t cudaBindSurfaceToArray(const surface<T, d> &surf, cudaArray_const_t array, const struct cudaChannelFormatDesc &desc);
#endif /* __cplusplus */
#endif /* __CUDA_TEXTURE_TYPES_H__ */
