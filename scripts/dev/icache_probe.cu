// SPDX-License-Identifier: Apache-2.0
// P173 probe: is a device function's address (as a function pointer) a global-memory address that
// loads and L2 prefetches can reach? Prints the pointer values and the first words read there.
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o icache_probe scripts/dev/icache_probe.cu
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__device__ __noinline__ float body(float x) { return x * 3.0f + 1.0f; }
__device__ __noinline__ float body2(float x) { return x * x - 2.0f; }

__global__ void probe(unsigned long long* out, int mode, float* sink) {
  float (*f)(float) = &body;
  float (*g)(float) = &body2;
  const auto a = reinterpret_cast<unsigned long long>(f), b = reinterpret_cast<unsigned long long>(g);
  out[0] = a;
  out[1] = b;
  if (mode >= 1) asm volatile("prefetch.global.L2 [%0];" ::"l"(a) : "memory");
  if (mode >= 2) {
    unsigned long long w0, w1;
    asm volatile("ld.global.nc.v2.u64 {%0, %1}, [%2];" : "=l"(w0), "=l"(w1) : "l"(a));
    out[2] = w0;
    out[3] = w1;
  }
  sink[threadIdx.x] = f(static_cast<float>(threadIdx.x)) + g(1.0f);
}

int main() {
  unsigned long long* out;
  float* sink;
  cudaMalloc(&out, 64);
  cudaMalloc(&sink, 4096);
  for (int mode = 0; mode <= 2; ++mode) {
    cudaMemset(out, 0, 64);
    probe<<<1, 32>>>(out, mode, sink);
    cudaError_t e = cudaDeviceSynchronize();
    unsigned long long h[4] = {};
    cudaMemcpy(h, out, 32, cudaMemcpyDeviceToHost);
    printf("mode %d: %s f=%#llx g=%#llx words %#llx %#llx\n", mode, cudaGetErrorString(e), h[0], h[1], h[2], h[3]);
    if (e != cudaSuccess) return 1;
  }
  return 0;
}
