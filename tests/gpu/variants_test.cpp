// SPDX-License-Identifier: Apache-2.0
// Every registered variant of every problem on the gpu-mode test shapes and the smoke shapes,
// against the device reference, with both distributions.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/case_data.hpp"
#include "core/scoped_env.hpp"
#include "core/device_buffer.hpp"
#include "core/variant.hpp"
#include "gpu_test_util.hpp"
#include "reference/reference.hpp"

using namespace nvfp4;

namespace {

// The case's outputs (every group) against the reference.
CheckResult check_outputs(const CaseData& data, const ReferenceOutput& ref) {
  CheckResult check;
  for (size_t g = 0; g < data.view().groups.size(); ++g) {
    const GemmOperands& op = data.view().groups[g];
    verify_group(to_host(op.c, op.dims.l * op.dims.m * op.dims.n), ref.groups[g], op.dims, static_cast<int64_t>(g),
                 Tolerance{}, check, ref.bounds.empty() ? nullptr : &ref.bounds[g]);
  }
  return check;
}

// `only`: one variant's name, or every variant when empty.
void check_all_variants(Problem p, const std::vector<CaseSpec>& cases, const std::string& only = "") {
  const DeviceInfo dev = query_device(0);
  Stream stream;
  DeviceReference reference(dev);
  int ran = 0;
  for (const CaseSpec& spec : cases) {
    if (spec.problem != p) continue;
    for (Dist dist : {Dist::gpumode, Dist::uniform}) {
      CaseData data(p, spec.shape, dist, spec.seed, stream.get());
      const ReferenceOutput ref = reference.compute(data.view(), stream.get(), dist == Dist::uniform);
      for (const VariantInfo* v : variants_for(p)) {
        const std::string what = fmt::format("{} {} {} dist={}", to_string(p), format_shape(p, spec.shape), v->name,
                                             to_string(dist));
        if (!v->unsupported(dev, spec.shape).empty() || (!only.empty() && v->name != only)) continue;
        auto runner = v->prepare(data.view(), stream.get());
        data.poison_outputs(stream.get());
        runner->run(stream.get());
        ASSERT_EQ(cudaGetLastError(), cudaSuccess) << what;
        stream.sync();
        const CheckResult check = check_outputs(data, ref);
        if (check.passed()) {
          ++ran;
        } else {
          const Mismatch& m = check.first.front();
          ADD_FAILURE() << what << ": " << check.mismatches << " mismatches, first (g" << m.group << ", l" << m.l
                        << ", m" << m.m << ", n" << m.n << ") got " << m.got << " want " << m.want;
        }
      }
    }
  }
  EXPECT_GT(ran, 0) << "no variant ran for " << to_string(p);
}

std::vector<CaseSpec> test_cases(Problem p) {
  auto cases = test::config_cases(fmt::format("configs/gpumode/{}.json", to_string(p)), "test");
  for (auto& c : test::config_cases("configs/smoke.json")) cases.push_back(c);
  if (p == Problem::gemm || p == Problem::dual_gemm || p == Problem::group_gemm)
    for (auto& c : test::config_cases("configs/gemm_edges.json")) cases.push_back(c);
  return cases;
}

}  // namespace

TEST(Variants, Gemv) { check_all_variants(Problem::gemv, test_cases(Problem::gemv)); }
TEST(Variants, Gemm) { check_all_variants(Problem::gemm, test_cases(Problem::gemm)); }
TEST(Variants, DualGemm) { check_all_variants(Problem::dual_gemm, test_cases(Problem::dual_gemm)); }
TEST(Variants, GroupGemm) { check_all_variants(Problem::group_gemm, test_cases(Problem::group_gemm)); }

TEST(Variants, GemvEveryBatchCount) {
  std::vector<CaseSpec> cases;
  for (int l = 1; l <= 8; ++l) {
    CaseSpec c;
    c.problem = Problem::gemv;
    c.shape = parse_shape(Problem::gemv, fmt::format("{}x{}x{}", 128 * l + (l % 3), 64 * (l + 1), l));
    cases.push_back(c);
  }
  check_all_variants(Problem::gemv, cases);
}

namespace {

// The ways of sharing out the work the schedule tests force: data-parallel (with cluster split-K),
// stream-K over the model's CTA count, and stream-K over 5 CTAs, whose runs straddle the small test
// shapes' tiles in every way (partial sums written, owners adding one to several).
struct Schedule {
  const char* sched;
  const char* ctas;  // "": the model's count
};
// An environment variable for the scope of a forced schedule: `value`, or unset when it is "".
std::optional<std::string> env_value(const char* value) {
  return *value ? std::optional<std::string>(value) : std::nullopt;
}
constexpr Schedule kSchedules[] = {{"data", ""}, {"stream-k", ""}, {"stream-k", "5"}};

}  // namespace

