// SPDX-License-Identifier: Apache-2.0
// lt_matmul.cu: see lt_matmul.hpp.
//
// Native NVFP4 (cuBLASLt docs, "cublasLtMatmul" / "Block scaling factors layout"): A and B of type
// CUDA_R_4F_E2M1, TN only (TRANSA = T, TRANSB = N), CUBLAS_COMPUTE_32F with CUDA_R_32F scale type,
// A/B_SCALE_MODE = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3 and A/B_SCALE_POINTER = the 128x4
// blocked UE4M3 scale tensors of the operands as cuBLAS sees them (its A = our B, its B = our A);
// C and D of type FP16 or FP32 (C = D here, beta = 0). The blocked tensors of the generator follow
// PROBLEMS.md 1.3, which is that layout. Batched scale tensors are not used: one call per batch.
#include "reference/lt_matmul.hpp"

#include <cublasLt.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/nvfp4.hpp"

namespace nvfp4 {

namespace {

[[noreturn]] void lt_fail(cublasStatus_t st, const char* expr, const char* file, int line) {
  const char* name = cublasLtGetStatusName(st);
  throw_library_error(std::string("cuBLASLt ") + (name ? name : "unknown status") + " (" +
                          std::to_string(static_cast<int>(st)) + ")",
                      expr, file, line);
}

#define LT_CHECK(expr)                                                            \
  do {                                                                            \
    const cublasStatus_t nvfp4_lt_st_ = (expr);                                   \
    if (nvfp4_lt_st_ != CUBLAS_STATUS_SUCCESS) lt_fail(nvfp4_lt_st_, #expr, __FILE__, __LINE__); \
  } while (false)

constexpr size_t kWorkspaceBytes = size_t{32} << 20;

struct DescDeleter {
  void operator()(cublasLtMatmulDesc_t d) const noexcept { cublasLtMatmulDescDestroy(d); }
};
struct LayoutDeleter {
  void operator()(cublasLtMatrixLayout_t l) const noexcept { cublasLtMatrixLayoutDestroy(l); }
};
struct PrefDeleter {
  void operator()(cublasLtMatmulPreference_t p) const noexcept { cublasLtMatmulPreferenceDestroy(p); }
};
using DescPtr = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, DescDeleter>;
using LayoutPtr = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, LayoutDeleter>;
using PrefPtr = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, PrefDeleter>;

DescPtr make_desc() {
  cublasLtMatmulDesc_t d = nullptr;
  LT_CHECK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  DescPtr owned(d);
  const int32_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  LT_CHECK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof(trans_a)));
  LT_CHECK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof(trans_b)));
  return owned;
}

// Column-major rows x cols, leading dimension ld (elements); strided batch when batches > 1.
LayoutPtr make_layout(cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld, int64_t batches,
                      int64_t batch_stride) {
  cublasLtMatrixLayout_t l = nullptr;
  LT_CHECK(cublasLtMatrixLayoutCreate(&l, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld));
  LayoutPtr owned(l);
  if (batches > 1) {
    const int32_t count = static_cast<int32_t>(batches);
    LT_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
    LT_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batch_stride,
                                              sizeof(batch_stride)));
  }
  return owned;
}

cudaDataType_t data_type(LtOut o) { return o == LtOut::f16 ? CUDA_R_16F : CUDA_R_32F; }
int64_t elem_bytes(LtOut o) { return o == LtOut::f16 ? 2 : 4; }

// Largest power of two (<= 256) dividing the base address and, when batched, the batch stride.
uint32_t alignment(const void* p, int64_t batch_stride_bytes, int64_t batches) {
  uintptr_t v = reinterpret_cast<uintptr_t>(p) | uintptr_t{256};
  if (batches > 1) v |= static_cast<uintptr_t>(batch_stride_bytes);
  return static_cast<uint32_t>(v & (~v + 1));
}

enum class Kind { fp16, nvfp4 };

struct Key {
  Kind kind;
  int64_t m, n, k, l;
  LtOut out;
  uint32_t align_a, align_b, align_d;  // of OUR a, b, d
  bool operator==(const Key&) const = default;
};

struct Plan {
  Key key;
  bool supported = false;
  DescPtr desc;
  LayoutPtr lt_a, lt_b, lt_d;  // cuBLAS's A (= our B), B (= our A), C = D
  cublasLtMatmulAlgo_t algo{};
};

}  // namespace

