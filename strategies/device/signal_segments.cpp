// The process's setting of the signal twins' segments (signal_segments.hpp): from
// TPEOPT_SIGNAL_SEGMENTS when set, until set_signal_segments replaces it. Atomic: a twin may
// be made on the executor's thread while a test's thread sets it.
#include "strategies/device/signal_segments.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include "common/error.hpp"
#include "strategies/device/segments_env.hpp"

namespace tpeopt::gpu {
namespace {

std::atomic<int> g_segments{0}, g_room{0}, g_walk{0}, g_max_series{0};
std::once_flag g_from_env;

/// TPEOPT_SIGNAL_WALK = auto | thread | warp, TPEOPT_SIGNAL_SEGMENTS = "G" or "G,ROOM"
/// (SignalSegments' fields; 0 = auto).
void read_env() {
  if (const char* w = std::getenv("TPEOPT_SIGNAL_WALK"); w && *w) {
    const std::string walk(w);
    if (walk == "auto") g_walk.store(static_cast<int>(SignalSegments::Walk::Auto));
    else if (walk == "thread") g_walk.store(static_cast<int>(SignalSegments::Walk::Thread));
    else if (walk == "warp") g_walk.store(static_cast<int>(SignalSegments::Walk::Warp));
    else throw make_error("TPEOPT_SIGNAL_WALK: expected auto, thread or warp, got \"{}\"", walk);
  }
  const SegmentsSetting forced = segments_from_env("TPEOPT_SIGNAL_SEGMENTS");
  g_segments.store(forced.segments);
  g_room.store(forced.room);
}

}  // namespace

SignalSegments signal_segments() {
  std::call_once(g_from_env, read_env);
  return {g_segments.load(), g_room.load(), static_cast<SignalSegments::Walk>(g_walk.load()), g_max_series.load()};
}

void set_signal_segments(const SignalSegments& s) {
  std::call_once(g_from_env, read_env);
  g_segments.store(s.segments);
  g_room.store(s.segment_room);
  g_walk.store(static_cast<int>(s.walk));
  g_max_series.store(s.max_series);
}

}  // namespace tpeopt::gpu
