// SPDX-License-Identifier: Apache-2.0
#include "run/bound_variant.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "cli/plan.hpp"

namespace nvfp4 {

namespace {

std::array<const BoundVariant*, kMaxBoundVariants> g_slots{};
int g_used = 0;

template <int I>
std::string slot_unsupported(const DeviceInfo& dev, const Shape& shape) {
  return g_slots[I]->unsupported(dev, shape);
}

template <int I>
std::unique_ptr<Runner> slot_prepare(const CaseView& c, cudaStream_t stream) {
  return g_slots[I]->prepare(c, stream);
}

using UnsupportedFn = std::string (*)(const DeviceInfo&, const Shape&);
using PrepareFn = std::unique_ptr<Runner> (*)(const CaseView&, cudaStream_t);

template <size_t... I>
constexpr auto make_slot_fns(std::index_sequence<I...>) {
  return std::pair{std::array<UnsupportedFn, sizeof...(I)>{&slot_unsupported<int(I)>...},
                   std::array<PrepareFn, sizeof...(I)>{&slot_prepare<int(I)>...}};
}
const auto kSlotFns = make_slot_fns(std::make_index_sequence<kMaxBoundVariants>{});

}  // namespace

VariantInfo bind_variant(const BoundVariant& v, Problem p, std::string_view name, std::string_view summary,
                         std::string_view timing_note, const std::string& what) {
  if (g_used >= kMaxBoundVariants)
    throw UsageError(fmt::format("{}: more than {} plugin and submission variants in all", what, kMaxBoundVariants));
  const int slot = g_used++;
  g_slots[slot] = &v;
  return VariantInfo{p, name, summary, timing_note, kSlotFns.first[slot], kSlotFns.second[slot]};
}

}  // namespace nvfp4
