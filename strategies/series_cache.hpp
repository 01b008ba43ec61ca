#pragma once
// A thread-safe cache of per-parameter series on the CPU (an indicator of one window over one
// symbol: the same for every trial with that window), computed once by the first trial that
// needs it, up to a memory limit; past it, a trial computes into a buffer of its own. The
// values never depend on the cache: it only saves work.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tpeopt::strategies {

class SeriesCache {
 public:
  explicit SeriesCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  /// The series of `key` (n values): computed by compute(double* out) on first use. When the
  /// cache is full it is computed into `own` instead (valid until `own` changes).
  template <typename Compute>
  const double* get(std::uint64_t key, std::size_t n, Compute&& compute, std::vector<double>& own) {
    Entry* e = entry(key, n);
    if (!e) {
      own.resize(n);
      compute(own.data());
      return own.data();
    }
    std::call_once(e->once, [&] {
      e->values.resize(n);
      compute(e->values.data());
    });
    return e->values.data();
  }

 private:
  struct Entry {
    std::once_flag once;
    std::vector<double> values;
  };
  Entry* entry(std::uint64_t key, std::size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = entries_.find(key); it != entries_.end()) return it->second.get();
    if (bytes_ + n * sizeof(double) > max_bytes_) return nullptr;
    bytes_ += n * sizeof(double);
    return entries_.emplace(key, std::make_unique<Entry>()).first->second.get();
  }

  std::size_t max_bytes_, bytes_ = 0;
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::unique_ptr<Entry>> entries_;
};

}  // namespace tpeopt::strategies
