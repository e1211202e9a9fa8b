// SPDX-License-Identifier: Apache-2.0
// floor.hpp: the streaming floor of a case, the hardware yardstick the harness times next to the
// variants. One kernel reads exactly the bytes the case must read and writes every output element:
//   every group: A data [l][m][k/2], A row-major scales [l][m][k/16],
//                B data and B row-major scales (gemv: only row 0 of each batch, i.e. the vector;
//                dual_gemm: B1 and B2),
//   and writes C [l][m][n] FP16 (a fixed pattern; the loaded data feed an XOR reduction whose
//   result is stored only under a condition the compiler cannot rule out, so no load is dropped).
// Blocked scales are not read (a kernel needs one scale layout, and the row-major one is what
// byte_count() counts).
// 16-byte streaming loads (ld.global.nc.L1::no_allocate.v4), several per thread in flight, one
// launch for all groups and batches (up to 96 contiguous segments; more → one launch per 96).
// Environment: NVFP4_FLOOR_UNROLL = 1, 2 or 4 loads per thread (default 2), for tuning.
#pragma once

#include <memory>

#include "core/case_data.hpp"
#include "core/device_info.hpp"
#include "core/variant.hpp"

namespace nvfp4 {

std::unique_ptr<Runner> make_stream_floor(const CaseView& c, const DeviceInfo& dev);

}  // namespace nvfp4
