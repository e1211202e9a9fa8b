// SPDX-License-Identifier: Apache-2.0
#include "run/runner.hpp"

#include <cuda_runtime.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <nvtx3/nvToolsExt.h>

#include "core/case_data.hpp"
#include "core/cuda_check.hpp"
#include "core/nvfp4.hpp"
#include "core/variant.hpp"
#include "data/dump.hpp"
#include "measure/floor.hpp"
#include "measure/timing.hpp"
#include "reference/reference.hpp"
#include "run/progress.hpp"

namespace nvfp4 {

namespace {

// ---- metrics ----------------------------------------------------------------------------------

Metrics base_metrics(const CaseSpec& c) {
  Metrics m;
  m.flops = flop_count(c.problem, c.shape);
  m.bytes = byte_count(c.problem, c.shape);
  m.b200_target_us = c.b200_target_us;
  return m;
}

void add_timing_metrics(Metrics& m, Problem p, const TimingResult& t, const std::optional<SolRates>& sol,
                        const std::optional<Calibration>& calibration) {
  const double sec = t.stats.median * 1e-6;
  if (sec <= 0) return;
  m.tflops = m.flops / sec / 1e12;
  m.gbps = m.bytes / sec / 1e9;
  if (sol) {
    m.sol_us = std::max(m.bytes / sol->hbm_bytes_per_s, m.flops / sol->flops_per_s) * 1e6;
    m.pct_sol = 100.0 * *m.sol_us / t.stats.median;
  }
  m.pct_ceiling = pct_of_ceiling(p, m.tflops, calibration);
}

// The reason column of a timed PASS: throttled samples and outliers, or "".
std::string timing_notes(const TimingResult& t) {
  std::string notes;
  if (const ClockRecord& ck = t.clocks; ck.throttled_samples > 0)
    notes = fmt::format("{} of {} samples throttled (SM clock below 90% of the starting {} MHz, or a "
                        "clock-lowering NVML reason; min {} MHz)",
                        ck.throttled_samples, t.stats.n, ck.reference_sm_mhz, ck.min_sm_mhz);
  if (const SampleStats& st = t.stats; st.outliers > 0) {
    const double worst = std::max(st.max - st.median, st.median - st.min) + st.median;
    notes += fmt::format("{}{} of {} samples are outliers (up to {:.2f} us, {:.1f}x the median){}",
                         notes.empty() ? "" : "; ", st.outliers, st.n, worst, worst / st.median,
                         t.extra_samples > 0 ? fmt::format("; {} extra samples taken", t.extra_samples) : "");
  }
  return notes;
}

std::vector<std::string> selected_variants(const RunPlan& plan, Problem p,
                                           const std::vector<const VariantInfo*>& variants) {
  if (!plan.variants.empty()) return plan.variants;
  std::vector<std::string> names;
  for (const VariantInfo* v : variants)
    if (v->problem == p) names.emplace_back(v->name);
  return names;
}

const VariantInfo* lookup(const std::vector<const VariantInfo*>& variants, Problem p, std::string_view name) {
  for (const VariantInfo* v : variants)
    if (v->problem == p && v->name == name) return v;
  return nullptr;
}

}  // namespace

std::string repro_command(const CaseSpec& c, std::string_view variant) {
  return fmt::format("nvfp4bench --problem {} --shape {} --variant {} --seed {} --dist {}", to_string(c.problem),
                     format_shape(c.problem, c.shape), variant, c.seed, to_string(c.dist));
}

int64_t case_peak_device_bytes(Problem p, const Shape& s, int batch) {
  // Per input set: inputs + one FP16 copy of every operand (the cublaslt variant's dequantised
  // operands) + FP32 outputs; once: the reference's scratch (the same again, plus the bound).
  int64_t scratch = 0;
  for (const Dims& d : s.groups) {
    const int64_t nb = p == Problem::dual_gemm ? 2 : 1;
    scratch += 2 * d.k * d.l * (d.m + nb * d.n) + 4 * nb * d.m * d.n * d.l;
  }
  return int64_t{batch} * (device_bytes(p, s) + scratch) + 2 * scratch + (int64_t{64} << 20);
}

void check_cases_fit(const RunPlan& plan, const DeviceInfo& dev) {
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  for (const CaseSpec& c : plan.cases) {
    const int64_t need = case_peak_device_bytes(c.problem, c.shape, plan.timing.batch);
    if (need > static_cast<int64_t>(free_b))
      throw UsageError(fmt::format("{} shape '{}'{}: needs {:.1f} GiB of device memory, {} has {:.1f} GiB free",
                                   to_string(c.problem), format_shape(c.problem, c.shape),
                                   plan.timing.batch > 1 ? fmt::format(" with --batch {}", plan.timing.batch) : "",
                                   double(need) / (1 << 30), dev.name, double(free_b) / (1 << 30)));
  }
}

namespace {

// The input sets of one case: set 0 uses the case's seed, set i the seed + 42*i (gpu-mode's
// batched evaluators step the seed by 42 per input).
struct CaseInputs {
  std::vector<std::unique_ptr<CaseData>> sets;
  std::vector<ReferenceOutput> refs;
};

CaseInputs make_inputs(const CaseSpec& c, int batch, DeviceReference& reference, cudaStream_t s) {
  CaseInputs in;
  for (int i = 0; i < batch; ++i) {
    in.sets.push_back(std::make_unique<CaseData>(c.problem, c.shape, c.dist, c.seed + 42 * uint64_t(i), s));
    in.refs.push_back(reference.compute(in.sets.back()->view(), s, c.dist == Dist::uniform));
  }
  return in;
}

// Runs every runner once on its poisoned set and checks all outputs against the references.
CheckResult run_and_verify(const std::vector<std::unique_ptr<Runner>>& runners, const CaseInputs& in,
                           const Tolerance& tol, Stream& stream, std::vector<std::vector<__half>>* first_outputs) {
  CheckResult check;
  for (size_t i = 0; i < runners.size(); ++i) {
    const CaseData& data = *in.sets[i];
    data.poison_outputs(stream.get());
    runners[i]->run(stream.get());
    CUDA_CHECK_LAUNCH();
    runners[i]->finish(stream.get());
    stream.sync();
    const ReferenceOutput& ref = in.refs[i];
    for (size_t g = 0; g < data.view().groups.size(); ++g) {
      const GemmOperands& op = data.view().groups[g];
      std::vector<__half> out = to_host(op.c, op.dims.l * op.dims.m * op.dims.n);
      verify_group(out, ref.groups[g], op.dims, static_cast<int64_t>(g), tol, check,
                   ref.bounds.empty() ? nullptr : &ref.bounds[g]);
      if (i == 0 && first_outputs) first_outputs->push_back(std::move(out));
    }
  }
  return check;
}

std::vector<Runner*> raw(const std::vector<std::unique_ptr<Runner>>& v) {
  std::vector<Runner*> out;
  for (const auto& r : v) out.push_back(r.get());
  return out;
}

}  // namespace

RunOutcome run_plan(const RunPlan& plan, const DeviceInfo& dev, const std::optional<SolRates>& sol,
                    const std::vector<const VariantInfo*>& variants, const std::optional<Calibration>& calibration) {
  RunOutcome out;
  Stream stream;
  DeviceReference reference(dev);
  L2Flusher flusher(dev.l2_bytes);
  const int batch = plan.timing_enabled ? plan.timing.batch : 1;

  // A sweep shows a progress line (run/progress.hpp); a single case keeps its one header line.
  int total_steps = 0;
  for (const CaseSpec& c : plan.cases) total_steps += static_cast<int>(selected_variants(plan, c.problem, variants).size());
  const bool sweep = plan.cases.size() > 1;
  const int width = stderr_terminal_width();
  Progress progress(std::cerr, total_steps, sweep && !plan.quiet, width > 0, width);
  int next_step = 0;
  // Every result goes through here: SKIP, FAIL and ERROR reasons and timing notes (throttled
  // clocks, outliers) are printed as warnings, on their own line, above the progress line.
  auto keep = [&](CaseResult&& r) {
    if (r.status != Status::pass || !r.reason.empty())
      progress.warn(fmt::format("{}: {} {} {}: {}", r.status == Status::pass ? "note" : to_string(r.status),
                                to_string(r.problem), r.shape, r.variant, r.reason));
    out.results.push_back(std::move(r));
  };

  for (const CaseSpec& c : plan.cases) {
    const std::string shape_text = format_shape(c.problem, c.shape);
    if (!sweep && !plan.quiet)
      std::cerr << fmt::format("[{}] {} {} ({}, seed {}{})\n", to_string(c.problem), shape_text,
                               plan.profile ? "profile" : plan.timing_enabled ? "verify+time" : "verify",
                               to_string(c.dist), c.seed, batch > 1 ? fmt::format(", batch {}", batch) : "");
    const std::vector<std::string> names = selected_variants(plan, c.problem, variants);
    const int case_step = next_step;
    next_step += static_cast<int>(names.size());
    if (!names.empty()) progress.step(case_step, to_string(c.problem), shape_text, names.front());
    const size_t first_result = out.results.size();
    auto make_result = [&](std::string_view variant) {
      CaseResult r;
      r.problem = c.problem;
      r.shape = shape_text;
      r.variant = std::string(variant);
      r.role = c.role;
      r.seed = c.seed;
      r.dist = c.dist;
      r.metrics = base_metrics(c);
      r.repro = repro_command(c, variant);
      return r;
    };
    try {
      const CaseInputs in = make_inputs(c, batch, reference, stream.get());
      std::optional<CaseDump> dump;
      if (!plan.outputs.dump_dir.empty()) {
        dump.emplace(plan.outputs.dump_dir, in.sets[0]->view(), c.dist, c.seed);
        dump->write_output("ref", in.refs[0].groups);
      }
      // The streaming floor of this case, same timing method (not verified: it computes nothing).
      std::optional<double> floor_us;
      if (plan.timing_enabled && plan.floor_enabled) {
        std::vector<std::unique_ptr<Runner>> floors;
        for (const auto& set : in.sets) floors.push_back(make_stream_floor(set->view(), dev));
        floor_us = time_runners(raw(floors), plan.timing, flusher, stream.get(), dev.index).stats.median;
      }

      for (size_t k = 0; k < names.size(); ++k) {
        const std::string& vname = names[k];
        progress.step(case_step + static_cast<int>(k), to_string(c.problem), shape_text, vname);
        CaseResult r = make_result(vname);
        r.reference = in.refs[0].name;
        const VariantInfo* info = lookup(variants, c.problem, vname);
        if (!info) {
          r.status = Status::skip;
          r.reason = fmt::format("no '{}' variant for {} yet", vname, to_string(c.problem));
          keep(std::move(r));
          continue;
        }
        r.timing_note = std::string(info->timing_note);
        if (std::string why = info->unsupported(dev, c.shape); !why.empty()) {
          r.status = Status::skip;
          r.reason = why;
          keep(std::move(r));
          continue;
        }
        try {
          std::vector<std::unique_ptr<Runner>> runners;
          for (const auto& set : in.sets) runners.push_back(info->prepare(set->view(), stream.get()));
          r.plan = runners.front()->plan();
          std::vector<std::vector<__half>> outputs;
          const CheckResult check = run_and_verify(runners, in, plan.tolerance, stream, &outputs);
          if (dump) dump->write_output("c_" + vname, outputs);
          r.check = check;
          if (!check.passed()) {
            r.status = Status::fail;
            const Mismatch& m0 = check.first.front();
            r.reason = fmt::format("{} of {} elements mismatch; first at (group {}, l {}, m {}, n {}): got {} want {}",
                                   check.mismatches, check.checked, m0.group, m0.l, m0.m, m0.n, m0.got, m0.want);
          } else {
            r.status = Status::pass;
            if (plan.profile) {
              // One launch inside a named range: `ncu --nvtx --nvtx-include "<name>/"` captures it.
              const std::string range = fmt::format("{}/{}/{}", to_string(c.problem), shape_text, vname);
              // NVFP4_PROFILE_REPEAT=N launches N times in the range (to see first-launch effects).
              const char* rep = std::getenv("NVFP4_PROFILE_REPEAT");
              nvtxRangePushA(range.c_str());
              for (int i = 0; i < (rep ? std::atoi(rep) : 1); ++i) {
                runners[0]->run(stream.get());
                CUDA_CHECK_LAUNCH();
                stream.sync();
              }
              nvtxRangePop();
            } else if (plan.timing_enabled && plan.timing.timer == TimerKind::graph &&
                       !runners[0]->not_capturable().empty()) {
              r.status = Status::skip;
              r.reason = fmt::format("verified, not timed: --timer graph cannot capture it ({}); use --timer cupti "
                                     "or events",
                                     runners[0]->not_capturable());
            } else if (plan.timing_enabled) {
              r.timing = time_runners(raw(runners), plan.timing, flusher, stream.get(), dev.index);
              add_timing_metrics(r.metrics, c.problem, *r.timing, sol, calibration);
              r.reason = timing_notes(*r.timing);
              if (floor_us) {
                r.metrics.floor_us = floor_us;
                r.metrics.vs_floor = r.timing->stats.median / *floor_us;
              }
            }
          }
        } catch (const CudaError& e) {
          r.status = Status::error;
          r.reason = e.what();
          keep(std::move(r));
          if (e.sticky()) throw;
          continue;
        } catch (const OutputContractError& e) {
          r.status = Status::fail;
          r.reason = e.what();
        } catch (const std::exception& e) {
          r.status = Status::error;
          r.reason = e.what();
        }
        keep(std::move(r));
      }
      if (dump) dump->finish();
    } catch (const CudaError& e) {
      if (e.sticky()) {
        out.stopped_on_sticky_error = true;
        out.sticky_message = e.what();
        return out;
      }
      CaseResult r = make_result("*");
      r.status = Status::error;
      r.reason = e.what();
      keep(std::move(r));
    } catch (const std::exception& e) {
      CaseResult r = make_result("*");
      r.status = Status::error;
      r.reason = e.what();
      keep(std::move(r));
    }

    // Speed-up against the cublaslt variant of the same case.
    std::optional<double> base;
    for (size_t i = first_result; i < out.results.size(); ++i)
      if (out.results[i].variant == "cublaslt" && out.results[i].timing) base = out.results[i].timing->stats.median;
    if (base)
      for (size_t i = first_result; i < out.results.size(); ++i)
        if (out.results[i].timing) out.results[i].metrics.speedup_vs_cublaslt = *base / out.results[i].timing->stats.median;
  }
  return out;
}

}  // namespace nvfp4