// The `persistent` GEMM family under each schedule in each CTA shape, forced (the default run
// above takes the cost model's pick).
TEST(Variants, PersistentEverySchedule) {
  for (const char* cta : {"2x128", "3x128", "2x256"})
    for (const Schedule& s : kSchedules) {
      SCOPED_TRACE(fmt::format("NVFP4_PERSISTENT_CTA={} NVFP4_PERSISTENT_SCHED={} NVFP4_PERSISTENT_SK_CTAS={}", cta,
                               s.sched, s.ctas));
      const ScopedEnv e1("NVFP4_PERSISTENT_CTA", cta), e2("NVFP4_PERSISTENT_SCHED", s.sched),
          e3("NVFP4_PERSISTENT_SK_CTAS", env_value(s.ctas));
      for (Problem p : {Problem::gemm, Problem::dual_gemm, Problem::group_gemm})
        check_all_variants(p, test_cases(p), "persistent");
    }
}

// The `persistent` GEMM family with each number of producer threads issuing the copies (the default
// runs above take kIssuers), data-parallel and stream-K.
TEST(Variants, PersistentEveryIssuerCount) {
  for (const char* issuers : {"1", "2"})
    for (const char* sched : {"data", "stream-k"}) {
      SCOPED_TRACE(fmt::format("NVFP4_PERSISTENT_ISSUERS={} NVFP4_PERSISTENT_SCHED={}", issuers, sched));
      const ScopedEnv e1("NVFP4_PERSISTENT_ISSUERS", issuers), e2("NVFP4_PERSISTENT_SCHED", sched);
      for (Problem p : {Problem::gemm, Problem::dual_gemm, Problem::group_gemm})
        check_all_variants(p, test_cases(p), "persistent");
    }
}

// `persistent` and `tensor-core` with the tokens decoded by the pre-pass launch (and, for
// `persistent`, in every CTA shape), and with the decode in the main launch forced wherever the
// plan allows it (TokenFuse, docs/perf-notes.md P71: several batches per thread on the long-K edge
// shapes; the default runs above fuse where one batch suffices): gemm for both, dual_gemm for
// `tensor-core`, group_gemm for `persistent` in 2 x 128 (P74; `persistent` dual_gemm, and
// group_gemm in the other CTA shapes, keep the pre-pass whatever the knob says); and for
// `persistent` gemm and group_gemm by decoder CTAs beside the units (P104, P108: 2 x 128 plans of
// one unit per CTA with an SM to spare; the others keep their token path).
TEST(Variants, TokenModes) {
  for (const char* tokens : {"prepass", "fused", "stream"}) {
    for (const char* cta : {"2x128", "3x128", "2x256"}) {
      SCOPED_TRACE(fmt::format("NVFP4_PERSISTENT_TOKENS={} NVFP4_PERSISTENT_CTA={}", tokens, cta));
      const ScopedEnv e1("NVFP4_PERSISTENT_TOKENS", tokens), e2("NVFP4_PERSISTENT_CTA", cta);
      for (Problem p : {Problem::gemm, Problem::dual_gemm, Problem::group_gemm})
        check_all_variants(p, test_cases(p), "persistent");
    }
    if (std::string(tokens) == "stream") continue;  // `persistent` only (decoder CTAs, P104)
    SCOPED_TRACE(fmt::format("NVFP4_TENSOR_CORE_TOKENS={}", tokens));
    const ScopedEnv e("NVFP4_TENSOR_CORE_TOKENS", tokens);
    for (Problem p : {Problem::gemm, Problem::dual_gemm}) check_all_variants(p, test_cases(p), "tensor-core");
  }
}

