#pragma once
// Device occupancy of a batch: the fraction of SM time during the batch's kernels in which
// the SM ran at least one block of the batch (docs/user-guide.md, "Timings"). An idle tail
// (a few long blocks on a few SMs while the others wait for the next batch) shows as a low
// figure.
//
// How it is measured: the kernels of a batch open each block with a BlockOccupancy guard
// (strategies/device/occupancy_probe.cuh) over a small device buffer of 64-bit words, the probe:
//   first, last   the earliest block start and the latest block end (%globaltimer, ns)
//   blocks        blocks recorded
//   busy[sm]      per SM: + end - start of each period in which it ran a block of the batch
//   active[sm]    per SM: blocks of the batch running on it now
// A block's start raises active[sm] and, when it was 0, subtracts its time from busy[sm]; its
// end lowers active[sm] and, when it reaches 0, adds its time: busy[sm] ends as the length of
// the union of the SM's block intervals, with two atomics per block and no list of blocks.
// occupancy = sum of busy / (n_SMs x (last - first)) (engine::occupancy_fraction).
//
// The rule below is written once for the device (atomics) and for the host (the CPU test
// replays block intervals through it and compares with the union computed directly). It
// never touches results: a probe only reads clocks and writes its own buffer.
#include <cstddef>
#include <cstdint>

#include "common/hd.hpp"

namespace tpeopt::gpu {

/// Word offsets in a probe buffer of `ids` SM ids. %smid numbers physical SM slots and may
/// reach past the SM count, so a probe has room for twice as many ids as SMs (probe_ids);
/// an id beyond that is folded onto the others.
struct ProbeLayout {
  static constexpr int kFirst = 0, kLast = 1, kBlocks = 2, kBusy = 3;
  static constexpr int probe_ids(int n_sm) { return 2 * n_sm; }
  /// busy[id] at kBusy + id, active[id] at kBusy + ids + id.
  static constexpr std::size_t words(int ids) { return kBusy + 2 * static_cast<std::size_t>(ids); }
  /// The words copied back to the host: first, last, blocks and busy (active ends at 0).
  static constexpr std::size_t result_words(int ids) { return kBusy + static_cast<std::size_t>(ids); }
};

/// The executor's device-wide words beside the batches' probes: busy[id] at id and active[id]
/// at ids + id, kept by the same rule for every block of every batch. Two batches running at
/// once on an SM count there once, so busy is the SM time in which the device ran any of its
/// batches. Read only when no batch runs (a running block has subtracted its start and not
/// yet added its end).
struct DeviceProbeLayout {
  static constexpr std::size_t words(int ids) { return 2 * static_cast<std::size_t>(ids); }
};

/// A probe buffer on the device (null: the batch is not measured), and the executor's
/// device-wide words (null: none).
struct OccupancyProbe {
  unsigned long long* words = nullptr;
  int ids = 0;  ///< SM ids it has room for (ProbeLayout::probe_ids)
  unsigned long long* device_words = nullptr;  ///< DeviceProbeLayout, ids SM ids
};

/// A block of the batch starts on SM `sm` at time t (ns). Ops: add(p, v) -> old value (mod
/// 2^64), min(p, v), max(p, v): atomics on the device, plain operations in the host test.
template <typename Ops>
TPEOPT_HD_INLINE void probe_block_start(Ops& ops, unsigned long long* w, int ids, int sm, unsigned long long t,
                                        unsigned long long* device_words = nullptr) {
  ops.min(&w[ProbeLayout::kFirst], t);
  if (ops.add(&w[ProbeLayout::kBusy + ids + sm], 1ull) == 0ull) ops.add(&w[ProbeLayout::kBusy + sm], 0ull - t);
  if (device_words != nullptr && ops.add(&device_words[ids + sm], 1ull) == 0ull) ops.add(&device_words[sm], 0ull - t);
}

/// The block that started on SM `sm` ends at time t (ns).
template <typename Ops>
TPEOPT_HD_INLINE void probe_block_end(Ops& ops, unsigned long long* w, int ids, int sm, unsigned long long t,
                                      unsigned long long* device_words = nullptr) {
  ops.max(&w[ProbeLayout::kLast], t);
  ops.add(&w[ProbeLayout::kBlocks], 1ull);
  if (ops.add(&w[ProbeLayout::kBusy + ids + sm], ~0ull) == 1ull) ops.add(&w[ProbeLayout::kBusy + sm], t);
  if (device_words != nullptr && ops.add(&device_words[ids + sm], ~0ull) == 1ull) ops.add(&device_words[sm], t);
}

/// The device-wide busy SM time so far, in ns (the sum of DeviceProbeLayout's busy words,
/// copied back while no batch runs).
inline unsigned long long device_busy_ns(const unsigned long long* device_words, int ids) {
  unsigned long long busy = 0;  // each word is a sum of (end - start) periods, mod 2^64
  for (int s = 0; s < ids; ++s) busy += device_words[s];
  return busy;
}

/// A batch's SM time: busy (SM-ms in which an SM ran a block of the batch) and span (n_SMs x
/// the batch's kernel span, in SM-ms). Both 0 when the batch was not measured (the CPU
/// executor, a strategy whose kernels carry no probe). Sums of several batches or devices
/// are sums of both.
struct SmTime {
  double busy_ms = 0.0, span_ms = 0.0;
};

/// The part of a batch's kernel span [first, last] (probe words, ns) that no earlier batch of
/// the device covered, in ns, given the end of the spans before it (`covered_until`, updated).
/// Batches on several streams overlap: the device's occupancy over a run is the SM time busy
/// over n_SMs x the union of the spans, not over the sum of each batch's own span (which
/// counts the overlapped time twice). Batches are taken in submission order, which is the
/// order their spans start in.
inline unsigned long long uncovered_span_ns(const unsigned long long* w, unsigned long long& covered_until) {
  if (w[ProbeLayout::kBlocks] == 0 || w[ProbeLayout::kLast] <= w[ProbeLayout::kFirst]) return 0;
  const unsigned long long from = w[ProbeLayout::kFirst] > covered_until ? w[ProbeLayout::kFirst] : covered_until;
  const unsigned long long added = w[ProbeLayout::kLast] > from ? w[ProbeLayout::kLast] - from : 0;
  if (w[ProbeLayout::kLast] > covered_until) covered_until = w[ProbeLayout::kLast];
  return added;
}

/// Reads a probe of `ids` SM ids copied back to the host (ProbeLayout::result_words(ids)
/// words), on a device of n_sm SMs.
inline SmTime sm_time_from_probe(const unsigned long long* w, int ids, int n_sm) {
  if (w[ProbeLayout::kBlocks] == 0 || w[ProbeLayout::kLast] <= w[ProbeLayout::kFirst]) return {};
  unsigned long long busy = 0;  // each word is a sum of (end - start) periods, mod 2^64
  for (int s = 0; s < ids; ++s) busy += w[ProbeLayout::kBusy + s];
  const double span_ns = static_cast<double>(w[ProbeLayout::kLast] - w[ProbeLayout::kFirst]);
  return {static_cast<double>(busy) / 1e6, static_cast<double>(n_sm) * span_ns / 1e6};
}

}  // namespace tpeopt::gpu
