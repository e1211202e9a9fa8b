// SPDX-License-Identifier: Apache-2.0
// The check must fail on NaN, Inf, a sign flip, one wrong element and all zeros, and pass on an
// exact match and on a 1-ULP difference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/verify.hpp"

using namespace nvfp4;

namespace {

const Dims kDims{4, 8, 256, 2};

std::vector<__half> ramp() {
  std::vector<__half> v(static_cast<size_t>(kDims.l * kDims.m * kDims.n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = __float2half(float(i) * 0.75f - 20.0f);
  return v;
}

CheckResult check(const std::vector<__half>& out, const std::vector<__half>& ref) {
  CheckResult r;
  verify_group(out, ref, kDims, 0, Tolerance{}, r);
  return r;
}

}  // namespace

TEST(Verify, ExactMatchPasses) {
  const auto ref = ramp();
  const CheckResult r = check(ref, ref);
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.checked, 64);
  EXPECT_EQ(r.max_abs, 0.0);
}

TEST(Verify, OneUlpPasses) {
  const auto ref = ramp();
  auto out = ref;
  out[10] = __ushort_as_half(static_cast<unsigned short>(__half_as_ushort(out[10]) + 1));
  EXPECT_TRUE(check(out, ref).passed());
}

TEST(Verify, OneWrongElementFailsWithCoordinates) {
  const auto ref = ramp();
  auto out = ref;
  out[45] = __float2half(__half2float(ref[45]) + 1.0f);  // l = 1, m = 1, n = 5
  const CheckResult r = check(out, ref);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.mismatches, 1);
  ASSERT_EQ(r.first.size(), 1u);
  EXPECT_EQ(r.first[0].l, 1);
  EXPECT_EQ(r.first[0].m, 1);
  EXPECT_EQ(r.first[0].n, 5);
  EXPECT_NEAR(r.max_abs, 1.0, 1e-3);
}

TEST(Verify, NanFails) {
  const auto ref = ramp();
  auto out = ref;
  out[3] = __ushort_as_half(0x7E00);
  EXPECT_FALSE(check(out, ref).passed());
  EXPECT_FALSE(check(ref, out).passed());  // NaN in the reference only
}

TEST(Verify, PoisonedUnwrittenOutputFails) {
  const auto ref = ramp();
  std::vector<__half> out(ref.size(), __ushort_as_half(0xFFFF));
  const CheckResult r = check(out, ref);
  EXPECT_EQ(r.mismatches, 64);
  EXPECT_EQ(r.first.size(), CheckResult::kKeep);
}

TEST(Verify, InfinitiesMustAgree) {
  auto ref = ramp();
  auto out = ref;
  out[7] = __ushort_as_half(0x7C00);  // +inf vs finite
  EXPECT_FALSE(check(out, ref).passed());
  ref[7] = __ushort_as_half(0xFC00);  // +inf vs -inf
  EXPECT_FALSE(check(out, ref).passed());
  ref[7] = __ushort_as_half(0x7C00);  // same infinity
  EXPECT_TRUE(check(out, ref).passed());
}

TEST(Verify, SignFlipFails) {
  const auto ref = ramp();
  auto out = ref;
  out[60] = __hneg(out[60]);
  EXPECT_FALSE(check(out, ref).passed());
}

TEST(Verify, AllZerosFails) {
  const auto ref = ramp();
  std::vector<__half> out(ref.size(), __float2half(0.0f));
  EXPECT_FALSE(check(out, ref).passed());
}

TEST(Verify, ToleranceIsAtolPlusRtolTimesRef) {
  std::vector<__half> ref(64, __float2half(1000.0f)), out(64, __float2half(1000.0f));
  out[0] = __float2half(1001.0f);  // diff 1.0 <= 1e-3 + 1e-3 * 1000 = 1.001
  EXPECT_TRUE(check(out, ref).passed());
  out[0] = __float2half(1002.0f);  // diff 2.0 > 1.001
  EXPECT_FALSE(check(out, ref).passed());
}

TEST(Verify, EmptyCheckDoesNotPass) { EXPECT_FALSE(CheckResult{}.passed()); }

TEST(Verify, AccumulationBoundWidensOnlyWhereGiven) {
  std::vector<__half> ref(64, __float2half(0.5f)), out = ref;
  out[9] = __float2half(0.75f);  // diff 0.25 > 1e-3 + 5e-4
  std::vector<float> bound(64, 0.0f);
  CheckResult plain, tight, wide;
  verify_group(out, ref, kDims, 0, Tolerance{}, plain);
  verify_group(out, ref, kDims, 0, Tolerance{}, tight, &bound);
  bound[9] = 0.3f;
  verify_group(out, ref, kDims, 0, Tolerance{}, wide, &bound);
  EXPECT_FALSE(plain.passed());
  EXPECT_FALSE(tight.passed());
  EXPECT_TRUE(wide.passed());
  EXPECT_TRUE(wide.with_bound);
  EXPECT_FALSE(plain.with_bound);
}

TEST(Verify, BoundAllowsOverflowOnlyNearTheThreshold) {
  std::vector<__half> ref(64, __float2half(-65504.0f)), out = ref;
  out[2] = __ushort_as_half(0xFC00);  // -inf
  std::vector<float> bound(64, 0.0f);
  CheckResult none, small, enough;
  verify_group(out, ref, kDims, 0, Tolerance{}, none);
  verify_group(out, ref, kDims, 0, Tolerance{}, small, &bound);
  bound[2] = 32.0f;  // -65504 - 32 crosses -65520
  verify_group(out, ref, kDims, 0, Tolerance{}, enough, &bound);
  EXPECT_FALSE(none.passed());
  EXPECT_FALSE(small.passed());
  EXPECT_TRUE(enough.passed());
  out[2] = __ushort_as_half(0x7C00);  // +inf against a negative value never passes
  CheckResult sign;
  verify_group(out, ref, kDims, 0, Tolerance{}, sign, &bound);
  EXPECT_FALSE(sign.passed());
}
