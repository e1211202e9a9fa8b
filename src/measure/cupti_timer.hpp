// SPDX-License-Identifier: Apache-2.0
// cupti_timer.hpp: GPU time of the work one call launches, from CUPTI activity records: the sum
// of (end - start) of every kernel, memset and memcpy that ran between begin() and end_us().
// Launch gaps and host overhead are excluded, unlike the events timer.
//
// Counted activity kinds: KERNEL (serialized kernel records, whose timestamps include each
// kernel's launch processing on the GPU, like Nsight Compute's gpu__time_duration), MEMSET and
// MEMCPY (a variant's call may zero an output or a workspace with cudaMemsetAsync; that is GPU work
// of the call). Records are summed; span_us() gives first start to last end.
//
// What is not counted: anything launched before begin(), in particular the L2-flush memset of a
// cold sample. begin() synchronises the device, force-flushes the records collected so far and
// discards them, then takes a CUPTI timestamp; end_us() also ignores any record that started
// before that timestamp. (So with this timer the flush completes before the call is launched.)
//
// One instance at a time per process (CUPTI's buffer callbacks are global). Not thread-safe.
// Every CUPTI failure throws std::runtime_error with CUPTI's result string.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nvfp4 {

class CuptiKernelTimer {
 public:
  /** Registers the buffer callbacks and enables the activity kinds. Throws if another instance lives. */
  CuptiKernelTimer();
  /** Disables the activity kinds and flushes; never throws. */
  ~CuptiKernelTimer();
  CuptiKernelTimer(const CuptiKernelTimer&) = delete;
  CuptiKernelTimer& operator=(const CuptiKernelTimer&) = delete;

  /** Opens a window: device sync, drop the records collected so far, start collecting. */
  void begin();
  /**
   * Closes the window: syncs `s` (and the device), flushes CUPTI (cuptiActivityFlushAll forced) and
   * returns the summed GPU time of the kernels, memsets and memcpys that ran in the window, in
   * microseconds. Throws if CUPTI dropped records (the sum would be short) or begin() was not called.
   */
  double end_us(cudaStream_t s);

  /** Of the last window: kernels counted, their (demangled) names in start order. */
  int kernel_count() const { return static_cast<int>(m_kernel_names.size()); }
  const std::vector<std::string>& kernel_names() const { return m_kernel_names; }
  /** Of the last window: memsets and memcpys counted. */
  int memory_op_count() const { return m_memory_ops; }
  /** Of the last window: first start to last end, microseconds (0 when nothing ran). */
  double span_us() const { return m_span_us; }

 private:
  std::vector<std::string> m_kernel_names;
  int m_memory_ops = 0;
  double m_span_us = 0;
  uint64_t m_begin_ns = 0;  // CUPTI timestamp taken by begin()
  bool m_open = false;
};

// "" when CUPTI works here: a timer can be made and a test memset on `s` is recorded. Otherwise
// why not (CUPTI's error, one line). The default timer is cupti exactly when this is "".
std::string cupti_unavailable_reason(cudaStream_t s);

}  // namespace nvfp4