// One runner launched again and again with the tokens changed in between (every e2m1 sign
// flipped): each launch must wait for its own launch's decode (TokenFuse's count is never reset),
// so each output matches the reference of the tokens it ran on.
namespace {

// One runner of variant `name` launched four times on `shape` of problem p, every token's sign
// flipped between launches (in every group), each launch checked against its own reference: what a
// launch leaves behind (counters that are never reset) must not corrupt the next. `plan` must
// appear in the runner's plan.
void check_relaunches(const char* name, const char* shape_text, const char* plan, Problem p = Problem::gemm) {
  SCOPED_TRACE(name);
  const DeviceInfo dev = query_device(0);
  const Shape shape = parse_shape(p, shape_text);
  const VariantInfo* v = find_variant(p, name);
  ASSERT_NE(v, nullptr);
  if (!v->unsupported(dev, shape).empty()) return;  // `persistent` needs sm_90a
  Stream stream;
  DeviceReference reference(dev);
  CaseData data(p, shape, Dist::gpumode, 7, stream.get());
  auto runner = v->prepare(data.view(), stream.get());
  ASSERT_NE(runner->plan().find(plan), std::string::npos) << runner->plan();
  const CaseView view = data.view();
  for (int launch = 0; launch < 4; ++launch) {
    SCOPED_TRACE(fmt::format("launch {}", launch));
    if (launch > 0)  // flip every token's sign: the outputs change with every launch
      for (const GemmOperands& op : view.groups) {
        const size_t a_bytes = static_cast<size_t>(op.a.l * op.a.rows * op.a.k / 2);
        std::vector<uint8_t> a(a_bytes);
        CUDA_CHECK(cudaMemcpy(a.data(), op.a.data, a_bytes, cudaMemcpyDeviceToHost));
        for (uint8_t& byte : a) byte ^= 0x88;
        CUDA_CHECK(cudaMemcpy(const_cast<uint8_t*>(op.a.data), a.data(), a_bytes, cudaMemcpyHostToDevice));
      }
    const ReferenceOutput ref = reference.compute(data.view(), stream.get(), false);
    data.poison_outputs(stream.get());
    runner->run(stream.get());
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    stream.sync();
    const CheckResult check = check_outputs(data, ref);
    EXPECT_TRUE(check.passed()) << check.mismatches << " mismatches";
  }
}

// What `variant` plans for `shape_text` of problem p under the environment as it is set: {true, the
// plan} once prepared, or {false, why the variant does not run on this GPU}.
std::pair<bool, std::string> prepared_plan(Problem p, const char* variant, const char* shape_text) {
  const DeviceInfo dev = query_device(0);
  const Shape shape = parse_shape(p, shape_text);
  const VariantInfo* v = find_variant(p, variant);
  if (v == nullptr) {
    ADD_FAILURE() << "no variant " << variant;
    return {false, "no such variant"};
  }
  if (std::string why = v->unsupported(dev, shape); !why.empty()) return {false, why};
  Stream stream;
  CaseData data(p, shape, Dist::gpumode, 7, stream.get());
  return {true, v->prepare(data.view(), stream.get())->plan()};
}

}  // namespace

// The tokens decoded in the main launch (TokenFuse: a never-reset arrival count).
TEST(Variants, FusedTokensRelaunch) {
  const ScopedEnv e1("NVFP4_PERSISTENT_TOKENS", "fused"), e2("NVFP4_TENSOR_CORE_TOKENS", "fused");
  check_relaunches("tensor-core", "256x1024x2048x2", "decoded in the main launch");
  // `persistent`'s weights held back after 0 (none), 1 or 8 (a whole ring) K steps until the CTA's
  // share is counted (P126), and by default.
  for (const char* ahead : {"", "0", "1", "8"}) {
    SCOPED_TRACE(fmt::format("NVFP4_PERSISTENT_WEIGHTS_AHEAD={}", ahead));
    const ScopedEnv e5("NVFP4_PERSISTENT_WEIGHTS_AHEAD", env_value(ahead));
    check_relaunches("persistent", "256x1024x2048x2", "decoded in the main launch");
    const ScopedEnv e3("NVFP4_PERSISTENT_CTA", "2x128"), e4("NVFP4_PERSISTENT_SCHED", "data");  // where group_gemm fuses (P74)
    check_relaunches("persistent", "40x512x512,200x768x1024,1x256x256", "decoded in the main launch", Problem::group_gemm);
  }
}

// group_gemm's 2 x 256 kernel decoding its tokens itself in two phases (P123: each phase a count
// never reset), with 0, 2 or 4 K steps in phase 0: five and eight GEMMs, K of 4 to 16 K steps (4:
// every step in phase 0 where it holds 4), M = 1 and M past one 256-token tile (two tiles).
TEST(Variants, WideFusedTokensRelaunch) {
  const ScopedEnv e1("NVFP4_PERSISTENT_TOKENS", "fused"), e2("NVFP4_PERSISTENT_CTA", "2x256"),
      e3("NVFP4_PERSISTENT_SCHED", "data"), e4("NVFP4_PERSISTENT_SPLITS", "1");
  for (const char* early : {"0", "2", "4"}) {
    SCOPED_TRACE(fmt::format("NVFP4_PERSISTENT_EARLY_STEPS={}", early));
    const ScopedEnv e5("NVFP4_PERSISTENT_EARLY_STEPS", early);
    check_relaunches("persistent", "40x512x512,300x768x1024,1x256x256,129x512x768,256x256x512", "counted first",
                     Problem::group_gemm);
    check_relaunches("persistent",
                     "80x512x1024,176x512x1024,128x512x1024,72x512x1024,64x512x1024,248x512x1024,96x512x1024,"
                     "160x512x1024",
                     "counted first", Problem::group_gemm);
  }
}