bool nvfp4_native_cc(int cc_major) { return cc_major == 10 || cc_major == 12; }

bool nvfp4_native_cc_current_device() {
  int dev = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  return nvfp4_native_cc(major);
}

struct LtMatmul::Impl {
  struct Handle {
    cublasLtHandle_t h = nullptr;
    Handle() { LT_CHECK(cublasLtCreate(&h)); }
    ~Handle() {
      if (h) cublasLtDestroy(h);
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
  };
  Handle handle;  // declared first: destroyed after the plans
  DeviceBuffer workspace{kWorkspaceBytes};
  std::vector<std::unique_ptr<Plan>> plans;

  Plan* find(const Key& key) {
    for (auto& p : plans)
      if (p->key == key) return p.get();
    return nullptr;
  }

  // Asks the heuristic for one algorithm; false on NOT_SUPPORTED or zero results.
  bool resolve(Plan& p) {
    cublasLtMatmulPreference_t raw = nullptr;
    LT_CHECK(cublasLtMatmulPreferenceCreate(&raw));
    PrefPtr pref(raw);
    const uint64_t ws = kWorkspaceBytes;
    LT_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    // cuBLAS's A is our B and vice versa.
    LT_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &p.key.align_b,
                                                  sizeof(uint32_t)));
    LT_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &p.key.align_a,
                                                  sizeof(uint32_t)));
    LT_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &p.key.align_d,
                                                  sizeof(uint32_t)));
    LT_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &p.key.align_d,
                                                  sizeof(uint32_t)));
    if (p.key.out == LtOut::f16) {
      // Split-K partials must meet in FP32 (the compute type), never in the FP16 output: on gemm
      // 200x130x16384 the heuristic picked a reduction in FP16 and missed the exact sums by up to
      // 6 FP16 ulps (H100, cuBLASLt 13.0).
      const uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
      LT_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
                                                    sizeof(schemes)));
    }
    cublasLtMatmulHeuristicResult_t result{};
    int count = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(handle.h, p.desc.get(), p.lt_a.get(), p.lt_b.get(),
                                                             p.lt_d.get(), p.lt_d.get(), raw, 1, &result, &count);
    if (st == CUBLAS_STATUS_NOT_SUPPORTED) return false;
    if (st != CUBLAS_STATUS_SUCCESS) lt_fail(st, "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__);
    if (count < 1 || result.state != CUBLAS_STATUS_SUCCESS) return false;
    p.algo = result.algo;
    return true;
  }

  Plan& fp16_plan(const __half* a, const __half* b, const void* d, LtOut out, int64_t m, int64_t n, int64_t k,
                  int64_t l) {
    const Key key{Kind::fp16, m, n, k, l, out,
                  alignment(a, m * k * 2, l), alignment(b, n * k * 2, l), alignment(d, m * n * elem_bytes(out), l)};
    if (Plan* p = find(key)) return *p;
    auto p = std::make_unique<Plan>();
    p->key = key;
    p->desc = make_desc();
    p->lt_a = make_layout(CUDA_R_16F, k, n, k, l, n * k);  // our B, stored k x n column-major, op T
    p->lt_b = make_layout(CUDA_R_16F, k, m, k, l, m * k);  // our A, stored k x m column-major, op N
    p->lt_d = make_layout(data_type(out), n, m, n, l, m * n);
    p->supported = resolve(*p);
    if (!p->supported)
      throw_library_error("cuBLASLt: no algorithm for FP16 TN m=" + std::to_string(m) + " n=" + std::to_string(n) +
                              " k=" + std::to_string(k) + " l=" + std::to_string(l),
                          "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__);
    plans.push_back(std::move(p));
    return *plans.back();
  }

  static void set_scale_pointers(cublasLtMatmulDesc_t desc, const Fp4Matrix& a, const Fp4Matrix& b, int64_t batch) {
    const SfGeometry ga{a.rows, a.k / kSfVec, a.l}, gb{b.rows, b.k / kSfVec, b.l};
    const void* sf_lt_a = b.sf_blocked + batch * gb.blocked_bytes_per_batch();  // cuBLAS's A = our B
    const void* sf_lt_b = a.sf_blocked + batch * ga.blocked_bytes_per_batch();
    LT_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sf_lt_a, sizeof(sf_lt_a)));
    LT_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sf_lt_b, sizeof(sf_lt_b)));
  }

  Plan& nvfp4_plan(const Fp4Matrix& a, const Fp4Matrix& b, const void* d, LtOut out, int64_t m, int64_t n) {
    const int64_t k = a.k, l = a.l;
    if (b.k != k || b.l != l || m > a.rows || n > b.rows || m <= 0 || n <= 0 || k % kSfVec != 0)
      throw std::invalid_argument("LtMatmul::nvfp4: inconsistent operand shapes");
    const uint32_t al_a = std::min(alignment(a.data, a.rows * k / 2, l), alignment(a.sf_blocked, 512, 1));
    const uint32_t al_b = std::min(alignment(b.data, b.rows * k / 2, l), alignment(b.sf_blocked, 512, 1));
    const Key key{Kind::nvfp4, m, n, k, l, out, al_a, al_b, alignment(d, m * n * elem_bytes(out), l)};
    if (Plan* p = find(key)) return *p;
    auto p = std::make_unique<Plan>();
    p->key = key;
    p->desc = make_desc();
    const int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
    LT_CHECK(cublasLtMatmulDescSetAttribute(p->desc.get(), CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof(mode)));
    LT_CHECK(cublasLtMatmulDescSetAttribute(p->desc.get(), CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof(mode)));
    set_scale_pointers(p->desc.get(), a, b, 0);
    // One batch per call; ld in elements (FP4: two per byte).
    p->lt_a = make_layout(CUDA_R_4F_E2M1, k, n, k, 1, 0);
    p->lt_b = make_layout(CUDA_R_4F_E2M1, k, m, k, 1, 0);
    p->lt_d = make_layout(data_type(out), n, m, n, 1, 0);
    p->supported = resolve(*p);
    plans.push_back(std::move(p));
    return *plans.back();
  }

  void matmul(const Plan& p, const void* lt_a, const void* lt_b, void* d, cudaStream_t s) {
    const float alpha = 1.0f, beta = 0.0f;
    LT_CHECK(cublasLtMatmul(handle.h, p.desc.get(), &alpha, lt_a, p.lt_a.get(), lt_b, p.lt_b.get(), &beta, d,
                            p.lt_d.get(), d, p.lt_d.get(), &p.algo, workspace.get(), kWorkspaceBytes, s));
  }
};

