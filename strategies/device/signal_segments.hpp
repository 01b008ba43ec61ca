#pragma once
// How the CUDA twins of the long/short signal strategies (strategies/device/signal_device.cuh)
// cut their walks into segments (strategies/long_short_segments.hpp). Results do not depend
// on it: any cut gives the same bits. Host-compiler-safe header.
//
// The fields mean what the same-named device options of the other segmented twin mean
// (docs/strategies.md). The signal twins are made by the registry's device factory, which takes
// no options, so the setting is the process's: a twin reads it when it is made. It starts from
// the environment, TPEOPT_SIGNAL_SEGMENTS=G or G,ROOM and TPEOPT_SIGNAL_WALK (to time a run's
// cuts and walks; unset: auto), and
// tests force cuts with ScopedSignalSegments.
namespace tpeopt::gpu {

struct SignalSegments {
  /// Segments per (trial, symbol) walk: 0 = auto (enough units for half the segment kernel's
  /// resident threads, segments of at least 128 bars, at most 64; 1 when the trials alone are
  /// that many), 1 = one walk per thread (no segments), G > 1 = G segments.
  int segments = 0;
  /// Trades recorded per segment (0 = from the segment's length within a memory cap); a
  /// segment with more stops there and the stitch walks the rest (same results; tests force
  /// small values).
  int segment_room = 0;
  /// Who walks a (trial, symbol): auto, one thread (cut into `segments` as above), or one
  /// warp testing 32 bars a step (warp_long_short_walk.cuh; `segments` then cuts warp walks,
  /// auto by warp_segments_for).
  /// From TPEOPT_SIGNAL_WALK=auto|thread|warp.
  enum class Walk : int { Auto = 0, Thread = 1, Warp = 2 };
  Walk walk = Walk::Auto;
  /// At most this many series in the device cache (0: what the device's memory allows); tests
  /// make launches evict each other's series with a few.
  int max_series = 0;
};

/// The setting twins made from now on read. Throws Error naming TPEOPT_SIGNAL_SEGMENTS when
/// that is not G or G,ROOM, or TPEOPT_SIGNAL_WALK when that is not auto, thread or warp.
SignalSegments signal_segments();
void set_signal_segments(const SignalSegments& s);

/// Sets the process's setting for its lifetime, then restores the previous one.
class ScopedSignalSegments {
 public:
  explicit ScopedSignalSegments(const SignalSegments& s) : saved_(signal_segments()) { set_signal_segments(s); }
  ~ScopedSignalSegments() { set_signal_segments(saved_); }
  ScopedSignalSegments(const ScopedSignalSegments&) = delete;
  ScopedSignalSegments& operator=(const ScopedSignalSegments&) = delete;

 private:
  SignalSegments saved_;
};

}  // namespace tpeopt::gpu
