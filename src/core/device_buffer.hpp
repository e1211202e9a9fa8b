// SPDX-License-Identifier: Apache-2.0
// device_buffer.hpp: move-only RAII owners for device memory, streams and events.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "core/cuda_check.hpp"

namespace nvfp4 {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : m_bytes(bytes) {
    if (bytes) CUDA_CHECK(cudaMalloc(&m_ptr, bytes));
  }
  ~DeviceBuffer() {
    if (m_ptr) CUDA_CHECK_NOEXCEPT(cudaFree(m_ptr));
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : m_ptr(std::exchange(o.m_ptr, nullptr)), m_bytes(std::exchange(o.m_bytes, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(m_ptr, o.m_ptr);
    std::swap(m_bytes, o.m_bytes);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  template <class T = void>
  T* get() const { return static_cast<T*>(m_ptr); }
  size_t bytes() const { return m_bytes; }

 private:
  void* m_ptr = nullptr;
  size_t m_bytes = 0;
};

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&m_s, cudaStreamNonBlocking)); }
  ~Stream() {
    if (m_s) CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(m_s));
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return m_s; }
  void sync() const { CUDA_CHECK(cudaStreamSynchronize(m_s)); }

 private:
  cudaStream_t m_s = nullptr;
};

class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&m_e)); }
  ~Event() {
    if (m_e) CUDA_CHECK_NOEXCEPT(cudaEventDestroy(m_e));
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return m_e; }
  void record(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(m_e, s)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float since(const Event& start) const {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.m_e, m_e));
    return ms;
  }

 private:
  cudaEvent_t m_e = nullptr;
};

}  // namespace nvfp4
