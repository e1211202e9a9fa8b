// SPDX-License-Identifier: Apache-2.0
// results.cpp: names of the result enums.
#include "run/results.hpp"

namespace nvfp4 {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::pass: return "PASS";
    case Status::fail: return "FAIL";
    case Status::skip: return "SKIP";
    case Status::error: return "ERROR";
  }
  return "?";
}

}  // namespace nvfp4