LtMatmul::LtMatmul() : m_impl(std::make_unique<Impl>()) {}
LtMatmul::~LtMatmul() = default;

void LtMatmul::prepare_fp16_tn(const __half* a, const __half* b, const void* d, LtOut out, int64_t m, int64_t n,
                               int64_t k, int64_t l) {
  m_impl->fp16_plan(a, b, d, out, m, n, k, l);
}

void LtMatmul::fp16_tn(const __half* a, const __half* b, void* d, LtOut out, int64_t m, int64_t n, int64_t k,
                       int64_t l, cudaStream_t s) {
  const Plan& p = m_impl->fp16_plan(a, b, d, out, m, n, k, l);
  m_impl->matmul(p, b, a, d, s);  // cuBLAS's A = our B
}

bool LtMatmul::nvfp4_native_supported(const Fp4Matrix& a, const Fp4Matrix& b, const void* d, LtOut out, int64_t m,
                                      int64_t n) {
  return m_impl->nvfp4_plan(a, b, d, out, m, n).supported;
}

void LtMatmul::nvfp4_tn(const Fp4Matrix& a, const Fp4Matrix& b, void* d, LtOut out, int64_t m, int64_t n,
                        cudaStream_t s) {
  Plan& p = m_impl->nvfp4_plan(a, b, d, out, m, n);
  if (!p.supported)
    throw_library_error("cuBLASLt: native NVFP4 matmul not supported for this shape/device", "nvfp4_tn", __FILE__,
                        __LINE__);
  const int64_t k = a.k;
  for (int64_t batch = 0; batch < a.l; ++batch) {
    Impl::set_scale_pointers(p.desc.get(), a, b, batch);
    const uint8_t* b_data = b.data + batch * b.rows * (k / 2);
    const uint8_t* a_data = a.data + batch * a.rows * (k / 2);
    void* d_batch = static_cast<uint8_t*>(d) + batch * m * n * elem_bytes(out);
    m_impl->matmul(p, b_data, a_data, d_batch, s);
  }
}

}  // namespace nvfp4