// group_gemm's 2 x 256 `persistent` with units cut in two K ranges (P125): each adder part adds
// its writer's sums (a flag per CTA, lowered by the adder for the next launch), over four launches;
// GEMMs of one K, and of different N and K (16 to 32 K steps). Only the kernel that decodes its
// tokens itself runs parts: with the pre-pass forced the same plan keeps its units whole.
TEST(Variants, CutUnitsRelaunch) {
  const ScopedEnv e1("NVFP4_PERSISTENT_CTA", "2x256"), e2("NVFP4_PERSISTENT_SCHED", "data"),
      e3("NVFP4_PERSISTENT_SPLITS", "1"), e4("NVFP4_PERSISTENT_PARTS", "1");
  for (const char* shape : {"80x4096x2048,176x4096x2048,128x4096x2048,72x4096x2048,64x4096x2048,248x4096x2048,"
                            "96x4096x2048,160x4096x2048",
                            "248x4096x2048,64x4096x1024,176x8192x1536,40x4096x2048,300x2048x2048"}) {
    {
      const ScopedEnv e5("NVFP4_PERSISTENT_TOKENS", "fused");
      check_relaunches("persistent", shape, "units cut in two K ranges", Problem::group_gemm);
    }
    const ScopedEnv e5("NVFP4_PERSISTENT_TOKENS", "prepass");
    check_relaunches("persistent", shape, "units handed out by cost", Problem::group_gemm);
    const auto [ran, plan] = prepared_plan(Problem::group_gemm, "persistent", shape);
    if (ran) EXPECT_EQ(plan.find("units cut"), std::string::npos) << plan;
  }
}

// `persistent` gemm's tokens decoded by decoder CTAs of the main launch (P104: never-reset counts
// per group of K steps and of launches), unsplit and in 2 and 3 ranks (3: ranks of 10 and 11 K
// steps, so groups that do not start at multiples of 4), M not a multiple of the tile; each CTA
// decoding none, one or two of its first groups itself (P105; K = 256: ranks shorter than that);
// group_gemm's 2 x 128 kernel the same (P108).
TEST(Variants, StreamTokensRelaunch) {
  const ScopedEnv e1("NVFP4_PERSISTENT_TOKENS", "stream"), e2("NVFP4_PERSISTENT_CTA", "2x128"),
      e4("NVFP4_PERSISTENT_SCHED", "data"), e5("NVFP4_PERSISTENT_REDUCE", "cluster");
  for (const char* local : {"0", "1", "2"})
    for (const char* splits : {"1", "2", "3"}) {
      SCOPED_TRACE(fmt::format("splits {} local groups {}", splits, local));
      const ScopedEnv e3("NVFP4_PERSISTENT_SPLITS", splits), e6("NVFP4_PERSISTENT_LOCAL_GROUPS", local);
      check_relaunches("persistent", "256x1024x2048x2", "more CTAs of the main launch");
      check_relaunches("persistent", "200x768x2048", "more CTAs of the main launch");
      if (splits[0] == '1') {  // 4 K steps: no decoder CTAs where the CTAs decode them all themselves
        check_relaunches("persistent", "130x512x256",
                         local[0] == '0' ? "more CTAs of the main launch" : "decoded by each CTA itself");
        // group_gemm (P108): GEMMs of 8, 16 and 4 K steps, narrow tiles, M = 1
        check_relaunches("persistent", "40x512x512,200x768x1024,1x256x256", "more CTAs of the main launch",
                         Problem::group_gemm);
      }
    }
}

// `persistent` gemm's split-K through L2 (global_split_reduce: a never-reset count per tile), with
// 2, 3 and 4 ranks, and with 4 the pairs through clusters of 2 first (pair_split_reduce, P138) or not.
TEST(Variants, GlobalSplitRelaunch) {
  const ScopedEnv e1("NVFP4_PERSISTENT_REDUCE", "global");
  for (const char* splits : {"2", "3", "4"})
    for (const char* pairs : {"0", "1"}) {
      SCOPED_TRACE(fmt::format("splits {} pairs {}", splits, pairs));
      const ScopedEnv e2("NVFP4_PERSISTENT_SPLITS", splits), e3("NVFP4_PERSISTENT_PAIRS", pairs);
      check_relaunches("persistent", "256x1024x2048x2", std::string(splits) == "4" && std::string(pairs) == "1"
                                                            ? "through L2 after pairs"
                                                            : "through L2");
    }
}

