// SPDX-License-Identifier: Apache-2.0
// The device reference against the FP64 host reference, and the generator's contract.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <set>

#include "core/case_data.hpp"
#include "core/device_buffer.hpp"
#include "core/nvfp4.hpp"
#include "gpu_test_util.hpp"
#include "reference/reference.hpp"

using namespace nvfp4;

TEST(DeviceReference, MatchesHostFp64OnSmallShapes) {
  const DeviceInfo dev = query_device(0);
  Stream stream;
  DeviceReference reference(dev);
  int checked = 0;
  for (const char* cfg : {"configs/smoke.json", "configs/gpumode/gemv.json", "configs/gpumode/gemm.json",
                          "configs/gpumode/dual_gemm.json", "configs/gpumode/group_gemm.json"}) {
    for (const CaseSpec& c : test::config_cases(cfg, "test")) {
      double work = 0;
      for (const Dims& d : c.shape.groups) work += double(d.m) * d.n * d.k * d.l;
      if (work > 4e7) continue;  // the FP64 host loop is slow
      for (Dist dist : {Dist::gpumode, Dist::uniform}) {
        CaseData data(c.problem, c.shape, dist, c.seed, stream.get());
        const ReferenceOutput ref = reference.compute(data.view(), stream.get(), dist == Dist::uniform);
        CheckResult check;
        for (size_t g = 0; g < data.view().groups.size(); ++g) {
          const GemmOperands& op = data.view().groups[g];
          const HostFp4Matrix a = to_host(op.a), b = to_host(op.b);
          std::optional<HostFp4Matrix> b2;
          if (c.problem == Problem::dual_gemm) b2 = to_host(op.b2);
          const auto host = host_reference(c.problem, op.dims, a, b, b2 ? &*b2 : nullptr);
          verify_group(ref.groups[g], host, op.dims, static_cast<int64_t>(g), Tolerance{}, check,
                       ref.bounds.empty() ? nullptr : &ref.bounds[g]);
        }
        EXPECT_TRUE(check.passed()) << cfg << " " << to_string(c.problem) << " " << format_shape(c.problem, c.shape)
                                    << " " << to_string(dist) << ": " << check.mismatches << " mismatches ("
                                    << ref.name << ")";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10);
}

namespace {

std::vector<uint8_t> bytes_of(const uint8_t* dev, int64_t n) {
  std::vector<uint8_t> v(static_cast<size_t>(n));
  CUDA_CHECK(cudaMemcpy(v.data(), dev, v.size(), cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace

TEST(Generate, DeterministicAndLayoutsAgree) {
  Stream stream;
  const Shape s = parse_shape(Problem::gemm, "200x136x512x2");
  CaseData x(Problem::gemm, s, Dist::gpumode, 1111, stream.get());
  CaseData y(Problem::gemm, s, Dist::gpumode, 1111, stream.get());
  CaseData z(Problem::gemm, s, Dist::gpumode, 1112, stream.get());
  stream.sync();
  const Fp4Matrix& a = x.view().groups[0].a;
  EXPECT_EQ(to_host(a).data, to_host(y.view().groups[0].a).data);
  EXPECT_NE(to_host(a).data, to_host(z.view().groups[0].a).data);
  const HostFp4Matrix h = to_host(a);
  const SfGeometry g{a.rows, a.k / kSfVec, a.l};
  for (int64_t b = 0; b < a.l; ++b)
    for (int64_t i = 0; i < a.rows; ++i)
      for (int64_t j = 0; j < g.sf_cols; ++j)
        ASSERT_EQ(h.sf_blocked[static_cast<size_t>(g.blocked_offset(i, j, b))],
                  h.sf[static_cast<size_t>(g.rowmajor_offset(i, j, b))]);
}

TEST(Generate, GpuModeDistributions) {
  Stream stream;
  auto codes = [&](Problem p, const char* shape, bool scales) {
    CaseData d(p, parse_shape(p, shape), Dist::gpumode, 1111, stream.get());
    const Fp4Matrix& a = d.view().groups[0].a;
    const auto v = scales ? bytes_of(a.sf, a.rows * a.k / kSfVec * a.l) : bytes_of(a.data, a.rows * a.k / 2 * a.l);
    return std::set<uint8_t>(v.begin(), v.end());
  };
  EXPECT_EQ(codes(Problem::gemv, "256x1024x1", false), (std::set<uint8_t>{0, 1, 2, 3}));
  EXPECT_EQ(codes(Problem::gemv, "256x1024x1", true), (std::set<uint8_t>{0x00, 0x38, 0x40}));
  EXPECT_EQ(codes(Problem::gemm, "256x256x1024", false).size(), 256u);
  EXPECT_EQ(codes(Problem::gemm, "256x256x1024", true), (std::set<uint8_t>{0x00, 0x38, 0x40, 0x44}));
  const auto masked = codes(Problem::group_gemm, "256x256x1024", false);
  for (uint8_t b : masked) EXPECT_EQ(b & ~0xBB, 0);
  EXPECT_EQ(masked.size(), 64u);
  EXPECT_EQ(codes(Problem::group_gemm, "256x256x1024", true), (std::set<uint8_t>{0x38, 0x40}));
  for (uint8_t sf : codes(Problem::dual_gemm, "256x256x1024", true)) EXPECT_LE(sf, 0x38);  // e4m3(U[0,1)) <= 1.0
}
