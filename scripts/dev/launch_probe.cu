// P170 probe: what a launch of the persistent kernel's form costs outside its CTAs' work.
// Each kernel is timed by Nsight Compute (gpu__time_duration) or by events; variants differ in one
// attribute of the launch at a time.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

struct Big { unsigned char b[4000]; };

__device__ __forceinline__ uint64_t gtime() { uint64_t t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }

__global__ void k_empty() {}
__global__ void k_smem() { extern __shared__ unsigned char s[]; if (threadIdx.x == 1000) s[0] = 1; }
__global__ void k_params(Big b) { extern __shared__ unsigned char s[]; if (threadIdx.x == 1000) s[0] = b.b[threadIdx.x]; }
__global__ void __cluster_dims__(2, 1, 1) k_cluster() { extern __shared__ unsigned char s[]; if (threadIdx.x == 1000) s[0] = 1; }
// Each CTA stores `bytes` of output with 16-byte stores (the epilogue's drain).
__global__ void k_store(uint4* out, int per_cta) {
  extern __shared__ unsigned char s[];
  uint4* o = out + size_t(blockIdx.x) * per_cta;
  for (int i = threadIdx.x; i < per_cta; i += blockDim.x) o[i] = make_uint4(i, 1, 2, 3);
}
// Spin for ns nanoseconds from the CTA's entry (span known: ns).
__global__ void k_spin(uint64_t ns) {
  extern __shared__ unsigned char s[];
  uint64_t t0 = gtime();
  while (gtime() - t0 < ns) {}
}
__global__ void k_flush(uint4* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = make_uint4(0, 0, 0, 0);
}

int main() {
  const int smem = 200 * 1024;
  cudaFuncSetAttribute(k_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(k_params, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(k_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(k_store, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(k_spin, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  uint4* out; cudaMalloc(&out, 132u * 32768);
  uint4* fl; size_t fn = (size_t(128) << 20) / 16; cudaMalloc(&fl, fn * 16);
  Big b{};
  for (int rep = 0; rep < 5; ++rep) {
    k_flush<<<264, 512>>>(fl, fn); k_empty<<<132, 384>>>();
    k_flush<<<264, 512>>>(fl, fn); k_smem<<<132, 384, smem>>>();
    k_flush<<<264, 512>>>(fl, fn); k_params<<<132, 384, smem>>>(b);
    k_flush<<<264, 512>>>(fl, fn); k_cluster<<<132, 384, smem>>>();
    k_flush<<<264, 512>>>(fl, fn); k_store<<<132, 384, smem>>>(out, 32768 / 16);
    k_flush<<<264, 512>>>(fl, fn); k_store<<<132, 384, smem>>>(out, 0);
    k_flush<<<264, 512>>>(fl, fn); k_spin<<<132, 384, smem>>>(20000);
    k_flush<<<264, 512>>>(fl, fn); k_spin<<<132, 384, 0>>>(20000);
    k_empty<<<132, 384>>>(); k_smem<<<132, 384, smem>>>();  // back to back, no flush between
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("done: %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
