#pragma once
// Per-trial random streams (docs/design.md, "Determinism", rule 2).
//
// Every trial draws its random numbers from its own engine seeded from (study seed, trial
// number, purpose) by a fixed mixing function, never from a shared generator. The engine is
// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014), written here as a Boost.Random UniformRandomNumberGenerator so that Boost's
// distributions (whose output is specified) drive it: the same seed gives the same draws on
// every compiler and platform. Its state is one 64-bit counter, so creating a stream costs
// nothing (seeding boost::random::mt19937_64 cost about 1-2 us, i.e. about 1 s for a batch
// of 4096 trials x 142 axes). Output n (n = 1, 2, ...) of the stream with seed s is
// mix64(s + n * 0x9e3779b97f4a7c15), with mix64 below: a counter-based stream.
#include <cstdint>
#include <limits>

namespace tpeopt::tpe {

/// SplitMix64's finalizer (without its increment): a fixed bijective mixing of 64 bits.
constexpr std::uint64_t mix64_finalize(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// SplitMix64's step applied to z: the finalizer of z + golden gamma.
constexpr std::uint64_t mix64(std::uint64_t z) { return mix64_finalize(z + 0x9e3779b97f4a7c15ULL); }

/// Seed of the stream of (study seed, trial number, purpose). `purpose` separates
/// independent uses within one trial (e.g. startup sampling vs. TPE candidates).
constexpr std::uint64_t trial_stream_seed(std::uint64_t study_seed, std::uint64_t trial, std::uint64_t purpose = 0) {
  return mix64(mix64(mix64(study_seed) ^ trial) ^ (purpose * 0xd1b54a32d192ed03ULL));
}

/// SplitMix64 as a Boost.Random engine (UniformRandomNumberGenerator: result_type, min(),
/// max(), operator()). Every 64-bit output is possible; the full period is 2^64.
class SplitMix64 {
 public:
  using result_type = std::uint64_t;
  static constexpr bool has_fixed_range = true;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<std::uint64_t>::max(); }

  constexpr explicit SplitMix64(std::uint64_t seed = 0) : state_(seed) {}
  constexpr void seed(std::uint64_t s) { state_ = s; }
  constexpr result_type operator()() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64_finalize(state_);
  }
  constexpr void discard(std::uint64_t n) { state_ += n * 0x9e3779b97f4a7c15ULL; }
  friend constexpr bool operator==(const SplitMix64& x, const SplitMix64& y) { return x.state_ == y.state_; }

 private:
  std::uint64_t state_;
};

using TrialEngine = SplitMix64;

inline TrialEngine make_trial_engine(std::uint64_t study_seed, std::uint64_t trial, std::uint64_t purpose = 0) {
  return TrialEngine(trial_stream_seed(study_seed, trial, purpose));
}

}  // namespace tpeopt::tpe
