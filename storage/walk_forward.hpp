#pragma once
// Walk-forward (docs/user-guide.md, "Walk-forward"): the table of a
// walk-forward run's folds (walk_forward.json / walk_forward.csv in the parent run
// directory). Each fold is a run directory of its own (fold-1, ...),
// a study with parts (io::StudyConfig::has_parts) whose top.json holds the out-of-sample scores.
// The HTML page of the table is reports/walk_forward_html.hpp's.
#include <filesystem>
#include <string>

#include "config/study_config.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::engine {

/// "YYYY-MM-DD" of a time in seconds since 1970 (UTC).
std::string date_of(std::int64_t seconds);

/// The config of fold f (0-based) of a walk-forward config.
io::StudyConfig fold_config(const io::StudyConfig& parent, std::uint64_t fold);

/// Run directory of fold f (0-based): DIR/fold-<f + 1>.
std::filesystem::path fold_dir(const std::filesystem::path& parent_dir, std::uint64_t fold);

/// The folds' table, from the fold directories written so far: per fold its in-sample and
/// out-of-sample windows (first and last date, atoms), and when the fold has finished its
/// best trial, that trial's in-sample and out-of-sample score and the top K's Spearman
/// rank correlation. Writes walk_forward.json and walk_forward.csv into `parent_dir`.
io::Json write_walk_forward_table(const std::filesystem::path& parent_dir, const io::StudyConfig& parent,
                                  const strategies::Strategy& strategy);

/// A value of the folds' table as text: empty for null, numbers in their shortest form, strings
/// as they are (walk_forward.csv's cells; reports/walk_forward_html.hpp shows the same).
std::string walk_forward_cell(const io::Json& v);

}  // namespace tpeopt::engine