// `tensor-core`'s K-halves CTA at 4 K splits, its ranks reduced in pairs through clusters of 2 and
// then through L2 on never-reset counts (P162), relaunched, tokens fused and by pre-pass.
TEST(Variants, TensorCorePairsRelaunch) {
  const ScopedEnv e1("NVFP4_TENSOR_CORE_WARPS", "8k"), e2("NVFP4_TENSOR_CORE_SPLITS", "4");
  for (const char* tokens : {"fused", "prepass"}) {
    SCOPED_TRACE(tokens);
    const ScopedEnv e3("NVFP4_TENSOR_CORE_TOKENS", tokens);
    check_relaunches("tensor-core", "256x1024x2048x2", "pairs through DSMEM then L2");
  }
}

// group_gemm's `persistent` with its issuing threads in one shared loop and in a loop per role
// (role_loops, docs/perf-notes.md P39), whichever the plan would pick, under both schedules.
TEST(Variants, PersistentGroupRoleLoops) {
  for (const char* loops : {"0", "1"})
    for (const char* sched : {"data", "stream-k"}) {
      SCOPED_TRACE(fmt::format("NVFP4_PERSISTENT_ROLE_LOOPS={} NVFP4_PERSISTENT_SCHED={}", loops, sched));
      const ScopedEnv e1("NVFP4_PERSISTENT_ROLE_LOOPS", loops), e2("NVFP4_PERSISTENT_SCHED", sched);
      check_all_variants(Problem::group_gemm, test_cases(Problem::group_gemm), "persistent");
    }
}

// group_gemm's `persistent` with partly filled token tiles on full-width wgmmas or on narrower ones
// (64, 96 tokens of 128: docs/perf-notes.md P62; 64 to 224 of 256: P78), the units in round-robin
// order or handed out by cost (P63; gemm_edges.json has a case with more tiles than SMs), in every
// CTA shape.
TEST(Variants, PersistentGroupNarrowAndBalance) {
  const struct {
    const char *narrow, *balance;
  } runs[] = {{"0", "1"}, {"64", "1"}, {"96", "1"}, {"96", "0"}};
  for (const char* cta : {"2x128", "3x128", "2x256"})
    for (const auto& r : runs) {
      SCOPED_TRACE(fmt::format("NVFP4_PERSISTENT_CTA={} NVFP4_PERSISTENT_NARROW={} NVFP4_PERSISTENT_BALANCE={}", cta,
                               r.narrow, r.balance));
      const ScopedEnv e1("NVFP4_PERSISTENT_CTA", cta), e2("NVFP4_PERSISTENT_NARROW", r.narrow),
          e3("NVFP4_PERSISTENT_BALANCE", r.balance);
      check_all_variants(Problem::group_gemm, test_cases(Problem::group_gemm), "persistent");
    }
}

// `persistent` and `tensor-core` with the split-K reduction pulled (splitk_reduce) rather than
// pushed (push_reduce2, the default runs above) or, `tensor-core` gemm and group_gemm, by output
// rows (sum_rows_out).
TEST(Variants, PulledReduction) {
  const ScopedEnv e1("NVFP4_PERSISTENT_PUSH", "0"), e2("NVFP4_TENSOR_CORE_PUSH", "0"), e3("NVFP4_TENSOR_CORE_ROWS", "0");
  for (Problem p : {Problem::gemm, Problem::dual_gemm, Problem::group_gemm}) {
    check_all_variants(p, test_cases(p), "persistent");
    check_all_variants(p, test_cases(p), "tensor-core");
  }
}

