#pragma once
// The selection-bias statistics in the run directory (docs/will-it-hold-up.md, "Where to find
// them"): summary.json's "selection_bias" object, and selection_bias.json with every CSCV
// split for the report's figures.
#include <filesystem>

#include "io/json_fields.hpp"
#include "study/selection_pass.hpp"

namespace tpeopt::engine {

/// summary.json's "selection_bias": {"available", "verdict", "why_not"?, "trials", "top",
/// "sample", "sub_periods", "in_sample", "unit", "seconds", "dsr": {...}, "pbo": {...}}.
io::Json selection_bias_summary(const SelectionBias& s);

/// Writes DIR/selection_bias.json: the summary and, per CSCV split, the in-sample set (bits),
/// the in-sample best's in-sample and out-of-sample Sharpe ratios, its relative rank and logit.
void write_selection_bias(const std::filesystem::path& dir, const SelectionBias& s);

}  // namespace tpeopt::engine
