#pragma once
// Owning wrappers of pinned host memory, device memory (no copies, moves only), streams and
// events (neither copied nor moved).
#include <cstddef>
#include <utility>

#include "strategies/device/cuda_check.cuh"

namespace tpeopt::gpu {

/// A non-blocking stream on the current device, destroyed with the object.
class OwnedStream {
 public:
  OwnedStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~OwnedStream() { cudaStreamDestroy(stream_); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_{};
};

/// A CUDA event on the current device (default flags), destroyed with the object.
class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
};

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : d_(std::exchange(o.d_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      d_ = std::exchange(o.d_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  /// Reallocates (contents lost) when n exceeds the capacity.
  void resize(std::size_t n) {
    if (n <= n_) return;
    release();
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_), n * sizeof(T)));
    n_ = n;
  }
  T* data() const { return d_; }
  std::size_t capacity() const { return n_; }

 private:
  void release() {
    if (d_) cudaFree(d_);
    d_ = nullptr;
    n_ = 0;
  }
  T* d_ = nullptr;
  std::size_t n_ = 0;
};

template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { release(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept : h_(std::exchange(o.h_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      h_ = std::exchange(o.h_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  void resize(std::size_t n) {
    if (n <= n_) return;
    release();
    CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&h_), n * sizeof(T)));
    n_ = n;
  }
  T* data() const { return h_; }
  std::size_t capacity() const { return n_; }

 private:
  void release() {
    if (h_) cudaFreeHost(h_);
    h_ = nullptr;
    n_ = 0;
  }
  T* h_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace tpeopt::gpu