// A forcing knob with a value it does not take stops `prepare` with the variable, its value and
// the rule, rather than running something else.
TEST(Variants, PersistentRejectsBadKnobs) {
  const DeviceInfo dev = query_device(0);
  Stream stream;
  CaseSpec spec;
  spec.problem = Problem::gemm;
  spec.shape = parse_shape(Problem::gemm, "128x256x256");
  const VariantInfo* v = find_variant(Problem::gemm, "persistent");
  ASSERT_NE(v, nullptr);
  if (!v->unsupported(dev, spec.shape).empty()) GTEST_SKIP() << v->unsupported(dev, spec.shape);
  CaseData data(spec.problem, spec.shape, Dist::gpumode, spec.seed, stream.get());
  // Each bad value alone, or (reduce set) one that contradicts NVFP4_PERSISTENT_REDUCE=reduce: the
  // reduction through L2 is 2 x 128 and data-parallel only.
  const struct {
    const char *env, *value, *rule, *reduce;
  } bad[] = {{"NVFP4_PERSISTENT_ISSUERS", "4", "from 1 to 3", nullptr},
             {"NVFP4_PERSISTENT_ISSUERS", "two", "from 1 to 3", nullptr},
             {"NVFP4_PERSISTENT_PUSH", "2", "from 0 to 1", nullptr},
             {"NVFP4_PERSISTENT_ROLE_LOOPS", "2", "from 0 to 1", nullptr},
             {"NVFP4_PERSISTENT_NARROW", "32", "0, 64, 96 or 112", nullptr},
             {"NVFP4_PERSISTENT_BALANCE", "2", "from 0 to 1", nullptr},
             {"NVFP4_PERSISTENT_PARTS", "2", "from 0 to 1", nullptr},
             {"NVFP4_PERSISTENT_SK_CTAS", "5x", "whole number", nullptr},
             {"NVFP4_PERSISTENT_CTA", "4x128", "2x128, 3x128 or 2x256", nullptr},
             {"NVFP4_PERSISTENT_SCHED", "fast", "data or stream-k", nullptr},
             {"NVFP4_PERSISTENT_TOKENS", "inline", "fused, prepass or stream", nullptr},
             {"NVFP4_PERSISTENT_LOCAL_GROUPS", "3", "from 0 to 2", nullptr},
             {"NVFP4_PERSISTENT_EARLY_STEPS", "5", "from 0 to 4", nullptr},
             {"NVFP4_PERSISTENT_WEIGHTS_AHEAD", "9", "from 0 to 8", nullptr},
             {"NVFP4_PERSISTENT_PAIRS", "2", "from 0 to 1", nullptr},
             {"NVFP4_PERSISTENT_MIXED_PRICES", "1,1,1", "8 comma-separated numbers", nullptr},
             {"NVFP4_PERSISTENT_MIXED_PRICES", "0.5,0.5,0.6,0.7,0.8,0.9,1,-1", "8 comma-separated numbers", nullptr},
             {"NVFP4_PERSISTENT_MIXED_PRICES", "0.5,0.5,0.6,0.7,0.8,0.9,1,5,", "8 comma-separated numbers", nullptr},
             {"NVFP4_PERSISTENT_SPLITS", "9", "from 0 to 8", nullptr},
             {"NVFP4_PERSISTENT_REDUCE", "l2", "cluster or global", nullptr},
             {"NVFP4_PERSISTENT_SPLITS", "5", "more splits than the fewest K steps", nullptr},
             {"NVFP4_PERSISTENT_CTA", "3x128", "2 x 128 only", "global"},
             {"NVFP4_PERSISTENT_SCHED", "stream-k", "data-parallel only", "global"}};
  for (const auto& b : bad) {
    // REDUCE first, so that the row's own knob wins where it is REDUCE itself.
    const ScopedEnv e2("NVFP4_PERSISTENT_REDUCE", b.reduce ? std::optional<std::string>(b.reduce) : std::nullopt);
    const ScopedEnv e(b.env, b.value);
    try {
      (void)v->prepare(data.view(), stream.get());
      ADD_FAILURE() << b.env << "=" << b.value << (b.reduce ? " with NVFP4_PERSISTENT_REDUCE=" : "")
                    << (b.reduce ? b.reduce : "") << " was accepted";
    } catch (const std::invalid_argument& err) {
      EXPECT_NE(std::string(err.what()).find(std::string(b.env) + "=" + b.value), std::string::npos) << err.what();
      EXPECT_NE(std::string(err.what()).find(b.rule), std::string::npos) << err.what();
    }
  }
}

// The `tensor-core` GEMM family under each schedule, forced.
TEST(Variants, TensorCoreEverySchedule) {
  for (const Schedule& s : kSchedules) {
    SCOPED_TRACE(fmt::format("NVFP4_TENSOR_CORE_SCHED={} NVFP4_TENSOR_CORE_SK_CTAS={}", s.sched, s.ctas));
    const ScopedEnv e1("NVFP4_TENSOR_CORE_SCHED", s.sched), e2("NVFP4_TENSOR_CORE_SK_CTAS", env_value(s.ctas));
    for (Problem p : {Problem::gemm, Problem::dual_gemm, Problem::group_gemm})
      check_all_variants(p, test_cases(p), "tensor-core");
  }
}

