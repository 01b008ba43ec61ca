// Device twin of strategies::ExhaustionStrategy. Every number comes from the TPEOPT_HD
// functions of strategies/exhaustion/exhaustion.hpp, as in the CPU reference.
//
// Parallel decomposition of one batch (n trials over N bars):
//  (a) per-parameter series, shared by all trials with that value and cached on the device
//      across batches (they depend only on the value and the data): the EMA of each
//      distinct span (one thread per span, sequential in bars, exactly ema_series), and the
//      volume and TR z-scores of each distinct z_window (parallel over (window, bar): each
//      bar's z is a pure function of the prefix sums);
//  (b) the trial kernel: one warp per trial. The warp tests 32 consecutive bars at once
//      for a signal (lane = bar) and takes the first with a ballot; then tests 32 bars at
//      once for the exit condition and takes the first exit with a ballot; then goes on
//      from the exit bar. Only the chaining of positions is sequential. The finder returns
//      the same first bar as the CPU's bar-by-bar scan, so trades and scores are identical.
//      The simple kernel (one thread per trial, bar by bar) is kept for parity tests.
// A batch whose distinct series do not fit in the series cache is split into parts of
// consecutive trials (same results). No atomics; each trial's sums run in trade order.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/device_buffers.hpp"
#include "gpu/exhaustion_kernel.hpp"
#include "gpu/exhaustion_trades.hpp"
#include "strategies/exhaustion/exhaustion.hpp"

namespace tpeopt::gpu {

namespace {

namespace ex = strategies::exhaustion;

/// Per trial: the cache slots of its EMA fast, EMA slow, volume z and TR z series.
struct TrialSlots {
  int ema_fast, ema_slow, vol_z, tr_z;
};
struct EmaTask {
  int span, slot;
};
struct ZTask {
  int window, vol_slot, tr_slot;
};

/// The device data the z-score kernel reads (prefix sums and raw series).
struct ZInputs {
  int n;
  const double *s_vol, *q_vol, *vol, *s_tr, *q_tr, *tr;
};

__global__ void ema_kernel(const double* close, int n, const EmaTask* tasks, int n_tasks, double* pool) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n_tasks) return;
  ex::ema_series(close, n, tasks[k].span, pool + static_cast<std::size_t>(tasks[k].slot) * n);
}

__global__ void z_kernel(ZInputs in, const ZTask* tasks, double* pool) {
  const ZTask task = tasks[blockIdx.y];
  double* vz = pool + static_cast<std::size_t>(task.vol_slot) * in.n;
  double* tz = pool + static_cast<std::size_t>(task.tr_slot) * in.n;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < in.n; i += gridDim.x * blockDim.x) {
    vz[i] = ex::rolling_z(in.s_vol, in.q_vol, in.vol, i, task.window);
    tz[i] = ex::rolling_z(in.s_tr, in.q_tr, in.tr, i, task.window);
  }
}

/// First k in [from, to] with pred(k), 32 bars per step, the same answer on every lane.
struct WarpFinder {
  int lane;
  template <typename Pred>
  __device__ int operator()(int from, int to, Pred&& pred) const {
    for (int base = from; base <= to; base += 32) {
      const int k = base + lane;
      const bool hit = k <= to && pred(k);
      const unsigned mask = __ballot_sync(0xffffffffu, hit);
      if (mask != 0u) return base + __ffs(mask) - 1;
      if (to - base < 32) break;
    }
    return to + 1;
  }
};

struct TrialLaunch {
  ex::Bars bars;
  const double* pool;
  const TrialSlots* slots;  ///< per trial of the part
  const double* params;     ///< batch params (n x kNumSlots)
  int first;                ///< first trial of the part (batch index)
  int count;                ///< trials in the part
  ex::Objective objective;
  int min_trades;
  double* scores;
  double* violations;
  double* metrics;
  const long long* trade_offsets;  ///< record pass: first trade's index per batch trial
  ex::Trade* trades;               ///< record pass: output
};

