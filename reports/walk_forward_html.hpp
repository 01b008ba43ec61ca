#pragma once
// The HTML page of a walk-forward run's folds (`tpeopt report DIR` on its parent directory):
// the table storage/walk_forward.hpp writes, and a figure of each fold's best trial.
#include <string>

#include "io/json_fields.hpp"

namespace tpeopt::engine {

/// A self-contained HTML page: the folds' table (write_walk_forward_table's) and a figure of
/// the best trial's in-sample and out-of-sample score per fold.
std::string render_walk_forward_html(const io::Json& table, const std::string& title);

}  // namespace tpeopt::engine