// `tensor-core`'s 8-warp CTA (gemm and dual_gemm) forced on every test shape, with the tokens
// decoded by the pre-pass and in the main launch, under stream-K (over the resident CTAs, and over
// 5, each of which then runs many tiles through one ring whose phases carry from tile to tile:
// P96), and under every split count on one shape of at least 8 K steps;
// NVFP4_TENSOR_CORE_WARPS=4 runs the 4-warp CTA where the model would take the 8-warp one. The
// K-halves CTA (NVFP4_TENSOR_CORE_WARPS=8k, gemm, P161) the same way, data-parallel. Bad values and
// contradictions stop `prepare` with the knob and the rule.
TEST(Variants, TensorCoreWarps) {
  for (const char* warps : {"8", "4"}) {
    const ScopedEnv e1("NVFP4_TENSOR_CORE_WARPS", warps);
    for (const char* tokens : {"prepass", "fused"}) {
      SCOPED_TRACE(fmt::format("NVFP4_TENSOR_CORE_WARPS={} NVFP4_TENSOR_CORE_TOKENS={}", warps, tokens));
      const ScopedEnv e2("NVFP4_TENSOR_CORE_TOKENS", tokens);
      for (Problem p : {Problem::gemm, Problem::dual_gemm}) check_all_variants(p, test_cases(p), "tensor-core");
    }
    for (const char* ctas : {"", "5"}) {
      SCOPED_TRACE(fmt::format("NVFP4_TENSOR_CORE_WARPS={} NVFP4_TENSOR_CORE_SCHED=stream-k NVFP4_TENSOR_CORE_SK_CTAS={}",
                               warps, ctas));
      const ScopedEnv e2("NVFP4_TENSOR_CORE_SCHED", "stream-k"), e3("NVFP4_TENSOR_CORE_SK_CTAS", env_value(ctas));
      for (Problem p : {Problem::gemm, Problem::dual_gemm}) check_all_variants(p, test_cases(p), "tensor-core");
    }
  }
  // the knobs do what they say: the plan names the schedule and the CTA
  for (const char* warps : {"8", "4"})
    for (Problem p : {Problem::gemm, Problem::dual_gemm}) {
      const ScopedEnv e1("NVFP4_TENSOR_CORE_WARPS", warps), e2("NVFP4_TENSOR_CORE_SCHED", "stream-k");
      const auto [ran, plan] = prepared_plan(p, "tensor-core", "200x1000x1024");
      if (!ran) GTEST_SKIP() << plan;
      EXPECT_NE(plan.find("stream-K"), std::string::npos) << plan;
      EXPECT_EQ(plan.find("of 8 warps") != std::string::npos, std::string(warps) == "8") << plan;
    }
  // the K-halves CTA (gemm, data-parallel) when forced, and not where 4 warps are
  for (const char* warps : {"8k", "4"}) {
    const ScopedEnv e1("NVFP4_TENSOR_CORE_WARPS", warps);
    const auto [ran, plan] = prepared_plan(Problem::gemm, "tensor-core", "200x1000x1024");
    if (!ran) GTEST_SKIP() << plan;
    EXPECT_EQ(plan.find("of 8 warps in K halves") != std::string::npos, std::string(warps) == "8k") << plan;
  }
  {  // the K-halves CTA (gemm): every test shape, tokens both ways; every split count, both reductions
    const ScopedEnv e1("NVFP4_TENSOR_CORE_WARPS", "8k");
    for (const char* tokens : {"prepass", "fused"}) {
      SCOPED_TRACE(fmt::format("NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_TOKENS={}", tokens));
      const ScopedEnv e2("NVFP4_TENSOR_CORE_TOKENS", tokens);
      check_all_variants(Problem::gemm, test_cases(Problem::gemm), "tensor-core");
    }
    for (int s = 1; s <= 8; ++s)
      for (const char* rows : {"1", "0"}) {  // 4 splits: in pairs (rows 1), and by the cluster of 4 (rows 0, no pairs)
        SCOPED_TRACE(fmt::format("NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_SPLITS={} NVFP4_TENSOR_CORE_ROWS={}", s, rows));
        const ScopedEnv e3("NVFP4_TENSOR_CORE_SPLITS", std::to_string(s)), e4("NVFP4_TENSOR_CORE_ROWS", rows),
            e5("NVFP4_TENSOR_CORE_PAIRS", rows);
        CaseSpec c;
        c.problem = Problem::gemm;
        c.shape = parse_shape(Problem::gemm, "130x1000x2048");
        check_all_variants(Problem::gemm, {c}, "tensor-core");
      }
  }
  const ScopedEnv e1("NVFP4_TENSOR_CORE_WARPS", "8"), e2("NVFP4_TENSOR_CORE_SCHED", "data");
  for (int s = 1; s <= 8; ++s) {
    SCOPED_TRACE(fmt::format("NVFP4_TENSOR_CORE_WARPS=8 NVFP4_TENSOR_CORE_SPLITS={}", s));
    const ScopedEnv e3("NVFP4_TENSOR_CORE_SPLITS", std::to_string(s));
    for (const char* rows : {"1", "0"}) {
      const ScopedEnv e4("NVFP4_TENSOR_CORE_ROWS", rows);
      CaseSpec c;
      c.problem = Problem::gemm;
      c.shape = parse_shape(Problem::gemm, "130x1000x2048");
      check_all_variants(Problem::gemm, {c}, "tensor-core");
    }
    CaseSpec d;
    d.problem = Problem::dual_gemm;
    d.shape = parse_shape(Problem::dual_gemm, "200x520x1024");
    check_all_variants(Problem::dual_gemm, {d}, "tensor-core");
  }
}