template <bool kWarp, bool kRecord>
__global__ void trial_kernel(TrialLaunch L) {
  const long long gid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long local = kWarp ? gid / 32 : gid;
  if (local >= L.count) return;  // uniform across a warp in the warp kernel
  const int lane = kWarp ? static_cast<int>(threadIdx.x & 31u) : 0;
  const int trial = L.first + static_cast<int>(local);
  const ex::Params p = ex::unpack_params(L.params + static_cast<std::size_t>(trial) * ex::kNumSlots);
  const TrialSlots s = L.slots[local];
  const std::size_t n = static_cast<std::size_t>(L.bars.n);
  const ex::TrialSeries t{L.pool + s.ema_fast * n, L.pool + s.ema_slow * n, L.pool + s.vol_z * n,
                          L.pool + s.tr_z * n};
  ex::Summary sum;
  long long out = kRecord ? L.trade_offsets[trial] : 0;
  auto on_trade = [&](const ex::Trade& tr) {
    ex::add_trade(sum, tr);
    if (kRecord && lane == 0) L.trades[out] = tr;
    if (kRecord) ++out;
  };
  if constexpr (kWarp) {
    ex::run_backtest(L.bars, p, t, WarpFinder{lane}, on_trade);
  } else {
    ex::run_backtest(L.bars, p, t, ex::SequentialFinder{}, on_trade);
  }
  if (lane == 0) {
    double m[ex::kNumMetrics];
    double violation = 0.0;
    L.scores[trial] = ex::finish(sum, L.objective, L.min_trades, m, &violation);
    L.violations[trial] = violation;
    for (int k = 0; k < ex::kNumMetrics; ++k) L.metrics[static_cast<std::size_t>(trial) * ex::kNumMetrics + k] = m[k];
  }
}

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& h, cudaStream_t stream) {
  DeviceBuffer<T> d(std::max<std::size_t>(1, h.size()));
  CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  return d;
}

/// A pinned staging area for one part's plan and the event after its upload.
struct PlanStage {
  PinnedBuffer<char> h;
  cudaEvent_t uploaded{};
  bool used = false;
};

