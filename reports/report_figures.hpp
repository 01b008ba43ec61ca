#pragma once
// The figures of `tpeopt report`, each a self-contained inline <svg> element.
#include <cstddef>
#include <string>

#include "reports/run_report_data.hpp"

namespace tpeopt::engine {

/// Score per trial (points) and best so far (line), in objective.direction; infeasible
/// trials drawn as grey crosses, failed ones (NaN score) as red ticks under the plot.
std::string history_figure(const RunReportData& run);

/// One small histogram pair per parameter: its distribution among the top trials (top
/// 10% by rank, at least 10) against all trials. Numeric axes binned, categoricals by choice.
std::string params_figure(const RunReportData& run);

/// The last `last_batches` evaluated batches on two lanes, sampler (ask, tell) and
/// executor (busy, idle gaps), on timings.csv's common clock in ms.
std::string timeline_figure(const RunReportData& run, std::size_t last_batches);

/// The best trial's equity after each trade (reports/run_report_data.hpp), a line per symbol
/// (the first 8 by name), over time.
std::string equity_figure(const RunReportData& run);

/// Top trials count used by params_figure: 10% of `n_trials`, at least 10 (at most n).
std::size_t top_trial_count(std::size_t n_trials);

}  // namespace tpeopt::engine
