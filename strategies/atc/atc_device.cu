// The CUDA twin of strategies::AtcStrategy. Every number comes from the TPEOPT_HD functions of
// strategies/atc/atc.hpp, as in the CPU reference, and the per-symbol results are aggregated
// by strategies/symbol_aggregate.hpp's function (strategies/device/symbol_aggregate.cuh).
//
// Data: the closes and returns of all symbols, contiguous, with per-symbol offset, length
// and signal-word offset arrays, uploaded once (the "true batch" layout of the ATC specification: one launch
// covers every symbol).
//
// One batch:
//  (a) signal series, shared by every trial that uses the same moving-average type and
//      length and cached on the device across batches (they depend only on the data): one
//      thread per (symbol, new series) runs atc::ma_signal_words over that symbol's closes
//      into the series' slot, 2 x 32 bits per 32 bars;
//  (b) the trial kernel: six lanes per (trial, symbol), lane m running type m's layer 1
//      (nine equities) and its layer-2 equity; every bar the six lanes' l1 * E and E go to
//      every lane of the group through shared memory and each lane forms the final signal
//      with atc::Combiner (same order: m = 0..5) and the same positions and returns. Five groups
//      per warp, all on one symbol (trials fastest), so the bar loop is uniform in a warp
//      and the returns are one broadcast load. The group's lane 0 writes the symbol's row
//      (objective, equity, metrics). The simple kernel (one thread per (trial, symbol)
//      running atc::run_symbol, the CPU's loop) is kept for parity tests;
//  (c) the aggregation: one thread per trial over the symbols in order.
// A blocked strategy (docs/strategies.md, "Data subsets": hold-out parts, walk-forward windows, halving slices)
// runs one thread per (trial, symbol) through atc::run_symbol_blocks instead of (b).
// Folds (Strategy::with_folds): each return bar's return also joins its fold in the symbol's
// own bars (atc::add_fold_return; in (b) by the group's lane 0), in scratch beside the rows (K
// FoldStats and sums of squares per row); the row gains its fold columns and (c) runs
// aggregate_symbols_folded.
// A batch whose distinct series do not fit in the cache runs as parts of consecutive trials,
// and a batch whose per-symbol rows do not fit as chunks (same results). No atomics.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "strategies/atc/atc.hpp"
#include "strategies/atc/atc_device.hpp"
#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/device/launch_size.cuh"
#include "strategies/device/occupancy_probe.cuh"
#include "strategies/device/series_slots.hpp"
#include "strategies/device/symbol_aggregate.cuh"