class ExhaustionDevice final : public DeviceStrategy {
 public:
  ExhaustionDevice(const strategies::ExhaustionStrategy& s, cudaStream_t stream, const ExhaustionDeviceOptions& o)
      : options_(o), objective_(s.options().objective), min_trades_(s.options().min_trades), n_(s.n_bars()) {
    const auto& c = s.candles();
    d_open_ = upload(c.open, stream);
    d_high_ = upload(c.high, stream);
    d_low_ = upload(c.low, stream);
    d_close_ = upload(c.close, stream);
    d_vol_ = upload(c.volume, stream);
    d_cloc_ = upload(s.cloc(), stream);
    d_tr_ = upload(s.true_range(), stream);
    d_s_tr_ = upload(s.s_tr(), stream);
    d_q_tr_ = upload(s.q_tr(), stream);
    d_s_vol_ = upload(s.s_vol(), stream);
    d_q_vol_ = upload(s.q_vol(), stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));  // host vectors may go once the copies are done
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Leave room for batch buffers and trade lists: the cache takes at most 60% of what is free.
    const std::size_t series_bytes = static_cast<std::size_t>(n_) * sizeof(double);
    std::size_t cap = static_cast<std::size_t>(0.6 * static_cast<double>(free_bytes)) / series_bytes;
    cap = std::min<std::size_t>(cap, 1u << 16);
    if (options_.max_series > 0) cap = std::min(cap, options_.max_series);
    if (cap < 3)
      throw Error("executor cuda: not enough device memory for the exhaustion series of " + std::to_string(n_) +
                  " bars (" + std::to_string(free_bytes >> 20) + " MiB free; need 3 x " +
                  std::to_string(series_bytes >> 20) + " MiB)");
    max_series_ = cap;
    for (auto& st : stages_) CUDA_CHECK(cudaEventCreateWithFlags(&st.uploaded, cudaEventDisableTiming));
  }

  ~ExhaustionDevice() override {
    for (auto& st : stages_)
      if (st.uploaded) cudaEventDestroy(st.uploaded);
  }

  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    run(batch, stream, block_size, nullptr, nullptr);
  }

  /// launch() with trade recording: trade_offsets[i] is trial i's first trade index.
  void run(const DeviceBatch& batch, cudaStream_t stream, int block_size, const long long* d_trade_offsets,
           ex::Trade* d_trades) {
    const std::size_t n = batch.n;
    if (n == 0) return;
    TPEOPT_ASSERT(batch.host_params != nullptr, "exhaustion: the batch has no host copy of its parameters");
    ++batch_counter_;
    std::size_t begin = 0;
    while (begin < n) {
      // Grow the part while its distinct series fit in the cache.
      std::vector<Key> part_keys;
      std::size_t end = begin;
      while (end < n) {
        const auto keys = trial_keys(batch.host_params + end * ex::kNumSlots);
        std::vector<Key> merged = part_keys;
        for (const Key& k : keys)
          if (std::find(merged.begin(), merged.end(), k) == merged.end()) merged.push_back(k);
        if (merged.size() > max_series_) break;
        part_keys = std::move(merged);
        ++end;
      }
      TPEOPT_ASSERT(end > begin, "exhaustion: a trial needs more series than the cache holds");
      run_part(batch, begin, end, part_keys, stream, block_size, d_trade_offsets, d_trades);
      begin = end;
    }
  }

 private:
  // Series key: kind * 2^32 + value (kind 0: EMA of a span; 1: volume z of a window; 2: TR z).
  using Key = std::uint64_t;
  static Key key(int kind, int value) { return (static_cast<Key>(kind) << 32) | static_cast<std::uint32_t>(value); }
  static std::array<Key, 4> trial_keys(const double* v) {
    const ex::Params p = ex::unpack_params(v);
    return {key(0, p.ema_fast), key(0, p.ema_slow), key(1, p.z_window), key(2, p.z_window)};
  }

  void ensure_pool(std::size_t slots, cudaStream_t stream) {
    if (slots <= pool_slots_) return;
    const std::size_t grown = std::min(max_series_, std::max(slots, 2 * pool_slots_));
    CUDA_CHECK(cudaStreamSynchronize(stream));  // kernels of earlier batches may still read the old pool
    pool_ = DeviceBuffer<double>();
    pool_ = DeviceBuffer<double>(grown * static_cast<std::size_t>(n_));
    pool_slots_ = grown;
    slot_key_.assign(grown, kNoKey);
    slot_used_.assign(grown, 0);
    resident_.clear();
  }

  void run_part(const DeviceBatch& batch, std::size_t begin, std::size_t end, const std::vector<Key>& keys,
                cudaStream_t stream, int block_size, const long long* d_trade_offsets, ex::Trade* d_trades) {
    ensure_pool(keys.size(), stream);
    ++part_counter_;
    // Pin the part's resident series, then give missing ones the least recently used slots.
    for (const Key& k : keys)
      if (auto it = resident_.find(k); it != resident_.end()) slot_used_[it->second] = part_counter_;
    std::vector<EmaTask> ema_tasks;
    std::vector<ZTask> z_tasks;
    std::map<int, ZTask> z_by_window;
    for (const Key& k : keys) {
      if (resident_.count(k)) continue;
      std::size_t best = 0;
      for (std::size_t s = 1; s < pool_slots_; ++s)
        if (slot_used_[s] < slot_used_[best]) best = s;
      TPEOPT_ASSERT(slot_used_[best] != part_counter_, "exhaustion: series cache overcommitted");
      if (slot_key_[best] != kNoKey) resident_.erase(slot_key_[best]);
      slot_key_[best] = k;
      slot_used_[best] = part_counter_;
      resident_[k] = best;
      const int kind = static_cast<int>(k >> 32);
      const int value = static_cast<int>(k & 0xffffffffu);
      if (kind == 0) {
        ema_tasks.push_back({value, static_cast<int>(best)});
      } else {
        ZTask& z = z_by_window.try_emplace(value, ZTask{value, -1, -1}).first->second;
        (kind == 1 ? z.vol_slot : z.tr_slot) = static_cast<int>(best);
      }
    }
    for (auto& [w, z] : z_by_window) {
      // A window whose other z series is resident is recomputed into its slot too (same bits).
      if (z.vol_slot < 0) z.vol_slot = static_cast<int>(resident_.at(key(1, w)));
      if (z.tr_slot < 0) z.tr_slot = static_cast<int>(resident_.at(key(2, w)));
      z_tasks.push_back(z);
    }
    const std::size_t count = end - begin;
    std::vector<TrialSlots> slots(count);
    for (std::size_t i = 0; i < count; ++i) {
      const auto k = trial_keys(batch.host_params + (begin + i) * ex::kNumSlots);
      slots[i] = {static_cast<int>(resident_.at(k[0])), static_cast<int>(resident_.at(k[1])),
                  static_cast<int>(resident_.at(k[2])), static_cast<int>(resident_.at(k[3]))};
    }

    // Stage the plan in pinned memory (a ring of stages guarded by events) and upload it.
    const std::size_t b_slots = count * sizeof(TrialSlots), b_ema = ema_tasks.size() * sizeof(EmaTask),
                      b_z = z_tasks.size() * sizeof(ZTask);
    const std::size_t o_ema = align(b_slots), o_z = o_ema + align(b_ema), total = o_z + align(b_z);
    PlanStage& st = stages_[stage_next_];
    stage_next_ = (stage_next_ + 1) % stages_.size();
    if (st.used) CUDA_CHECK(cudaEventSynchronize(st.uploaded));
    st.h.resize(total);
    std::copy_n(reinterpret_cast<const char*>(slots.data()), b_slots, st.h.data());
    std::copy_n(reinterpret_cast<const char*>(ema_tasks.data()), b_ema, st.h.data() + o_ema);
    std::copy_n(reinterpret_cast<const char*>(z_tasks.data()), b_z, st.h.data() + o_z);
    d_plan_.resize(total);  // stream order: earlier parts' kernels finished reading before this copy lands
    CUDA_CHECK(cudaMemcpyAsync(d_plan_.data(), st.h.data(), total, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaEventRecord(st.uploaded, stream));
    st.used = true;
    const char* plan = d_plan_.data();

    if (!ema_tasks.empty()) {
      const int threads = 64;
      const int blocks = static_cast<int>((ema_tasks.size() + threads - 1) / threads);
      ema_kernel<<<blocks, threads, 0, stream>>>(d_close_.data(), n_, reinterpret_cast<const EmaTask*>(plan + o_ema),
                                                 static_cast<int>(ema_tasks.size()), pool_.data());
      CUDA_CHECK_LAUNCH("ema_kernel");
    }
    if (!z_tasks.empty()) {
      const ZInputs in{n_, d_s_vol_.data(), d_q_vol_.data(), d_vol_.data(), d_s_tr_.data(), d_q_tr_.data(),
                       d_tr_.data()};
      const int threads = 256;
      const unsigned bx = static_cast<unsigned>(std::min<long long>((n_ + threads - 1) / threads, 1024));
      z_kernel<<<dim3(bx, static_cast<unsigned>(z_tasks.size())), threads, 0, stream>>>(
          in, reinterpret_cast<const ZTask*>(plan + o_z), pool_.data());
      CUDA_CHECK_LAUNCH("z_kernel");
    }

    TrialLaunch L;
    L.bars.n = n_;
    L.bars.open = d_open_.data();
    L.bars.high = d_high_.data();
    L.bars.low = d_low_.data();
    L.bars.close = d_close_.data();
    L.bars.cloc = d_cloc_.data();
    L.bars.s_tr = d_s_tr_.data();
    L.pool = pool_.data();
    L.slots = reinterpret_cast<const TrialSlots*>(plan);
    L.params = batch.params;
    L.first = static_cast<int>(begin);
    L.count = static_cast<int>(count);
    L.objective = objective_;
    L.min_trades = min_trades_;
    L.scores = batch.scores;
    L.violations = batch.violations;
    L.metrics = batch.metrics;
    L.trade_offsets = d_trade_offsets;
    L.trades = d_trades;
    const bool record = d_trades != nullptr;
    int threads = std::max(32, std::min(1024, block_size));
    if (options_.warp_per_trial) {
      threads = (threads + 31) / 32 * 32;
      const long long total_threads = static_cast<long long>(count) * 32;
      const unsigned blocks = static_cast<unsigned>((total_threads + threads - 1) / threads);
      if (record) trial_kernel<true, true><<<blocks, threads, 0, stream>>>(L);
      else trial_kernel<true, false><<<blocks, threads, 0, stream>>>(L);
    } else {
      const unsigned blocks = static_cast<unsigned>((count + threads - 1) / threads);
      if (record) trial_kernel<false, true><<<blocks, threads, 0, stream>>>(L);
      else trial_kernel<false, false><<<blocks, threads, 0, stream>>>(L);
    }
    CUDA_CHECK_LAUNCH("exhaustion trial_kernel");
  }

  static std::size_t align(std::size_t b) { return (b + 255) / 256 * 256; }
  static constexpr Key kNoKey = ~Key{0};

  ExhaustionDeviceOptions options_;
  ex::Objective objective_;
  int min_trades_;
  int n_;
  DeviceBuffer<double> d_open_, d_high_, d_low_, d_close_, d_vol_, d_cloc_, d_tr_, d_s_tr_, d_q_tr_, d_s_vol_,
      d_q_vol_;
  // The series cache: pool_slots_ series of n_ doubles; slot_key_[s] = what slot s holds.
  DeviceBuffer<double> pool_;
  std::size_t pool_slots_ = 0, max_series_ = 0;
  std::vector<Key> slot_key_;
  std::vector<std::uint64_t> slot_used_;  // part counter of the last use (LRU)
  std::map<Key, std::size_t> resident_;
  std::uint64_t batch_counter_ = 0, part_counter_ = 0;
  DeviceBuffer<char> d_plan_;
  std::array<PlanStage, 4> stages_;
  std::size_t stage_next_ = 0;
};

}  // namespace

