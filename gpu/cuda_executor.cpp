// The CUDA executor: data uploaded once (by the DeviceStrategy), pinned staging, device
// buffers and a stream per in-flight batch, device events for timing, and an occupancy
// probe per batch (strategies/device/occupancy.hpp).
#include "gpu/cuda_executor.hpp"

#include <algorithm>
#include <deque>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/device/device_strategy.hpp"
#include "strategies/device/occupancy.hpp"

namespace tpeopt::gpu {

bool cuda_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

int cuda_device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

std::string cuda_device_description() {
  int n = 0;
  if (const cudaError_t err = cudaGetDeviceCount(&n); err != cudaSuccess)
    return fmt::format("none ({})", cudaGetErrorString(err));
  if (n == 0) return "none (no CUDA device)";
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "unknown";
  return fmt::format("{} (sm_{}{}, {} SMs, {:.1f} GiB)", p.name, p.major, p.minor, p.multiProcessorCount,
                     static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
}

std::optional<DeviceMemory> cuda_device_memory(int device) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || device < 0 || device >= n) return std::nullopt;
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) return std::nullopt;
  DeviceMemory m;
  const bool ok = cudaMemGetInfo(&m.free, &m.total) == cudaSuccess;
  cudaSetDevice(previous);
  if (!ok) return std::nullopt;
  return m;
}

