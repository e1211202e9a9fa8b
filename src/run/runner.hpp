// SPDX-License-Identifier: Apache-2.0
// runner.hpp: runs a plan's cases on one device: generate -> reference -> per variant
// (prepare, poison, run, verify, time) -> metrics. Reports are written by the caller.
#pragma once

#include <string>
#include <vector>

#include "cli/plan.hpp"
#include "core/device_info.hpp"
#include "core/variant.hpp"
#include "run/results.hpp"

namespace nvfp4 {

struct RunOutcome {
  std::vector<CaseResult> results;
  bool stopped_on_sticky_error = false;  // the CUDA context became unusable; results are partial
  std::string sticky_message;
};

// Bytes of device memory a case needs at its peak (inputs, reference scratch, variant scratch).
int64_t case_peak_device_bytes(Problem p, const Shape& s, int batch);

// Checks every case against the device's free memory before anything runs. Throws UsageError
// naming the case when one does not fit.
void check_cases_fit(const RunPlan& plan, const DeviceInfo& dev);

// `sol`: the rates behind the SOL columns (spec or measured), nullopt for none. `variants`: where
// the variants come from (the registry; tests pass their own list). `calibration` (--sol
// measured): its decode_wgmma_tflops is the ceiling behind pct_ceiling.
RunOutcome run_plan(const RunPlan& plan, const DeviceInfo& dev, const std::optional<SolRates>& sol,
                    const std::vector<const VariantInfo*>& variants = all_variants(),
                    const std::optional<Calibration>& calibration = std::nullopt);

// Command line that repeats one case with one variant.
std::string repro_command(const CaseSpec& c, std::string_view variant);

}  // namespace nvfp4
