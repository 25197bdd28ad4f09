/* cudalint: texture-object fetches (tex1Dfetch<T>, tex2D<T>, ...) as device templates. */
#ifndef __TEXTURE_INDIRECT_FUNCTIONS_H__
#define __TEXTURE_INDIRECT_FUNCTIONS_H__
#include "host_defines.h"
#include "driver_types.h"
#ifdef __cplusplus
template <class T> __device__ T tex1Dfetch(cudaTextureObject_t texObject, int x);
template <class T> __device__ void tex1Dfetch(T *ptr, cudaTextureObject_t obj, int x);
template <class T> __device__ T tex1D(cudaTextureObject_t texObject, float x);
template <class T> __device__ void tex1D(T *ptr, cudaTextureObject_t obj, float x);
template <class T> __device__ T tex2D(cudaTextureObject_t texObject, float x, float y);
template <class T> __device__ void tex2D(T *ptr, cudaTextureObject_t obj, float x, float y);
template <class T> __device__ T tex2D(cudaTextureObject_t texObject, float x, float y, bool *isResident);
template <class T> __device__ T tex3D(cudaTextureObject_t texObject, float x, float y, float z);
template <class T> __device__ void tex3D(T *ptr, cudaTextureObject_t obj, float x, float y, float z);
template <class T> __device__ T tex1DLayered(cudaTextureObject_t texObject, float x, int layer);
template <class T> __device__ T tex2DLayered(cudaTextureObject_t texObject, float x, float y, int layer);
template <class T> __device__ T texCubemap(cudaTextureObject_t texObject, float x, float y, float z);
template <class T> __device__ T texCubemapLayered(cudaTextureObject_t texObject, float x, float y, float z, int layer);
template <class T> __device__ T tex2Dgather(cudaTextureObject_t texObject, float x, float y, int comp = 0);
template <class T> __device__ T tex1DLod(cudaTextureObject_t texObject, float x, float level);
template <class T> __device__ T tex2DLod(cudaTextureObject_t texObject, float x, float y, float level);
template <class T> __device__ T tex3DLod(cudaTextureObject_t texObject, float x, float y, float z, float level);
template <class T> __device__ T tex2DLayeredLod(cudaTextureObject_t texObject, float x, float y, int layer, float level);
template <class T> __device__ T texCubemapLod(cudaTextureObject_t texObject, float x, float y, float z, float level);
template <class T> __device__ T tex1DLayeredLod(cudaTextureObject_t texObject, float x, int layer, float level);
template <class T> __device__ T texCubemapLayeredLod(cudaTextureObject_t texObject, float x, float y, float z, int layer, float level);
template <class T> __device__ T tex1DLayeredGrad(cudaTextureObject_t texObject, float x, int layer, float dPdx, float dPdy);
template <class T> __device__ T tex2DLayeredGrad(cudaTextureObject_t texObject, float x, float y, int layer, float2 dPdx, float2 dPdy);
template <class T> __device__ T tex1DGrad(cudaTextureObject_t texObject, float x, float dPdx, float dPdy);
template <class T> __device__ T tex2DGrad(cudaTextureObject_t texObject, float x, float y, float2 dPdx, float2 dPdy);
template <class T> __device__ T tex3DGrad(cudaTextureObject_t texObject, float x, float y, float z, float4 dPdx, float4 dPdy);
#endif
#endif