namespace {

using engine::BatchRequest;
using engine::BatchResult;
using engine::Clock;

/// Makes `device` current for a scope and restores the caller's device after it: an
/// executor of device 1 (several GPUs of a host) must not change which device the rest
/// of the thread's code talks to.
class ScopedDevice {
 public:
  // Never throws (destructors use it too): a failing cudaSetDevice surfaces at the next
  // checked call.
  explicit ScopedDevice(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = device;
    if (device != previous_) cudaSetDevice(device);
  }
  ~ScopedDevice() { cudaSetDevice(previous_); }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

/// One in-flight batch, with its own stream: batches of a twin that allows it
/// (DeviceStrategy::concurrent_launches) run at once, so that batch k+1's kernels start on
/// the SMs that batch k's last trials leave idle. A part's results sit in one device block,
/// [scores | violations | metrics] of its m trials, copied back with one cudaMemcpyAsync
/// into h_results at offset first * (2 + metrics) (each copy costs ~10 us: halving rungs
/// make many small batches).
struct Slot {
  OwnedStream stream;  // first member: destroyed last, once the buffers are gone
  PinnedBuffer<double> h_params, h_results;
  DeviceBuffer<double> d_params, d_results;
  DeviceBuffer<unsigned long long> d_probe;  ///< the batch's occupancy probe (strategies/device/occupancy.hpp)
  PinnedBuffer<unsigned long long> h_probe;
  std::size_t part = 1;  ///< trials per device part of this batch
  Event start, stop;
  BatchRequest request;  // header fields; values dropped after staging
};

class CudaExecutor final : public engine::Executor {
 public:
  CudaExecutor(const strategies::Strategy& strategy, engine::ParamBinding binding, const CudaExecutorOptions& options)
      : binding_(std::move(binding)), n_metrics_(strategy.metric_names().size()), options_(options) {
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (options_.device < 0 || options_.device >= count)
      throw make_error("executor cuda: device {} does not exist ({} CUDA device(s) found)", options_.device, count);
    ScopedDevice on(options_.device);  // everything below lives on options_.device
    int current = -1;
    CUDA_CHECK(cudaGetDevice(&current));
    if (current != options_.device) throw make_error("executor cuda: cannot make device {} current", options_.device);
    anchor_event_ = std::make_unique<Event>();
    CUDA_CHECK(cudaDeviceGetAttribute(&n_sm_, cudaDevAttrMultiProcessorCount, options_.device));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    device_strategy_ = make_device_strategy(strategy, stream_);
    concurrent_ = device_strategy_->concurrent_launches();
    CUDA_CHECK(cudaStreamSynchronize(stream_));  // the twin's uploads, before other streams read them
    part_trials_ = options_.max_part_trials;
    if (part_trials_ == 0) {
      // Per-batch device buffers of every in-flight slot may take half of what is free
      // once the strategy's data is on the device.
      std::size_t free_bytes = 0, total_bytes = 0;
      CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      const std::size_t per_trial = cuda_bytes_per_trial(binding_.n_slots(), n_metrics_);
      part_trials_ =
          std::max<std::size_t>(1, free_bytes / 2 / std::max<std::size_t>(1, options_.max_in_flight) / per_trial);
    }
    slots_.resize(std::max<std::size_t>(1, options_.max_in_flight));
    probe_ids_ = ProbeLayout::probe_ids(n_sm_);
    const std::size_t probe_words = ProbeLayout::words(probe_ids_);
    d_device_probe_.resize(DeviceProbeLayout::words(probe_ids_));
    h_device_probe_.resize(DeviceProbeLayout::words(probe_ids_));
    CUDA_CHECK(cudaMemsetAsync(d_device_probe_.data(), 0,
                               DeviceProbeLayout::words(probe_ids_) * sizeof(unsigned long long), stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (auto& s : slots_) {
      s = std::make_unique<Slot>();
      s->d_probe.resize(probe_words);
      s->h_probe.resize(probe_words);
    }
    anchor_clock();
  }

  ~CudaExecutor() override {
    ScopedDevice on(options_.device);
    // Batches dropped by a stopped run must finish before their buffers go.
    for (auto& s : slots_) cudaStreamSynchronize(s->stream.get());
    cudaStreamSynchronize(stream_);
    device_strategy_.reset();
    slots_.clear();
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda"; }
  std::size_t max_in_flight() const override { return slots_.size(); }

  bool oldest_ready() override {
    if (in_flight_.empty()) return true;
    ScopedDevice on(options_.device);
    const cudaError_t err = cudaEventQuery(in_flight_.front()->stop.get());
    if (err == cudaErrorNotReady) return false;
    CUDA_CHECK(err);
    return true;
  }

  void submit(BatchRequest request) override {
    // Called from the executor thread (or a multi-GPU worker): make this executor's
    // device current for the call, and give the thread its own device back after.
    ScopedDevice on(options_.device);
    if (in_flight_.empty()) anchor_clock();
    Slot& s = *slots_[next_slot_];
    next_slot_ = (next_slot_ + 1) % slots_.size();
    const std::size_t n = request.n_trials, p = binding_.n_slots();
    // Host staging holds the whole batch; the device buffers hold one part: a batch
    // larger than the part size (sized from free device memory) runs as consecutive
    // parts on the stream, with the same results (trials are independent).
    const std::size_t part = std::max<std::size_t>(1, std::min(n, part_trials_));
    const std::size_t per_trial = 2 + n_metrics_;
    s.part = part;
    s.h_params.resize(std::max<std::size_t>(1, n * p));
    s.h_results.resize(std::max<std::size_t>(1, n * per_trial));
    s.d_params.resize(part * p);
    s.d_results.resize(part * per_trial);
    for (std::size_t i = 0; i < n; ++i) binding_.fill(&request.values[i * request.n_axes], &s.h_params.data()[i * p]);

    const cudaStream_t stream = s.stream.get();
    // A twin that does not order its own launches gets them one after another, as on one stream.
    if (!concurrent_ && !in_flight_.empty()) CUDA_CHECK(cudaStreamWaitEvent(stream, in_flight_.back()->stop.get(), 0));
    // The probe starts empty: first = max (atomicMin), everything else 0.
    CUDA_CHECK(
        cudaMemsetAsync(s.d_probe.data(), 0, ProbeLayout::words(probe_ids_) * sizeof(unsigned long long), stream));
    CUDA_CHECK(cudaMemsetAsync(s.d_probe.data() + ProbeLayout::kFirst, 0xff, sizeof(unsigned long long), stream));
    CUDA_CHECK(cudaEventRecord(s.start.get(), stream));
    for (std::size_t off = 0; off < n; off += part) {
      const std::size_t m = std::min(part, n - off);
      CUDA_CHECK(cudaMemcpyAsync(s.d_params.data(), s.h_params.data() + off * p, m * p * sizeof(double),
                                 cudaMemcpyHostToDevice, stream));
      double* d = s.d_results.data();
      DeviceBatch batch{s.d_params.data(), s.h_params.data() + off * p, d, d + m, d + 2 * m, m};
      batch.probe = OccupancyProbe{s.d_probe.data(), probe_ids_, d_device_probe_.data()};
      device_strategy_->launch(batch, stream, options_.block_size);
      CUDA_CHECK(cudaMemcpyAsync(s.h_results.data() + off * per_trial, d, m * per_trial * sizeof(double),
                                 cudaMemcpyDeviceToHost, stream));
      // A device strategy may keep host-side staging per launch: let this part finish
      // before the next one plans (only split batches pay for it).
      if (off + m < n) CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    CUDA_CHECK(cudaMemcpyAsync(s.h_probe.data(), s.d_probe.data(),
                               ProbeLayout::result_words(probe_ids_) * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaEventRecord(s.stop.get(), stream));
    request.values.clear();
    request.values.shrink_to_fit();
    s.request = std::move(request);
    in_flight_.push_back(&s);
  }

  BatchResult complete() override {
    TPEOPT_ASSERT(!in_flight_.empty(), "complete() without a submitted batch");
    ScopedDevice on(options_.device);
    Slot& s = *in_flight_.front();
    in_flight_.pop_front();
    CUDA_CHECK(cudaEventSynchronize(s.stop.get()));
    const std::size_t n = s.request.n_trials;
    BatchResult r;
    r.batch_index = s.request.batch_index;
    r.first_trial = s.request.first_trial;
    r.n_trials = n;
    r.n_metrics = n_metrics_;
    r.scores.resize(n);
    r.violations.resize(n);
    r.metrics.resize(n * n_metrics_);
    const std::size_t per_trial = 2 + n_metrics_;
    for (std::size_t off = 0; off < n; off += s.part) {
      const std::size_t m = std::min(s.part, n - off);
      const double* h = s.h_results.data() + off * per_trial;
      std::copy_n(h, m, r.scores.begin() + static_cast<std::ptrdiff_t>(off));
      std::copy_n(h + m, m, r.violations.begin() + static_cast<std::ptrdiff_t>(off));
      std::copy_n(h + 2 * m, m * n_metrics_, r.metrics.begin() + static_cast<std::ptrdiff_t>(off * n_metrics_));
    }
    float begin_ms = 0, end_ms = 0, busy_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&begin_ms, anchor_event_->get(), s.start.get()));
    CUDA_CHECK(cudaEventElapsedTime(&end_ms, anchor_event_->get(), s.stop.get()));
    CUDA_CHECK(cudaEventElapsedTime(&busy_ms, s.start.get(), s.stop.get()));
    auto at = [&](float ms) {
      return anchor_time_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
    };
    r.timings.begin = at(begin_ms);
    r.timings.end = at(end_ms);
    r.timings.busy_ms = busy_ms;
    const SmTime sm = sm_time_from_probe(s.h_probe.data(), probe_ids_, n_sm_);
    r.timings.sm_busy_ms = sm.busy_ms;
    r.timings.sm_span_ms = sm.span_ms;
    r.timings.sm_new_span_ms = static_cast<double>(n_sm_) *
                               static_cast<double>(uncovered_span_ns(s.h_probe.data(), covered_until_ns_)) / 1e6;
    // The device-wide busy words are whole only while no batch runs: read them then.
    if (in_flight_.empty()) {
      CUDA_CHECK(cudaMemcpyAsync(h_device_probe_.data(), d_device_probe_.data(),
                                 static_cast<std::size_t>(probe_ids_) * sizeof(unsigned long long),
                                 cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      const unsigned long long busy = device_busy_ns(h_device_probe_.data(), probe_ids_);
      r.timings.sm_union_busy_ms = static_cast<double>(busy - device_busy_read_ns_) / 1e6;
      device_busy_read_ns_ = busy;
    }
    return r;
  }

  BatchResult evaluate(const BatchRequest& request) override {
    submit(request);
    while (in_flight_.size() > 1) complete();  // not reached by the engine: it drives submit/complete
    return complete();
  }

 private:
  // Maps device event times onto the host clock: an event recorded on an idle stream (with
  // no batch in flight) completes at once, so its device time and the host's "now" after
  // syncing agree.
  void anchor_clock() {
    CUDA_CHECK(cudaEventRecord(anchor_event_->get(), stream_));
    CUDA_CHECK(cudaEventSynchronize(anchor_event_->get()));
    anchor_time_ = Clock::now();
  }

  engine::ParamBinding binding_;
  std::size_t n_metrics_;
  CudaExecutorOptions options_;
  int n_sm_ = 1;
  int probe_ids_ = 2;      ///< ProbeLayout::probe_ids(n_sm_)
  cudaStream_t stream_{};  ///< the twin's uploads and the clock anchor; batches run on their slots' streams
  std::unique_ptr<DeviceStrategy> device_strategy_;
  bool concurrent_ = false;  ///< DeviceStrategy::concurrent_launches
  std::vector<std::unique_ptr<Slot>> slots_;
  std::size_t next_slot_ = 0;
  std::size_t part_trials_ = 1;  ///< trials per device part (see submit)
  std::deque<Slot*> in_flight_;
  unsigned long long covered_until_ns_ = 0;  ///< the end of the batches' kernel spans so far (uncovered_span_ns)
  DeviceBuffer<unsigned long long> d_device_probe_;  ///< DeviceProbeLayout: every batch's blocks, counted once per SM
  PinnedBuffer<unsigned long long> h_device_probe_;
  unsigned long long device_busy_read_ns_ = 0;  ///< device_busy_ns at the last read
  std::unique_ptr<Event> anchor_event_;  // made once options_.device is current
  Clock::time_point anchor_time_;
};

}  // namespace

std::unique_ptr<engine::Executor> make_cuda_executor(const strategies::Strategy& strategy, engine::ParamBinding binding,
                                                     const CudaExecutorOptions& options) {
  if (!cuda_available()) throw make_error("executor cuda: no usable CUDA device: {}", cuda_device_description());
  return std::make_unique<CudaExecutor>(strategy, std::move(binding), options);
}

}  // namespace tpeopt::gpu
