// SPDX-License-Identifier: Apache-2.0
// mma_ceiling.hpp: the loop behind calibrate's decode_mma_tflops and mma_sync_tflops
// (measure/calibrate.hpp), declared here and defined by kernels/common/mma_ceiling.cu, beside the
// `tensor-core` main loop whose code it runs (as variant.hpp's VariantInfo is defined by the
// variants' files).
#pragma once

#include <cuda_runtime.h>

#include <functional>

namespace nvfp4 {

// The `tensor-core` main loop's compute without its loads (kernels/common/mma_ceiling.cu, built
// from the main loop's own code): its CTA's threads, how many CTAs fit on an SM, the FLOP of one
// CTA's K step, and `launch`, which runs `ctas` CTAs of `steps` K steps each on `s`. decode =
// false: the A fragments are decoded once, the loop runs ldmatrix and mma.sync only. Sets the
// kernel's shared-memory attribute; throws CudaError.
struct MmaCeilingLaunch {
  int threads = 0;
  int ctas_per_sm = 0;
  double flop_per_step = 0;
  std::function<void(int ctas, int steps, float* sink, cudaStream_t s)> launch;
};
MmaCeilingLaunch mma_ceiling_launch(bool decode);

}  // namespace nvfp4
