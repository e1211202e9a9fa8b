// SPDX-License-Identifier: Apache-2.0
#include "measure/cupti_timer.hpp"

#include <cupti.h>
#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"

namespace nvfp4 {

namespace {

std::string cupti_error_string(CUptiResult rc) {
  const char* s = nullptr;
  if (cuptiGetResultString(rc, &s) != CUPTI_SUCCESS || !s) return fmt::format("CUPTI error {}", static_cast<int>(rc));
  return fmt::format("CUPTI: {}", s);
}

// Throws std::runtime_error (file:line, the call, CUPTI's result string).
#define CUPTI_CHECK(expr)                                                                          \
  do {                                                                                             \
    const CUptiResult nvfp4_cupti_rc_ = (expr);                                                    \
    if (nvfp4_cupti_rc_ != CUPTI_SUCCESS)                                                          \
      ::nvfp4::throw_library_error(cupti_error_string(nvfp4_cupti_rc_), #expr, __FILE__, __LINE__); \
  } while (false)

// Newest record layouts of the CUPTI we compile against (records are delivered in that layout).
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
#else
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy5;
#endif
using MemsetRecord = CUpti_ActivityMemset4;

constexpr size_t kBufferBytes = size_t{8} << 20;  // per CUPTI buffer
constexpr size_t kBufferAlign = 8;                // CUPTI requires 8-byte aligned buffers

// NOTE: KERNEL (serialized) rather than CONCURRENT_KERNEL. With serialized kernel records the
// start/end timestamps include the GPU's launch processing of each kernel, as Nsight Compute's
// gpu__time_duration does; concurrent-kernel records cover only execution and read 0.6-2.5 us
// less per kernel on an H200 (docs/perf-notes.md, "cupti timer vs Nsight Compute"). The calls we
// time run on one stream, so serialising kernels changes nothing else.
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
                                         CUPTI_ACTIVITY_KIND_MEMCPY};

struct Record {
  uint64_t start = 0, end = 0;
  bool kernel = false;
  std::string name;  // kernels only, as CUPTI gives it (mangled)
};

// State the global buffer callbacks write into.
struct Collector {
  std::mutex mu;
  bool collecting = false;
  std::vector<Record> records;
  size_t dropped = 0;
  bool instance_alive = false;
  bool callbacks_registered = false;
};

Collector& collector() {
  static Collector c;
  return c;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;  // size 0: CUPTI drops records, which end_us() reports
  *max_records = 0;                    // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                               size_t valid_size) {
  if (!buffer) return;
  auto& c = collector();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    CUpti_Activity* rec = nullptr;
    while (valid_size > 0 && cuptiActivityGetNextRecord(buffer, valid_size, &rec) == CUPTI_SUCCESS) {
      if (!c.collecting) continue;  // records from before begin(): drained and dropped
      Record r;
      switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          const auto* k = reinterpret_cast<const KernelRecord*>(rec);
          r = Record{k->start, k->end, true, k->name ? k->name : "?"};
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          const auto* m = reinterpret_cast<const MemsetRecord*>(rec);
          r = Record{m->start, m->end, false, {}};
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          const auto* m = reinterpret_cast<const MemcpyRecord*>(rec);
          r = Record{m->start, m->end, false, {}};
          break;
        }
        default:
          continue;
      }
      c.records.push_back(std::move(r));
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS && c.collecting) {
      c.dropped += dropped;
    }
  }
  std::free(buffer);
}

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

}  // namespace

CuptiKernelTimer::CuptiKernelTimer() {
  auto& c = collector();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.instance_alive) throw std::runtime_error("CuptiKernelTimer: only one instance may exist at a time");
    c.instance_alive = true;
    c.collecting = false;
  }
  try {
    if (!c.callbacks_registered) {
      CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
      c.callbacks_registered = true;
    }
    for (auto kind : kKinds) CUPTI_CHECK(cuptiActivityEnable(kind));
  } catch (...) {
    for (auto kind : kKinds) cuptiActivityDisable(kind);
    std::lock_guard<std::mutex> lock(c.mu);
    c.instance_alive = false;
    throw;
  }
}

CuptiKernelTimer::~CuptiKernelTimer() {
  auto& c = collector();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.collecting = false;
  }
  for (auto kind : kKinds) cuptiActivityDisable(kind);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // returns (and frees) every buffer
  std::lock_guard<std::mutex> lock(c.mu);
  c.records.clear();
  c.dropped = 0;
  c.instance_alive = false;
}

void CuptiKernelTimer::begin() {
  auto& c = collector();
  // Everything launched so far (the L2 flush included) completes, is delivered and is dropped.
  CUDA_CHECK(cudaDeviceSynchronize());
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.collecting = false;
  }
  CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  uint64_t t0 = 0;
  CUPTI_CHECK(cuptiGetTimestamp(&t0));
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.records.clear();
    c.dropped = 0;
    c.collecting = true;
  }
  m_begin_ns = t0;
  m_open = true;
}

double CuptiKernelTimer::end_us(cudaStream_t s) {
  if (!m_open) throw std::runtime_error("CuptiKernelTimer::end_us without begin()");
  m_open = false;
  auto& c = collector();
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaDeviceSynchronize());  // work the call forked onto other streams
  CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

  std::vector<Record> records;
  size_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.collecting = false;
    records.swap(c.records);
    dropped = c.dropped;
    c.dropped = 0;
  }
  if (dropped) {
    throw std::runtime_error(fmt::format("CUPTI dropped {} activity records; the kernel time would be short", dropped));
  }

  std::sort(records.begin(), records.end(), [](const Record& a, const Record& b) { return a.start < b.start; });
  m_kernel_names.clear();
  m_memory_ops = 0;
  uint64_t sum = 0, first = UINT64_MAX, last = 0;
  for (const auto& r : records) {
    if (r.start == 0 && r.end == 0) continue;              // no timestamps collected
    if (r.start < m_begin_ns || r.end < r.start) continue;  // launched before begin()
    sum += r.end - r.start;
    first = std::min(first, r.start);
    last = std::max(last, r.end);
    if (r.kernel) m_kernel_names.push_back(demangle(r.name));
    else ++m_memory_ops;
  }
  m_span_us = last > first ? double(last - first) / 1000.0 : 0.0;
  return double(sum) / 1000.0;
}

std::string cupti_unavailable_reason(cudaStream_t s) {
  try {
    DeviceBuffer probe(256);
    CuptiKernelTimer timer;
    timer.begin();
    CUDA_CHECK(cudaMemsetAsync(probe.get(), 0, probe.bytes(), s));
    timer.end_us(s);
    if (timer.memory_op_count() < 1) return "CUPTI recorded no activity for a test memset";
    return "";
  } catch (const CudaError&) {
    throw;  // a CUDA error is not CUPTI's: the run handles it
  } catch (const std::exception& e) {
    std::string why = e.what();
    for (char& ch : why)
      if (ch == '\n') ch = ' ';
    return why.empty() ? std::string("CUPTI failed") : why;
  }
}

}  // namespace nvfp4
