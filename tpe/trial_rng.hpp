#pragma once
// Per-trial random streams (DESIGN.md section 3, rule 2).
//
// Every trial draws its random numbers from its own Boost.Random engine seeded from
// (study seed, trial number, purpose) by a fixed mixing function, never from a shared
// generator. Boost.Random's engines and distributions have specified output, so the
// same seed gives the same draws on every compiler and platform.
#include <cstdint>

#include <boost/random/mersenne_twister.hpp>

namespace tpeopt::tpe {

/// SplitMix64's finalizer: a fixed bijective mixing of 64 bits.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Seed of the stream of (study seed, trial number, purpose). `purpose` separates
/// independent uses within one trial (e.g. startup sampling vs. TPE candidates).
constexpr std::uint64_t trial_stream_seed(std::uint64_t study_seed, std::uint64_t trial, std::uint64_t purpose = 0) {
  return mix64(mix64(mix64(study_seed) ^ trial) ^ (purpose * 0xd1b54a32d192ed03ULL));
}

using TrialEngine = boost::random::mt19937_64;

inline TrialEngine make_trial_engine(std::uint64_t study_seed, std::uint64_t trial, std::uint64_t purpose = 0) {
  return TrialEngine(trial_stream_seed(study_seed, trial, purpose));
}

}  // namespace tpeopt::tpe