TEST(Variants, TensorCoreRejectsBadKnobs) {
  const DeviceInfo dev = query_device(0);
  Stream stream;
  const struct {
    Problem p;
    const char* shape;
    const char *env, *value, *rule, *sched;
  } bad[] = {{Problem::gemm, "128x256x256", "NVFP4_TENSOR_CORE_WARPS", "6", "4, 8 or 8k", nullptr},
             {Problem::dual_gemm, "128x256x256", "NVFP4_TENSOR_CORE_WARPS", "8k", "gemm only", nullptr},
             {Problem::gemm, "128x256x256", "NVFP4_TENSOR_CORE_PAIRS", "2", "from 0 to 1", nullptr},
             {Problem::gemm, "128x256x1024", "NVFP4_TENSOR_CORE_WARPS", "8k", "data-parallel plans only", "stream-k"},
             {Problem::group_gemm, "64x256x256,128x256x256", "NVFP4_TENSOR_CORE_WARPS", "8", "gemm and dual_gemm only",
              nullptr},
             {Problem::group_gemm, "64x256x256,128x256x256", "NVFP4_TENSOR_CORE_WARPS", "8", "gemm and dual_gemm only",
              "stream-k"}};
  for (const auto& b : bad) {
    SCOPED_TRACE(fmt::format("{}={} on {}", b.env, b.value, b.shape));
    CaseSpec spec;
    spec.problem = b.p;
    spec.shape = parse_shape(b.p, b.shape);
    const VariantInfo* v = find_variant(b.p, "tensor-core");
    ASSERT_NE(v, nullptr);
    if (!v->unsupported(dev, spec.shape).empty()) GTEST_SKIP() << v->unsupported(dev, spec.shape);
    CaseData data(spec.problem, spec.shape, Dist::gpumode, spec.seed, stream.get());
    const ScopedEnv e2("NVFP4_TENSOR_CORE_SCHED", b.sched ? std::optional<std::string>(b.sched) : std::nullopt);
    const ScopedEnv e(b.env, b.value);
    try {
      (void)v->prepare(data.view(), stream.get());
      ADD_FAILURE() << b.env << "=" << b.value << " was accepted";
    } catch (const std::invalid_argument& err) {
      EXPECT_NE(std::string(err.what()).find(std::string(b.env) + "=" + b.value), std::string::npos) << err.what();
      EXPECT_NE(std::string(err.what()).find(b.rule), std::string::npos) << err.what();
    }
  }
}

// `tensor-core` and `persistent` with every K-split count forced, data-parallel (the split-K
// reduction pushed for 2 ranks; for 3 to 8 pulled, and by output rows as well for `tensor-core`
// gemm and group_gemm;
// clusters of 3 to 8 fit on fewer SMs than clusters of 1 or 2), on shapes of at least 8 K steps per GEMM.
TEST(Variants, EverySplitCount) {
  const struct {
    Problem p;
    const char* shape;
  } shapes[] = {{Problem::gemm, "130x1000x2048"}, {Problem::dual_gemm, "200x520x1024"},
                {Problem::group_gemm, "40x700x512,200x300x1024"}};
  for (int s = 1; s <= 8; ++s) {
    const std::string v = std::to_string(s);
    SCOPED_TRACE("splits " + v);
    const ScopedEnv e1("NVFP4_TENSOR_CORE_SPLITS", v), e2("NVFP4_TENSOR_CORE_SCHED", "data"),
        e3("NVFP4_PERSISTENT_SPLITS", v), e4("NVFP4_PERSISTENT_SCHED", "data");
    for (const auto& x : shapes) {
      CaseSpec c;
      c.problem = x.p;
      c.shape = parse_shape(x.p, x.shape);
      for (const char* rows : {"1", "0"}) {  // `tensor-core`: by output rows, or pulled into the accumulators
        const ScopedEnv e5("NVFP4_TENSOR_CORE_ROWS", rows);
        check_all_variants(x.p, {c}, "tensor-core");
      }
      check_all_variants(x.p, {c}, "persistent");
      if (x.p == Problem::gemm && s > 1) {  // `persistent` gemm's split-K through L2 too (P73)
        const ScopedEnv e6("NVFP4_PERSISTENT_REDUCE", "global");
        check_all_variants(x.p, {c}, "persistent");
      }
    }
  }
}
