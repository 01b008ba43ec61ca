#pragma once
// `tpeopt report`: one self-contained HTML page for a run directory (no network, no
// scripts, no external fonts): a summary header, three inline SVG figures in elements
// with ids fig-history, fig-params and fig-timeline (not for an exact grid, which keeps no
// per-trial record), a table of the top trials with their metrics, the data, and the best
// trial's equity curve (fig-equity).
#include <cstddef>
#include <filesystem>
#include <string>

#include "reports/run_report_data.hpp"

namespace tpeopt::engine {

struct ReportOptions {
  std::size_t last_batches = 20;  ///< batches shown on the timeline
};

/// The whole page.
std::string render_report_html(const RunReportData& run, const ReportOptions& options);

/// Writes `html` to `path` atomically (a temporary file next to it, then a rename).
void write_report_file(const std::filesystem::path& path, const std::string& html);

}  // namespace tpeopt::engine
