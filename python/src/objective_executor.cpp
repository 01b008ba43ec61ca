#include "objective_executor.hpp"

#include <algorithm>
#include <cstring>

#include <nanobind/ndarray.h>

#include "common/error.hpp"
#include "engine/interrupt.hpp"

namespace nb = nanobind;

namespace tpeopt::python {

namespace {

using Column = nb::ndarray<const double, nb::numpy, nb::c_contig, nb::device::cpu>;

/// Copies a checked array of `count` values into `out`; a wrong shape here is the adapter's
/// bug (it checks the objective's output first), reported as such.
void copy_values(nb::handle array, std::size_t count, const char* what, std::vector<double>& out) {
  const Column c = nb::cast<Column>(array);
  if (c.size() != count)
    throw make_error("tpeopt internal error: the objective adapter returned {} {} values, expected {}", c.size(), what,
                     count);
  out.assign(c.data(), c.data() + count);
}

}  // namespace

ObjectiveExecutor::ObjectiveExecutor(nb::object adapter, std::size_t n_metrics)
    : adapter_(std::move(adapter)), n_metrics_(n_metrics) {}

engine::BatchResult ObjectiveExecutor::evaluate(const engine::BatchRequest& request) {
  // After Ctrl-C no new batch starts (as the CPU executor abandons its batch): the pipeline
  // stops untold here. A call already running is the user's code and runs to its end.
  if (engine::InterruptGuard::requested()) throw engine::Interrupted{};
  const auto begin = engine::Clock::now();
  engine::BatchResult out;
  out.batch_index = request.batch_index;
  out.first_trial = request.first_trial;
  out.n_trials = request.n_trials;
  out.n_metrics = n_metrics_;
  {
    nb::gil_scoped_acquire gil;
    // The objective gets an array of its own: it may keep it or write to it.
    auto* values = new double[std::max<std::size_t>(1, request.values.size())];
    std::memcpy(values, request.values.data(), request.values.size() * sizeof(double));
    nb::capsule owner(values, [](void* p) noexcept { delete[] static_cast<double*>(p); });
    nb::ndarray<nb::numpy, double, nb::ndim<2>> x(values, {request.n_trials, request.n_axes}, owner);
    // Throws nb::python_error (the adapter's ObjectiveError, or the objective's own error):
    // the pipeline carries it to the calling thread, where nanobind raises it again.
    const nb::object returned = adapter_(x, request.batch_index, request.first_trial);
    // None: the study was asked to stop before this batch (optimize's timeout, or a callback's
    // report.stop()): the pipeline stops untold here, as after Ctrl-C.
    if (returned.is_none()) throw engine::Interrupted{};
    const nb::tuple result = nb::cast<nb::tuple>(returned);
    if (result.size() != 3) throw Error("tpeopt internal error: the objective adapter returned no triple");
    copy_values(result[0], request.n_trials, "score", out.scores);
    copy_values(result[1], request.n_trials, "violation", out.violations);
    copy_values(result[2], request.n_trials * n_metrics_, "metric", out.metrics);
  }
  const auto end = engine::Clock::now();
  out.timings.begin = begin;
  out.timings.end = end;
  out.timings.busy_ms = std::chrono::duration<double, std::milli>(end - begin).count();
  return out;
}

}  // namespace tpeopt::python
