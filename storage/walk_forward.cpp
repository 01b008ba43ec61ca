#include "storage/walk_forward.hpp"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/floor_div.hpp"
#include "io/csv_rows.hpp"
#include "study/data_subsets.hpp"

namespace tpeopt::engine {

namespace fs = std::filesystem;

std::string date_of(std::int64_t seconds) {
  const std::int64_t days = floor_div(seconds, 86400);
  std::int64_t y;
  unsigned m, d;
  io::civil_from_days(days, y, m, d);
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

io::StudyConfig fold_config(const io::StudyConfig& parent, std::uint64_t fold) {
  TPEOPT_ASSERT(parent.walk_forward.enabled() && fold < parent.walk_forward.folds, "fold_config: no such fold");
  io::StudyConfig c = parent;
  c.walk_forward.fold = static_cast<std::int64_t>(fold);
  return c;
}

fs::path fold_dir(const fs::path& parent_dir, std::uint64_t fold) {
  return parent_dir / fmt::format("fold-{}", fold + 1);
}

namespace {

std::optional<io::Json> read_json_if(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  io::Json j = io::Json::parse(s.str(), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

io::Json window_json(const strategies::Strategy& s, const std::vector<AtomRange>& w) {
  return {{"first", date_of(s.atom_time_s(w.front().begin))},
          {"last", date_of(s.atom_time_s(w.back().end - 1))},
          {"atoms", atom_count(w)}};
}

}  // namespace

std::string walk_forward_cell(const io::Json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

io::Json write_walk_forward_table(const fs::path& parent_dir, const io::StudyConfig& parent,
                                  const strategies::Strategy& strategy) {
  const auto windows = walk_forward_windows(strategy, parent.walk_forward);
  io::Json folds = io::Json::array();
  std::string csv =
      "fold,in_first,in_last,in_atoms,out_first,out_last,out_atoms,complete,best_trial,in_sample_score,"
      "out_of_sample_score,spearman\n";
  for (std::uint64_t f = 0; f < parent.walk_forward.folds; ++f) {
    io::Json row = {{"fold", f + 1},
                    {"dir", fold_dir(parent_dir, f).filename().string()},
                    {"in_sample", window_json(strategy, windows[f])},
                    {"out_of_sample", window_json(strategy, windows[f + 1])},
                    {"complete", false},
                    {"best_trial", nullptr},
                    {"in_sample_score", nullptr},
                    {"out_of_sample_score", nullptr},
                    {"spearman", nullptr}};
    const auto summary = read_json_if(fold_dir(parent_dir, f) / "summary.json");
    const auto top = read_json_if(fold_dir(parent_dir, f) / "top.json");
    if (summary && top) {
      row["complete"] = summary->value("complete", false);
      if (summary->contains("holdout")) row["spearman"] = (*summary)["holdout"].value("spearman", io::Json(nullptr));
      if (top->is_array() && !top->empty()) {
        const io::Json& best = (*top)[0];
        row["best_trial"] = best.value("trial", io::Json(nullptr));
        row["in_sample_score"] = best.value("score", io::Json(nullptr));
        if (best.contains("out_of_sample"))
          row["out_of_sample_score"] = best["out_of_sample"].value("score", io::Json(nullptr));
      }
    }
    const auto cell = walk_forward_cell;
    csv +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", f + 1, cell(row["in_sample"]["first"]),
                    cell(row["in_sample"]["last"]), cell(row["in_sample"]["atoms"]),
                    cell(row["out_of_sample"]["first"]), cell(row["out_of_sample"]["last"]),
                    cell(row["out_of_sample"]["atoms"]), row["complete"].get<bool>() ? 1 : 0, cell(row["best_trial"]),
                    cell(row["in_sample_score"]), cell(row["out_of_sample_score"]), cell(row["spearman"]));
    folds.push_back(row);
  }
  io::Json table = {{"folds", parent.walk_forward.folds},
                    {"unit", strategy.atoms_are_slices() ? "trading days" : "bars"},
                    {"fold_results", folds}};
  write_file_atomically(parent_dir / "walk_forward.json", table.dump(2) + "\n", true);
  write_file_atomically(parent_dir / "walk_forward.csv", csv, true);
  return table;
}

}  // namespace tpeopt::engine