std::unique_ptr<DeviceStrategy> make_exhaustion_device(const strategies::ExhaustionStrategy& strategy,
                                                       cudaStream_t stream, const ExhaustionDeviceOptions& options) {
  return std::make_unique<ExhaustionDevice>(strategy, stream, options);
}

std::vector<GpuTrialTrades> gpu_exhaustion_trades(const strategies::ExhaustionStrategy& strategy, const double* params,
                                                  std::size_t n, const ExhaustionDeviceOptions& options,
                                                  int block_size) {
  std::vector<GpuTrialTrades> out(n);
  if (n == 0) return out;
  CUDA_CHECK(cudaSetDevice(0));
  cudaStream_t stream{};
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};
  ExhaustionDevice device(strategy, stream, options);
  const std::size_t nm = ex::kNumMetrics;
  PinnedBuffer<double> h_params, h_scores, h_viol, h_metrics;
  h_params.resize(n * ex::kNumSlots);
  std::copy_n(params, n * ex::kNumSlots, h_params.data());
  h_scores.resize(n);
  h_viol.resize(n);
  h_metrics.resize(n * nm);
  DeviceBuffer<double> d_params(n * ex::kNumSlots), d_scores(n), d_viol(n), d_metrics(n * nm);
  CUDA_CHECK(cudaMemcpyAsync(d_params.data(), h_params.data(), n * ex::kNumSlots * sizeof(double),
                             cudaMemcpyHostToDevice, stream));
  const DeviceBatch batch{d_params.data(), h_params.data(), d_scores.data(), d_viol.data(), d_metrics.data(), n};
  // Pass 1: scores, metrics and trade counts.
  device.run(batch, stream, block_size, nullptr, nullptr);
  CUDA_CHECK(cudaMemcpyAsync(h_scores.data(), d_scores.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(h_viol.data(), d_viol.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(h_metrics.data(), d_metrics.data(), n * nm * sizeof(double), cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<long long> offsets(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].score = h_scores.data()[i];
    out[i].violation = h_viol.data()[i];
    out[i].metrics.assign(h_metrics.data() + i * nm, h_metrics.data() + (i + 1) * nm);
    offsets[i + 1] = offsets[i] + static_cast<long long>(out[i].metrics[ex::kMTrades]);
  }
  // Pass 2: the trades, each trial's written from its offset.
  const std::size_t total = static_cast<std::size_t>(offsets[n]);
  DeviceBuffer<long long> d_offsets(n + 1);
  DeviceBuffer<ex::Trade> d_trades(std::max<std::size_t>(1, total));
  CUDA_CHECK(cudaMemcpyAsync(d_offsets.data(), offsets.data(), (n + 1) * sizeof(long long), cudaMemcpyHostToDevice,
                             stream));
  device.run(batch, stream, block_size, d_offsets.data(), d_trades.data());
  std::vector<ex::Trade> all(total);
  if (total > 0)
    CUDA_CHECK(cudaMemcpyAsync(all.data(), d_trades.data(), total * sizeof(ex::Trade), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::size_t i = 0; i < n; ++i) out[i].trades.assign(all.begin() + offsets[i], all.begin() + offsets[i + 1]);
  return out;
}

}  // namespace tpeopt::gpu
