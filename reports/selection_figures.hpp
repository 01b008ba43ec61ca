#pragma once
// The report's selection-bias section (docs/will-it-hold-up.md, "Where to find them"): the
// verdict, the DSR and PBO numbers, the distribution of the CSCV logits and the in-sample best's
// in-sample vs out-of-sample Sharpe ratio per split, from selection_bias.json.
#include <string>

#include "io/json_fields.hpp"

namespace tpeopt::engine {

/// Histogram of the logits lambda (splits at or left of 0 are the overfit ones). Empty
/// splits: a "no data" figure.
std::string logit_figure(const io::Json& splits);

/// One dot per split: the in-sample best's in-sample Sharpe ratio (x) against its
/// out-of-sample one (y), with the diagonal and y = 0.
std::string in_vs_out_figure(const io::Json& splits);

/// The whole <section>, or "" when the run directory has no statistics (a run before them,
/// or one stopped early). `selection`: selection_bias.json; `summary`: summary.json.
std::string selection_section(const io::Json& selection, const io::Json& summary);

}  // namespace tpeopt::engine
