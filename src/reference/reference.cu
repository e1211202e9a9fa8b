// SPDX-License-Identifier: Apache-2.0
// reference.cu: DeviceReference (see reference.hpp). Untimed: scratch buffers are allocated per
// compute() call and freed after each group.
//
// Per group:
//  - native (CC 10.x/12.x and cuBLASLt reports support): cuBLASLt NVFP4 matmul on the packed data
//    and blocked scales, FP16 output (dual_gemm: two FP32 outputs, then silu_mul_fp16);
//  - otherwise: exact dequantisation of A and B (B2) to FP16, cuBLASLt FP16 x FP16 with FP32
//    compute and FP32 output, then one rounding to FP16 (dual_gemm: silu_mul_fp16).
// gemv uses only row 0 of its 128-row B (n = 1).
// With a bound asked for: the same dequantised GEMMs on |A| and |B| give sum_k |a*b| per element,
// from which accumulation_bound() derives how far two FP32 summation orders can drift apart.
#include "reference/reference.hpp"

#include "core/device_buffer.hpp"
#include "reference/dequant.cuh"
#include "reference/lt_matmul.hpp"

namespace nvfp4 {

struct DeviceReference::Impl {
  bool native_cc = false;
  LtMatmul lt;

  // One group into `out` ([l][m][n] FP16, device). True when the native path was used.
  bool group(Problem p, const GemmOperands& g, __half* out, cudaStream_t s) {
    const Dims& d = g.dims;
    const bool dual = p == Problem::dual_gemm;
    const int64_t mn = d.m * d.n * d.l;
    if (native_cc) {
      if (!dual && lt.nvfp4_native_supported(g.a, g.b, out, LtOut::f16, d.m, d.n)) {
        lt.nvfp4_tn(g.a, g.b, out, LtOut::f16, d.m, d.n, s);
        return true;
      }
      if (dual) {
        DeviceBuffer x1(static_cast<size_t>(mn) * sizeof(float)), x2(static_cast<size_t>(mn) * sizeof(float));
        if (lt.nvfp4_native_supported(g.a, g.b, x1.get(), LtOut::f32, d.m, d.n) &&
            lt.nvfp4_native_supported(g.a, g.b2, x2.get(), LtOut::f32, d.m, d.n)) {
          lt.nvfp4_tn(g.a, g.b, x1.get(), LtOut::f32, d.m, d.n, s);
          lt.nvfp4_tn(g.a, g.b2, x2.get(), LtOut::f32, d.m, d.n, s);
          silu_mul_fp16(x1.get<float>(), x2.get<float>(), out, mn, s);
          CUDA_CHECK(cudaStreamSynchronize(s));  // before x1, x2 are freed
          return true;
        }
      }
    }
    // Dequantised FP16 path.
    DeviceBuffer a16 = dequantized_fp16(g.a, d.m, s);
    DeviceBuffer b16 = dequantized_fp16(g.b, d.n, s);  // gemv: n = 1, row 0 of each 128-row batch
    DeviceBuffer x1(static_cast<size_t>(mn) * sizeof(float));
    lt.fp16_tn(a16.get<__half>(), b16.get<__half>(), x1.get(), LtOut::f32, d.m, d.n, d.k, d.l, s);
    if (dual) {
      DeviceBuffer x2(static_cast<size_t>(mn) * sizeof(float));
      dequantize_fp16(g.b2, d.n, b16.get<__half>(), s);  // b16 reused: same stream, in order
      lt.fp16_tn(a16.get<__half>(), b16.get<__half>(), x2.get(), LtOut::f32, d.m, d.n, d.k, d.l, s);
      silu_mul_fp16(x1.get<float>(), x2.get<float>(), out, mn, s);
      CUDA_CHECK(cudaStreamSynchronize(s));
    } else {
      fp32_to_fp16(x1.get<float>(), out, mn, s);
    }
    CUDA_CHECK(cudaStreamSynchronize(s));  // before the scratch buffers are freed
    return false;
  }

