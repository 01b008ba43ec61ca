// The process's setting of the signal twins' segments (signal_segments.hpp). Atomic: a twin
// may be made on the executor's thread while a test's thread sets it.
#include "strategies/device/signal_segments.hpp"

#include <atomic>

namespace tpeopt::gpu {
namespace {
std::atomic<int> g_segments{0}, g_room{0};
}  // namespace

SignalSegments signal_segments() { return {g_segments.load(), g_room.load()}; }

void set_signal_segments(const SignalSegments& s) {
  g_segments.store(s.segments);
  g_room.store(s.segment_room);
}

}  // namespace tpeopt::gpu
