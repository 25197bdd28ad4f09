#define N 512
__global__ void gemv(float *A, float *x, float *tmp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) { tmp[i] = 0; for (int j = 0; j < N; j++) tmp[i] += A[i * N + j] * x[j]; }
}
__global__ void gemv_nostore(float *A, float *x, float *tmp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) { for (int j = 0; j < N; j++) tmp[i] += A[i * N + j] * x[j]; }
}
__global__ void gemv_restrict(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ tmp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) { for (int j = 0; j < N; j++) tmp[i] += A[i * N + j] * x[j]; }
}
__global__ void gemm(float alpha, float beta, float *a, float *b, float *c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x; int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < N && j < N) { c[i * N + j] *= beta; for (int k = 0; k < N; k++) c[i * N + j] += alpha * a[i * N + k] * b[k * N + j]; }
}
__global__ void same_stmt(float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i] * a[i] + a[i];
}
__global__ void store_between(float *a, float *b, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[i] + 1.0f; c[i] = a[i] * 2.0f;
}
__global__ void store_between_restrict(const float *__restrict__ a, float *__restrict__ b, float *__restrict__ c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[i] + 1.0f; c[i] = a[i] * 2.0f;
}
__global__ void hoist(float *a, float *b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; float s = 0;
  for (int k = 0; k < N; k++) s += a[i] * b[k];
  out[i] = s;
}
__global__ void store_fwd(float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = 2.0f * i; out[i] = a[i] + 1.0f;
}
