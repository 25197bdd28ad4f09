// Distilled from Rodinia cuda/backprop/backprop_cuda_kernel.cu (bpnn_layerforward_CUDA,
// bpnn_adjust_weights_cuda) with the launch of backprop_cuda.cu: 16x16 threads, grid (1, in/16),
// the weights row-major with hid + 1 columns, a shared 16x16 tile reduced over ty.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define HEIGHT 16
#define WIDTH 16
#define ETA 0.3
#define MOMENTUM 0.3

__global__ void bpnn_layerforward_CUDA(float *input_cuda, float *output_hidden_cuda, float *input_hidden_cuda,
                                       float *hidden_partial_sum, int in, int hid)
{
    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
    int index_in = HEIGHT * by + ty + 1;
    __shared__ float input_node[HEIGHT];
    __shared__ float weight_matrix[HEIGHT][WIDTH];
    if (tx == 0)
        input_node[ty] = input_cuda[index_in];
    __syncthreads();
    weight_matrix[ty][tx] = input_hidden_cuda[index];
    __syncthreads();
    weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
    __syncthreads();
    for (int i = 1; i <= __log2f(HEIGHT); i++) {
        int power_two = __powf(2, i);
        if (ty % power_two == 0)
            weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + power_two / 2][tx];
        __syncthreads();
    }
    input_hidden_cuda[index] = weight_matrix[ty][tx];
    __syncthreads();
    if (tx == 0)
        hidden_partial_sum[by * hid + ty] = weight_matrix[tx][ty];
}

__global__ void bpnn_adjust_weights_cuda(float *delta, int hid, float *ly, int in, float *w, float *oldw)
{
    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
    int index_y = HEIGHT * by + ty + 1;
    int index_x = tx + 1;
    w[index] += ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
    oldw[index] = ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
    __syncthreads();
    if (ty == 0 && by == 0) {
        w[index_x] += ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
        oldw[index_x] = ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
    }
}

static float *to_device(size_t n)
{
    float *h = (float *)malloc(n * sizeof(float)), *d;
    for (size_t i = 0; i < n; i++)
        h[i] = 0.5f + (float)(i % 97) / 97.0f;
    cudaMalloc((void **)&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    free(h);
    return d;
}

int main()
{
    int in = 65536, hid = 16;
    unsigned int num_blocks = in / 16;
    dim3 grid(1, num_blocks);
    dim3 threads(16, 16);
    float *input_cuda = to_device(in + 1), *output_hidden_cuda = to_device(hid + 1);
    float *input_hidden_cuda = to_device((size_t)(in + 1) * (hid + 1));
    float *hidden_partial_sum = to_device((size_t)num_blocks * WIDTH);
    float *hidden_delta_cuda = to_device(hid + 1), *input_prev_weights_cuda = to_device((size_t)(in + 1) * (hid + 1));
    bpnn_layerforward_CUDA<<<grid, threads>>>(input_cuda, output_hidden_cuda, input_hidden_cuda, hidden_partial_sum, in, hid);
    cudaDeviceSynchronize();
    bpnn_adjust_weights_cuda<<<grid, threads>>>(hidden_delta_cuda, hid, input_cuda, in, input_hidden_cuda, input_prev_weights_cuda);
    cudaDeviceSynchronize();
    return 0;
}