namespace tpeopt::gpu {

namespace {

namespace atc = strategies::atc;
namespace sym = strategies::symbols;

constexpr int kGroup = atc::kNumTypes;  // lanes per (trial, symbol)
constexpr int kGroupsPerWarp = 32 / kGroup;
constexpr int kLengthKeys = atc::kMaxLength + 1;

struct SignalTask {
  int type, length, slot;
};

struct Symbols {
  int n;                    ///< symbols
  const long long* offset;  ///< first bar of each symbol
  const long long* length;  ///< bars of each symbol
  const long long* words;   ///< first signal word of each symbol
  long long total_words;
};

__global__ void signal_kernel(const double* close, Symbols sy, const SignalTask* tasks, int n_tasks,
                              atc::SignalWord* pool, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  const long long total = static_cast<long long>(sy.n) * n_tasks;
  for (long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int s = static_cast<int>(idx / n_tasks);
    const SignalTask task = tasks[idx % n_tasks];
    atc::ma_signal_words(task.type, close + sy.offset[s], static_cast<int>(sy.length[s]), task.length,
                         pool + static_cast<long long>(task.slot) * sy.total_words + sy.words[s]);
  }
}

struct TrialLaunch {
  Symbols sy;
  const strategies::BarBlock*
      blocks;                   ///< blocked strategies (docs/strategies.md, "Data subsets"): every symbol's blocks
  const int* block_offset;      ///< symbol s's blocks are blocks[block_offset[s] .. block_offset[s + 1])
  const double* R;              ///< returns of all symbols (R_0 = 0 per symbol)
  const atc::SignalWord* pool;  ///< series slot-major: slot * total_words + symbol's words
  const int* slots;             ///< per trial of the part: 54 series slots (type-major)
  const double* params;         ///< the part's first trial's parameters (count x kNumSlots)
  int count;                    ///< trials in the part
  int warps_per_symbol;         ///< ceil(count / 5) (grouped kernel)
  int row_offset;               ///< the part's first trial's row in the chunk
  int row_count;                ///< trials in the chunk (the rows' symbol stride)
  atc::Objective objective;
  double* objective_out;  ///< [symbol][chunk trial]
  double* equity_out;     ///< [symbol][chunk trial]
  double* metrics_out;    ///< [symbol][chunk trial][metric] (row_metrics a row)
  OccupancyProbe probe;   ///< the batch's (strategies/device/occupancy.hpp)
  int row_metrics;        ///< atc::kNumMetrics, then with folds 4 columns per fold
  // Folds: folds.n = K (0: none); symbol s's K + 1 edges and K embargo ends in its bars from
  // folds.edge + s (K + 1) and folds.embargo_end + s K; a row's K fold statistics from row K.
  strategies::FoldBars folds;
  atc::FoldStats* fold_stats;
  double* fold_sumsq;
  int portfolio;  ///< 1: a fold's score in a row is its compound return (objective.aggregate portfolio)
};

/// Symbol s's folds in its own bars.
__device__ __forceinline__ strategies::FoldBars symbol_folds(const TrialLaunch& L, int s) {
  const int K = L.folds.n;
  return {K, L.folds.edge + static_cast<long long>(s) * (K + 1), L.folds.embargo_end + static_cast<long long>(s) * K};
}

/// The row of (symbol s, part trial `trial`) in the chunk.
__device__ __forceinline__ long long row_of(const TrialLaunch& L, int s, int trial) {
  return static_cast<long long>(s) * L.row_count + L.row_offset + trial;
}

/// The fold statistics of a row (none without folds).
__device__ __forceinline__ strategies::FoldView<atc::FoldStats> row_folds(const TrialLaunch& L, long long row) {
  if (L.folds.n <= 0) return atc::no_fold_stats();
  return {L.fold_stats + row * L.folds.n, L.fold_sumsq + row * L.folds.n};
}

/// Writes symbol s's row of a trial: finish_symbol's metrics and equity, and its objective
/// (or *objective when given: a blocked trial's sum over its blocks).
/// With folds, the row's fold columns follow from its fold statistics.
__device__ __forceinline__ void write_row(const TrialLaunch& L, int s, int trial, const atc::TradeState& tr,
                                          const double* objective = nullptr) {
  const long long row = row_of(L, s, trial);
  double m[atc::kNumMetrics];
  double equity = 0.0;
  const double own = atc::finish_symbol(tr, L.objective, m, &equity);
  L.objective_out[row] = objective ? *objective : own;
  L.equity_out[row] = equity;
  double* out = L.metrics_out + row * L.row_metrics;
  for (int k = 0; k < atc::kNumMetrics; ++k) out[k] = m[k];
  if (L.folds.n > 0)
    atc::write_fold_columns(row_folds(L, row), L.folds.n, L.objective, L.portfolio != 0, out + atc::kNumMetrics);
}

constexpr int kGroupedThreads = 128;

/// kFolds: the launch scores folds (L.folds.n > 0). A template parameter, not a test in the bar
/// loop: the loop without folds keeps the registers and instructions it had before folds.
template <bool kFolds>
__global__ void __launch_bounds__(kGroupedThreads, 4) grouped_kernel(TrialLaunch L) {
  BlockOccupancy occupancy(L.probe);
  // Each lane's l1 * E and E of the current bar, read by the lanes of its group.
  __shared__ double2 exchange[kGroupedThreads];
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int s = static_cast<int>(warp / L.warps_per_symbol);
  if (s >= L.sy.n) return;  // uniform across the warp
  const int g = lane / kGroup, m = lane - g * kGroup;
  const int trial = static_cast<int>(warp % L.warps_per_symbol) * kGroupsPerWarp + g;
  const bool valid = g < kGroupsPerWarp && trial < L.count;
  // Lanes without a trial (lanes 30, 31 and groups past the part's end) run trial 0's
  // type m alongside, so that the warp stays converged; they write nothing.
  const int tr = valid ? trial : 0;
  const double2* group = &exchange[(threadIdx.x & ~31u) + (g < kGroupsPerWarp ? g * kGroup : 0)];
  const atc::Params p = atc::unpack_params(L.params + static_cast<long long>(tr) * atc::kNumSlots);
  const int n = static_cast<int>(L.sy.length[s]);
  const double* R = L.R + L.sy.offset[s];
  const int* slots = L.slots + static_cast<long long>(tr) * atc::kStreams + m * atc::kVariants;
  const atc::SignalWord* pool = L.pool + L.sy.words[s];
  atc::TypeState st;
  atc::TradeState trade;
  double G = 1.0;
  const int n_words = atc::signal_words(n);
  // Folds: the group's lane 0 (of a valid trial) keeps the row's fold statistics, the fold
  // its bars are joining held in shared memory (a cursor: the row's storage is global scratch,
  // read and written once per fold rather than once per bar; registers are at the bound).
  const bool keeps_folds = kFolds && valid && m == 0;
  const strategies::FoldBars folds = keeps_folds ? symbol_folds(L, s) : strategies::FoldBars{};
  const strategies::FoldView<atc::FoldStats> fold_stats =
      keeps_folds ? row_folds(L, row_of(L, s, trial)) : atc::no_fold_stats();
  strategies::reset_folds(fold_stats, folds.n);
  __shared__ strategies::FoldCursor<atc::FoldStats> cursors[kFolds ? kGroupedThreads / 32 * kGroupsPerWarp : 1];
  strategies::FoldCursor<atc::FoldStats>& cursor =
      cursors[keeps_folds ? static_cast<int>(threadIdx.x >> 5) * kGroupsPerWarp + g : 0];
  if (keeps_folds) strategies::start_folds(cursor);
  for (int w = 0; w < n_words; ++w) {
    atc::SignalWord cur[atc::kVariants];
#pragma unroll
    for (int k = 0; k < atc::kVariants; ++k) cur[k] = pool[static_cast<long long>(slots[k]) * L.sy.total_words + w];
    const int nb = min(32, n - w * 32);
    for (int b = 0; b < nb; ++b) {
      const int t = w * 32 + b;
      const double Rt = R[t];
      const double rg = Rt * G;
      G = G * p.growth;
      double P = 0.0, E = 1.0;
      if (t >= p.cutout) {
        if (t == p.cutout) atc::type_begin(st, cur, b);
        else atc::type_step(st, cur, b, rg, p.keep);
        P = st.l1 * st.E;
        E = st.E;
      }
      __syncwarp();  // the group's last reads of the previous bar are done
      exchange[threadIdx.x] = make_double2(P, E);
      __syncwarp();
      if (t >= p.cutout) {
        atc::Combiner c;
        c.first(group[0].x, group[0].y);
#pragma unroll
        for (int j = 1; j < atc::kNumTypes; ++j) c.add(group[j].x, group[j].y);
        if (t > p.cutout) {
          if constexpr (kFolds)
            atc::add_fold_return(cursor, fold_stats, folds, t, atc::trade_realize(trade, Rt, p.fee));
          else atc::trade_realize(trade, Rt, p.fee);
        }
        atc::trade_decide(trade, c.value(), p);
      }
    }
  }
  if (keeps_folds) strategies::flush_fold(cursor, fold_stats);
  if (valid && m == 0) write_row(L, s, trial, trade);
}

/// One thread per (trial, symbol): atc::run_symbol, the CPU's loop (the simple kernel, kept
/// for parity tests), or for a blocked strategy (docs/strategies.md, "Data subsets") atc::run_symbol_blocks over
/// the symbol's blocks, whose score is the symbol's objective.
template <bool kBlocked>
__global__ void thread_kernel(TrialLaunch L) {
  BlockOccupancy occupancy(L.probe);
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long long>(L.sy.n) * L.count) return;
  const int s = static_cast<int>(idx / L.count);
  const int trial = static_cast<int>(idx % L.count);
  const atc::Params p = atc::unpack_params(L.params + static_cast<long long>(trial) * atc::kNumSlots);
  const atc::SignalWord* words[atc::kStreams];
  for (int j = 0; j < atc::kStreams; ++j)
    words[j] = L.pool +
               static_cast<long long>(L.slots[static_cast<long long>(trial) * atc::kStreams + j]) * L.sy.total_words +
               L.sy.words[s];
  const strategies::FoldBars folds = L.folds.n > 0 ? symbol_folds(L, s) : strategies::FoldBars{};
  const strategies::FoldView<atc::FoldStats> fold_stats = row_folds(L, row_of(L, s, trial));
  strategies::reset_folds(fold_stats, folds.n);
  if constexpr (kBlocked) {
    atc::TradeState all;
    const int first = L.block_offset[s];
    const double score = atc::run_symbol_blocks(p, L.R + L.sy.offset[s], words, L.blocks + first,
                                                L.block_offset[s + 1] - first, L.objective, &all, folds, fold_stats);
    write_row(L, s, trial, all, &score);
  } else {
    write_row(L, s, trial,
              atc::run_symbol(p, L.R + L.sy.offset[s], static_cast<int>(L.sy.length[s]), words, atc::NoBarObserver{},
                              folds, fold_stats));
  }
}

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& h, cudaStream_t stream) {
  DeviceBuffer<T> d(std::max<std::size_t>(1, h.size()));
  if (!h.empty()) CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  return d;
}

