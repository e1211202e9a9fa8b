// SPDX-License-Identifier: Apache-2.0
// timing_names.cpp: spellings of the timing enums (host only: parsing and report reading use them).
#include "measure/timing.hpp"

namespace nvfp4 {

std::string_view to_string(L2Mode m) { return m == L2Mode::cold ? "cold" : "warm"; }

bool parse_l2(std::string_view s, L2Mode& out) {
  if (s == "cold") out = L2Mode::cold;
  else if (s == "warm") out = L2Mode::warm;
  else return false;
  return true;
}

std::string_view to_string(TimerKind t) {
  switch (t) {
    case TimerKind::events: return "events";
    case TimerKind::cupti: return "cupti";
    case TimerKind::graph: return "graph";
  }
  return "?";
}

bool parse_timer(std::string_view s, TimerKind& out) {
  for (TimerKind t : {TimerKind::events, TimerKind::cupti, TimerKind::graph})
    if (to_string(t) == s) {
      out = t;
      return true;
    }
  return false;
}

}  // namespace nvfp4