  // bound ([l][m][n] FP32, device) for one group; see accumulation_bound().
  void group_bound(Problem p, const GemmOperands& g, float* bound, cudaStream_t s) {
    const Dims& d = g.dims;
    const bool dual = p == Problem::dual_gemm;
    const int64_t mn = d.m * d.n * d.l;
    DeviceBuffer a16 = dequantized_fp16(g.a, d.m, s);
    DeviceBuffer b16(static_cast<size_t>(d.l * d.n * d.k) * sizeof(__half));
    DeviceBuffer abs1(static_cast<size_t>(mn) * sizeof(float)), abs2, gate, up;
    if (dual) {
      // Signed sums first (A still signed), then |A| for the absolute sums.
      gate = DeviceBuffer(static_cast<size_t>(mn) * sizeof(float));
      up = DeviceBuffer(static_cast<size_t>(mn) * sizeof(float));
      abs2 = DeviceBuffer(static_cast<size_t>(mn) * sizeof(float));
      dequantize_fp16(g.b, d.n, b16.get<__half>(), s);
      lt.fp16_tn(a16.get<__half>(), b16.get<__half>(), gate.get(), LtOut::f32, d.m, d.n, d.k, d.l, s);
      dequantize_fp16(g.b2, d.n, b16.get<__half>(), s);
      lt.fp16_tn(a16.get<__half>(), b16.get<__half>(), up.get(), LtOut::f32, d.m, d.n, d.k, d.l, s);
    }
    abs_fp16_inplace(a16.get<__half>(), d.l * d.m * d.k, s);
    auto abs_product = [&](const Fp4Matrix& b, DeviceBuffer& out) {
      dequantize_fp16(b, d.n, b16.get<__half>(), s);
      abs_fp16_inplace(b16.get<__half>(), d.l * d.n * d.k, s);
      lt.fp16_tn(a16.get<__half>(), b16.get<__half>(), out.get(), LtOut::f32, d.m, d.n, d.k, d.l, s);
    };
    abs_product(g.b, abs1);
    if (dual) abs_product(g.b2, abs2);
    accumulation_bound(abs1.get<float>(), dual ? abs2.get<float>() : nullptr, dual ? gate.get<float>() : nullptr,
                       dual ? up.get<float>() : nullptr, bound, mn, d.k, s);
    CUDA_CHECK(cudaStreamSynchronize(s));  // before the scratch buffers are freed
  }
};

DeviceReference::DeviceReference(const DeviceInfo& dev) : m_impl(std::make_unique<Impl>()) {
  m_impl->native_cc = nvfp4_native_cc(dev.cc_major);
}

DeviceReference::~DeviceReference() = default;

ReferenceOutput DeviceReference::compute(const CaseView& c, cudaStream_t stream, bool with_bound) {
  ReferenceOutput r;
  bool all_native = !c.groups.empty();
  for (const GemmOperands& g : c.groups) {
    const int64_t count = g.dims.l * g.dims.m * g.dims.n;
    DeviceBuffer out(static_cast<size_t>(count) * sizeof(__half));
    all_native = m_impl->group(c.problem, g, out.get<__half>(), stream) && all_native;
    CUDA_CHECK(cudaStreamSynchronize(stream));  // to_host copies on the legacy stream
    r.groups.push_back(to_host(out.get<__half>(), count));
    if (with_bound) {
      DeviceBuffer bound(static_cast<size_t>(count) * sizeof(float));
      m_impl->group_bound(c.problem, g, bound.get<float>(), stream);
      std::vector<float> host(static_cast<size_t>(count));
      CUDA_CHECK(cudaMemcpy(host.data(), bound.get(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
      r.bounds.push_back(std::move(host));
    }
  }
  // A mixed case (some groups unsupported natively) reports the dequant path, the weaker claim.
  r.name = all_native ? "cublaslt-nvfp4" : "cublaslt-fp16-dequant";
  return r;
}

}  // namespace nvfp4