std::vector<long long> as_ll(const std::vector<std::int64_t>& v) { return {v.begin(), v.end()}; }

/// A pinned staging area for one part's plan and the event after its upload.
struct PlanStage {
  PinnedBuffer<char> h;
  cudaEvent_t uploaded{};
  bool used = false;
};

class AtcDevice final : public DeviceStrategy {
 public:
  AtcDevice(const strategies::AtcStrategy& s, cudaStream_t stream, const AtcDeviceOptions& o)
      : options_(o), objective_(s.options().objective), spec_(s.aggregate_spec()) {
    n_symbols_ = static_cast<int>(s.symbol_names().size());
    total_words_ = s.total_words();
    d_close_ = upload(s.closes(), stream);
    d_ret_ = upload(s.returns(), stream);
    d_offset_ = upload(as_ll(s.offsets()), stream);
    d_length_ = upload(as_ll(s.lengths()), stream);
    d_words_ = upload(as_ll(s.word_offsets()), stream);
    std::vector<strategies::BarBlock> blocks;
    std::vector<int> block_offset{0};
    for (const auto& symbol_blocks : s.blocks()) {
      blocks.insert(blocks.end(), symbol_blocks.begin(), symbol_blocks.end());
      block_offset.push_back(static_cast<int>(blocks.size()));
    }
    blocked_ = !s.blocks().empty();
    d_blocks_ = upload(blocks, stream);
    d_block_offset_ = upload(block_offset, stream);
    n_folds_ = static_cast<int>(s.folds().n_folds());
    row_metrics_ = static_cast<int>(s.metric_names().size());
    std::vector<int> fold_edge, fold_embargo_end;  // per symbol, in its bars (symbol_folds)
    if (n_folds_ > 0) {
      for (int k = 0; k < n_symbols_; ++k) {
        const strategies::FoldBars f = s.fold_bars(static_cast<std::size_t>(k));
        fold_edge.insert(fold_edge.end(), f.edge, f.edge + f.n + 1);
        fold_embargo_end.insert(fold_embargo_end.end(), f.embargo_end, f.embargo_end + f.n);
      }
      rule_ = s.fold_rule();
      portfolio_ = spec_.aggregate == sym::Aggregate::Portfolio;
    }
    d_fold_edge_ = upload(fold_edge, stream);
    d_fold_embargo_end_ = upload(fold_embargo_end, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));  // host vectors may go once the copies are done
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // The series cache takes at most half of what is free, the per-symbol rows a quarter.
    const std::size_t series_bytes = static_cast<std::size_t>(total_words_) * sizeof(atc::SignalWord);
    std::size_t cap = free_bytes / 2 / std::max<std::size_t>(1, series_bytes);
    cap = std::min<std::size_t>(cap, static_cast<std::size_t>(atc::kNumTypes) * atc::kMaxLength);
    if (options_.max_series > 0) cap = std::min(cap, options_.max_series);
    if (cap < static_cast<std::size_t>(atc::kStreams))
      throw Error("executor cuda: not enough device memory for the atc signal series (" +
                  std::to_string(free_bytes >> 20) + " MiB free; need 54 x " + std::to_string(series_bytes >> 20) +
                  " MiB)");
    slots_ =
        SeriesSlots<int, DenseSlotTable>(cap, DenseSlotTable(static_cast<std::size_t>(atc::kNumTypes) * kLengthKeys));
    // A row: objective, equity, metrics (with folds, their columns and the fold statistics).
    const std::size_t row_bytes = static_cast<std::size_t>(n_symbols_) *
                                  ((2 + static_cast<std::size_t>(row_metrics_)) * sizeof(double) +
                                   static_cast<std::size_t>(n_folds_) * (sizeof(atc::FoldStats) + sizeof(double)));
    chunk_trials_ = std::max<std::size_t>(1, free_bytes / 4 / std::max<std::size_t>(1, row_bytes));
    if (options_.max_chunk_trials > 0) chunk_trials_ = std::min(chunk_trials_, options_.max_chunk_trials);
    in_part_.assign(static_cast<std::size_t>(atc::kNumTypes) * kLengthKeys, 0);
    for (auto& st : stages_) CUDA_CHECK(cudaEventCreateWithFlags(&st.uploaded, cudaEventDisableTiming));
  }

  ~AtcDevice() override {
    for (auto& st : stages_)
      if (st.uploaded) cudaEventDestroy(st.uploaded);
  }

  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    run(batch, stream, block_size);
  }

  /// launch(); the per-symbol rows of the last chunk stay in rows_*() ([symbol][trial]).
  void run(const DeviceBatch& batch, cudaStream_t stream, int block_size) {
    const std::size_t n = batch.n;
    if (n == 0) return;
    TPEOPT_ASSERT(batch.host_params != nullptr, "atc: the batch has no host copy of its parameters");
    keys_.resize(n * atc::kStreams);
    for (std::size_t i = 0; i < n; ++i) {
      const atc::Params p = atc::unpack_params(batch.host_params + i * atc::kNumSlots);
      for (int m = 0; m < atc::kNumTypes; ++m)
        for (int k = 0; k < atc::kVariants; ++k)
          keys_[i * atc::kStreams + m * atc::kVariants + k] =
              m * kLengthKeys + atc::variant_length(p.base[m], p.robustness, k);
    }
    for (std::size_t chunk = 0; chunk < n; chunk += chunk_trials_) {
      const std::size_t chunk_end = std::min(n, chunk + chunk_trials_), chunk_count = chunk_end - chunk;
      const std::size_t rows = chunk_count * static_cast<std::size_t>(n_symbols_);
      rows_objective_.resize(rows);
      rows_equity_.resize(rows);
      rows_metrics_.resize(rows * static_cast<std::size_t>(row_metrics_));
      fold_stats_.resize(std::max<std::size_t>(1, rows * static_cast<std::size_t>(n_folds_)));
      fold_sumsq_.resize(std::max<std::size_t>(1, rows * static_cast<std::size_t>(n_folds_)));
      std::size_t begin = chunk;
      while (begin < chunk_end) {
        // Grow the part while its distinct series fit in the cache.
        ++part_stamp_;
        std::vector<int> part_keys;
        std::size_t end = begin;
        while (end < chunk_end) {
          std::size_t fresh = 0;
          const int* k = &keys_[end * atc::kStreams];
          for (int j = 0; j < atc::kStreams; ++j) {
            bool dup = in_part_[k[j]] == part_stamp_;
            for (int q = 0; q < j && !dup; ++q) dup = k[q] == k[j];
            fresh += dup ? 0 : 1;
          }
          if (part_keys.size() + fresh > slots_.max_slots()) break;
          for (int j = 0; j < atc::kStreams; ++j)
            if (in_part_[k[j]] != part_stamp_) {
              in_part_[k[j]] = part_stamp_;
              part_keys.push_back(k[j]);
            }
          ++end;
        }
        TPEOPT_ASSERT(end > begin, "atc: a trial needs more series than the cache holds");
        run_part(batch, begin, end, chunk, chunk_count, part_keys, stream, block_size);
        begin = end;
      }
      launch_rows_aggregate(rows_objective_.data(), rows_equity_.data(), rows_metrics_.data(),
                            static_cast<int>(chunk_count), n_symbols_, spec_, batch.scores + chunk,
                            batch.violations + chunk, batch.metrics + chunk * static_cast<std::size_t>(row_metrics_),
                            stream, n_folds_, rule_);
    }
  }

  const double* rows_objective() const { return rows_objective_.data(); }
  const double* rows_equity() const { return rows_equity_.data(); }
  const double* rows_metrics() const { return rows_metrics_.data(); }
  int n_symbols() const { return n_symbols_; }
  /// Metrics in a row and in a trial's results: atc::kNumMetrics, then the fold columns.
  int row_metrics() const { return row_metrics_; }

 private:
  /// Room in the pool for `slots` series (a grown pool holds none).
  void ensure_pool(std::size_t slots, cudaStream_t stream) {
    if (!slots_.reserve(slots)) return;
    CUDA_CHECK(cudaStreamSynchronize(stream));  // kernels of earlier batches may still read the old pool
    pool_ = DeviceBuffer<atc::SignalWord>();
    pool_ = DeviceBuffer<atc::SignalWord>(slots_.slots() * static_cast<std::size_t>(total_words_));
  }

  void run_part(const DeviceBatch& batch, std::size_t begin, std::size_t end, std::size_t chunk,
                std::size_t chunk_count, const std::vector<int>& keys, cudaStream_t stream, int block_size) {
    ensure_pool(keys.size(), stream);
    std::vector<SignalTask> tasks;
    for (const auto& [k, slot] : slots_.place(keys)) tasks.push_back({k / kLengthKeys, k % kLengthKeys, slot});
    // Same type side by side: the signal kernel's warps then mostly run one code path.
    std::sort(tasks.begin(), tasks.end(), [](const SignalTask& a, const SignalTask& b) {
      return a.type != b.type ? a.type < b.type : a.length < b.length;
    });
    const std::size_t count = end - begin;
    std::vector<int> slots(count * atc::kStreams);
    for (std::size_t i = 0; i < count * atc::kStreams; ++i) slots[i] = slots_.slot(keys_[begin * atc::kStreams + i]);

    // Stage the plan in pinned memory (a ring of stages guarded by events) and upload it.
    const std::size_t b_slots = slots.size() * sizeof(int), b_tasks = tasks.size() * sizeof(SignalTask);
    const std::size_t o_tasks = align(b_slots), total = o_tasks + align(b_tasks);
    PlanStage& st = stages_[stage_next_];
    stage_next_ = (stage_next_ + 1) % stages_.size();
    if (st.used) CUDA_CHECK(cudaEventSynchronize(st.uploaded));
    st.h.resize(total);
    std::copy_n(reinterpret_cast<const char*>(slots.data()), b_slots, st.h.data());
    if (b_tasks > 0) std::copy_n(reinterpret_cast<const char*>(tasks.data()), b_tasks, st.h.data() + o_tasks);
    d_plan_.resize(total);  // stream order: earlier parts' kernels finished reading before this copy lands
    CUDA_CHECK(cudaMemcpyAsync(d_plan_.data(), st.h.data(), total, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaEventRecord(st.uploaded, stream));
    st.used = true;
    const char* plan = d_plan_.data();

    const Symbols sy{n_symbols_, d_offset_.data(), d_length_.data(), d_words_.data(), total_words_};
    if (!tasks.empty()) {
      const long long work = static_cast<long long>(n_symbols_) * static_cast<long long>(tasks.size());
      const int threads = 128;
      const unsigned blocks = static_cast<unsigned>(std::min<long long>((work + threads - 1) / threads, 1 << 20));
      signal_kernel<<<blocks, threads, 0, stream>>>(d_close_.data(), sy,
                                                    reinterpret_cast<const SignalTask*>(plan + o_tasks),
                                                    static_cast<int>(tasks.size()), pool_.data(), batch.probe);
      CUDA_CHECK_LAUNCH("atc signal_kernel");
    }
    TrialLaunch L;
    L.sy = sy;
    L.blocks = d_blocks_.data();
    L.block_offset = d_block_offset_.data();
    L.R = d_ret_.data();
    L.pool = pool_.data();
    L.slots = reinterpret_cast<const int*>(plan);
    L.params = batch.params + begin * atc::kNumSlots;
    L.count = static_cast<int>(count);
    L.warps_per_symbol = static_cast<int>((count + kGroupsPerWarp - 1) / kGroupsPerWarp);
    L.row_offset = static_cast<int>(begin - chunk);
    L.row_count = static_cast<int>(chunk_count);
    L.objective = objective_;
    L.objective_out = rows_objective_.data();
    L.equity_out = rows_equity_.data();
    L.metrics_out = rows_metrics_.data();
    L.probe = batch.probe;
    L.row_metrics = row_metrics_;
    L.folds = {n_folds_, d_fold_edge_.data(), d_fold_embargo_end_.data()};
    L.fold_stats = fold_stats_.data();
    L.fold_sumsq = fold_sumsq_.data();
    L.portfolio = portfolio_ ? 1 : 0;
    if (blocked_) {
      const int threads = gpu::launchable_block_size(thread_kernel<true>, block_size);
      const long long work = static_cast<long long>(n_symbols_) * L.count;
      thread_kernel<true><<<static_cast<unsigned>((work + threads - 1) / threads), threads, 0, stream>>>(L);
      CUDA_CHECK_LAUNCH("atc thread_kernel (blocked)");
    } else if (options_.grouped) {
      // The kernel's own block size (its launch bound and exchange buffer); results do not
      // depend on it.
      (void)block_size;
      const int threads = kGroupedThreads;
      const long long warps = static_cast<long long>(n_symbols_) * L.warps_per_symbol;
      const long long blocks = (warps * 32 + threads - 1) / threads;
      if (L.folds.n > 0) grouped_kernel<true><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(L);
      else grouped_kernel<false><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(L);
      CUDA_CHECK_LAUNCH("atc grouped_kernel");
    } else {
      const int threads = gpu::launchable_block_size(thread_kernel<false>, block_size);
      const long long work = static_cast<long long>(n_symbols_) * L.count;
      thread_kernel<false><<<static_cast<unsigned>((work + threads - 1) / threads), threads, 0, stream>>>(L);
      CUDA_CHECK_LAUNCH("atc thread_kernel");
    }
  }

  static std::size_t align(std::size_t b) { return (b + 255) / 256 * 256; }

  AtcDeviceOptions options_;
  atc::Objective objective_;
  sym::AggregateSpec spec_;
  int n_symbols_ = 0;
  long long total_words_ = 0;
  DeviceBuffer<double> d_close_, d_ret_;
  DeviceBuffer<long long> d_offset_, d_length_, d_words_;
  // Blocked strategies (docs/strategies.md, "Data subsets"): every symbol's blocks, and where each symbol's start.
  bool blocked_ = false;
  DeviceBuffer<strategies::BarBlock> d_blocks_;
  DeviceBuffer<int> d_block_offset_;
  // The series cache: slots_.slots() series of total_words_ words; slots_ says which key
  // (type * 1001 + length) each holds.
  DeviceBuffer<atc::SignalWord> pool_;
  SeriesSlots<int, DenseSlotTable> slots_{0};
  std::size_t chunk_trials_ = 1;
  std::vector<std::uint64_t> in_part_;
  std::uint64_t part_stamp_ = 0;
  std::vector<int> keys_;  // per trial of the batch: its 54 series keys
  DeviceBuffer<double> rows_objective_, rows_equity_, rows_metrics_;
  // Folds: the folds in each symbol's bars, and the rows' fold statistics (K per row).
  int n_folds_ = 0, row_metrics_ = atc::kNumMetrics;
  bool portfolio_ = false;
  strategies::FoldRule rule_{};
  DeviceBuffer<int> d_fold_edge_, d_fold_embargo_end_;
  DeviceBuffer<atc::FoldStats> fold_stats_;
  DeviceBuffer<double> fold_sumsq_;
  DeviceBuffer<char> d_plan_;
  std::array<PlanStage, 4> stages_;
  std::size_t stage_next_ = 0;
};

}  // namespace

