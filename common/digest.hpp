#pragma once
// A 64-bit FNV-1a digest over the exact bits of a run's results. Two runs have the
// same digest when their trial numbers, parameters, scores and metrics are the same
// bits (with overwhelming likelihood; it is a checksum, not a cryptographic hash).
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tpeopt {

class Digest {
 public:
  void add_bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      state_ ^= p[i];
      state_ *= 0x100000001b3ULL;
    }
  }
  void add(std::uint64_t v) { add_bytes(&v, sizeof v); }
  /// Adds the bit pattern of v, so -0.0 != 0.0 and NaN payloads count.
  void add(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    add(bits);
  }
  void add(std::string_view s) {
    add(static_cast<std::uint64_t>(s.size()));
    add_bytes(s.data(), s.size());
  }
  std::uint64_t value() const { return state_; }
  std::string hex() const;

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace tpeopt
