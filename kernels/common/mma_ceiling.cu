// SPDX-License-Identifier: Apache-2.0
// mma_ceiling.cu: the ceiling of the `tensor-core` GEMM-family path (calibrate.hpp,
// decode_mma_tflops and mma_sync_tflops): its main loop's compute without its loads. The same code
// as the main loop (gemm_mma.cuh Kernel<1>: decode_weights, mma_stage), the same CTA (4 warps of
// 32 weight rows x 128 tokens, 128 FP32 accumulators per thread) and the same occupancy (2 CTAs
// per SM, its 82 KB ring each), over the ring's stages filled once in shared memory: no copies,
// no barriers, no global-memory traffic. kDecode = false decodes the A fragments once and runs
// only the ldmatrix loads of the tokens and the MMAs.
#include "gemm_mma.cuh"
#include "core/mma_ceiling.hpp"
#include "core/random_operands.cuh"

namespace nvfp4 {

namespace {

using K = gemm::mma::Kernel<1>;  // the 4-warp CTA
using gemm::mma::kTokBytes;
constexpr int kStageBytes = K::kStageBytes;
constexpr int kStages = K::kStages;
constexpr int kThreads = K::kThreads;
constexpr int kWBytes = K::kWBytes;

// Every stage as calibrate's wgmma loop fills its operands (core/random_operands.cuh): tokens
// FP16 of magnitude 2^-6..1, packed weights any bytes, scales e4m3 0.5 to 1.875.
__device__ void fill_stages(uint8_t* smem) {
  for (int s = 0; s < kStages; ++s) {
    uint8_t* st = smem + s * kStageBytes;
    auto* tok = reinterpret_cast<__half*>(st);
    for (int i = threadIdx.x; i < kTokBytes / 2; i += blockDim.x) tok[i] = random_half(i + s * kTokBytes, 5u);
    for (int i = threadIdx.x; i < kWBytes; i += blockDim.x) st[kTokBytes + i] = random_byte(i + s * kWBytes, 6u);
    for (int i = threadIdx.x; i < K::kSfBytes; i += blockDim.x)
      st[kTokBytes + kWBytes + i] = random_scale(i + s * K::kSfBytes, 7u);
  }
}

template <bool kDecode>
__global__ void __launch_bounds__(kThreads, 2) mma_ceiling_kernel(int steps, float* sink) {
  extern __shared__ __align__(128) uint8_t smem[];
  fill_stages(smem);
  __syncthreads();
  const int warp_w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float acc[gemm::mma::kRegs];
#pragma unroll
  for (int r = 0; r < gemm::mma::kRegs; ++r) acc[r] = 0.0f;
  if constexpr (kDecode) {
    for (int it = 0; it < steps; ++it) K::compute_stage(smem + (it % kStages) * kStageBytes, acc, warp_w, lane);
  } else {
    K::AFrags a;
    K::decode_weights(smem, warp_w, lane, a);
    for (int it = 0; it < steps; ++it) K::mma_stage(smem + (it % kStages) * kStageBytes, a, acc, lane);
  }
  float sum = 0.0f;
#pragma unroll
  for (int r = 0; r < gemm::mma::kRegs; ++r) sum += acc[r];
  if (__float_as_uint(sum) == 0xFFFFFFFFu) *sink = sum;  // never: arithmetic makes only the canonical NaN
}

}  // namespace

MmaCeilingLaunch mma_ceiling_launch(bool decode) {
  const auto kernel = decode ? mma_ceiling_kernel<true> : mma_ceiling_kernel<false>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes));
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, K::kSmemBytes));
  MmaCeilingLaunch l;
  l.ctas_per_sm = per_sm;
  l.threads = kThreads;
  l.flop_per_step = 2.0 * K::kSlots * gemm::mma::kTokens * gemm::mma::kBK;
  l.launch = [kernel](int ctas, int steps, float* sink, cudaStream_t s) {
    kernel<<<ctas, kThreads, K::kSmemBytes, s>>>(steps, sink);
    CUDA_CHECK_LAUNCH();
  };
  return l;
}

}  // namespace nvfp4