std::unique_ptr<DeviceStrategy> make_atc_device(const strategies::AtcStrategy& strategy, cudaStream_t stream,
                                                const AtcDeviceOptions& options) {
  return std::make_unique<AtcDevice>(strategy, stream, options);
}

std::unique_ptr<DeviceStrategy> make_atc_twin(const strategies::Strategy& strategy, cudaStream_t stream) {
  return make_atc_device(dynamic_cast<const strategies::AtcStrategy&>(strategy), stream);
}

AtcGpuResults gpu_atc_evaluate(const strategies::AtcStrategy& strategy, const double* params, std::size_t n,
                               const AtcDeviceOptions& options, int block_size) {
  AtcGpuResults out;
  if (n == 0) return out;
  CUDA_CHECK(cudaSetDevice(0));
  OwnedStream owned;
  const cudaStream_t stream = owned.get();
  AtcDeviceOptions o = options;
  o.max_chunk_trials = n;  // one chunk: the rows of every trial stay on the device
  AtcDevice device(strategy, stream, o);
  // A row's and a trial's metrics: with folds, the fold columns too.
  const std::size_t M = static_cast<std::size_t>(device.row_metrics()),
                    S = static_cast<std::size_t>(device.n_symbols());
  PinnedBuffer<double> h_params;
  h_params.resize(n * atc::kNumSlots);
  std::copy_n(params, n * atc::kNumSlots, h_params.data());
  DeviceBuffer<double> d_params(n * atc::kNumSlots), d_scores(n), d_viol(n), d_metrics(n * M);
  CUDA_CHECK(cudaMemcpyAsync(d_params.data(), h_params.data(), n * atc::kNumSlots * sizeof(double),
                             cudaMemcpyHostToDevice, stream));
  const DeviceBatch batch{d_params.data(), h_params.data(), d_scores.data(), d_viol.data(), d_metrics.data(), n};
  device.run(batch, stream, block_size);
  out.scores.resize(n);
  out.violations.resize(n);
  out.metrics.resize(n * M);
  std::vector<double> obj(n * S), eq(n * S), met(n * S * M);
  CUDA_CHECK(cudaMemcpyAsync(out.scores.data(), d_scores.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(out.violations.data(), d_viol.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(
      cudaMemcpyAsync(out.metrics.data(), d_metrics.data(), n * M * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(
      cudaMemcpyAsync(obj.data(), device.rows_objective(), n * S * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(eq.data(), device.rows_equity(), n * S * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(
      cudaMemcpyAsync(met.data(), device.rows_metrics(), n * S * M * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  // [symbol][trial] -> [trial][symbol]
  out.objective.resize(n * S);
  out.equity.resize(n * S);
  out.symbol_metrics.resize(n * S * M);
  for (std::size_t s = 0; s < S; ++s)
    for (std::size_t i = 0; i < n; ++i) {
      out.objective[i * S + s] = obj[s * n + i];
      out.equity[i * S + s] = eq[s * n + i];
      for (std::size_t k = 0; k < M; ++k) out.symbol_metrics[(i * S + s) * M + k] = met[(s * n + i) * M + k];
    }
  return out;
}

}  // namespace tpeopt::gpu
