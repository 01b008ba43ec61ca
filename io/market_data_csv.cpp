#include "io/market_data_csv.hpp"

#include <algorithm>
#include <system_error>

#include "common/error.hpp"
#include "io/csv_rows.hpp"

namespace tpeopt::io {

namespace fs = std::filesystem;

bool market_file_day(const std::string& name, std::int64_t& day) {
  static const std::string prefix = "Raw_Market_data_", suffix = ".csv";
  if (name.size() != prefix.size() + 10 + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string d = name.substr(prefix.size(), 10);  // MM-DD-YYYY
  if (d[2] != '-' || d[5] != '-') return false;
  return parse_date(d.substr(0, 2) + "/" + d.substr(3, 2) + "/" + d.substr(6, 4), day);
}

std::vector<fs::path> list_market_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw make_error("{}: not a directory (data.market_dir)", dir.string());
  std::vector<std::pair<std::int64_t, fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::int64_t day = 0;
    if (e.is_regular_file() && market_file_day(e.path().filename().string(), day)) files.emplace_back(day, e.path());
  }
  if (ec) throw make_error("{}: cannot list the directory: {}", dir.string(), ec.message());
  if (files.empty())
    throw make_error("{}: no market data file (expected names like Raw_Market_data_01-31-2024.csv)", dir.string());
  std::sort(files.begin(), files.end());
  std::vector<fs::path> out;
  for (auto& f : files) out.push_back(std::move(f.second));
  return out;
}

void parse_market_csv(std::string_view text, const std::string& source, std::int64_t day,
                      const std::map<std::string, std::uint32_t, std::less<>>& keep, MarketRows& out) {
  CsvRows rows(text, source);
  if (!rows.next()) throw make_error("{}:1:1: empty file (expected a header)", source);
  const auto col = rows.find_columns({"Ticker", "Price", "Time"});
  const std::size_t need = std::max({col[0], col[1], col[2]}) + 1;
  while (rows.next()) {
    if (rows.size() < need)
      rows.fail(rows.size(), fmt::format("the row has {} fields, the header names at least {}", rows.size(), need));
    const auto it = keep.find(rows.field(col[0]));
    if (it == keep.end()) continue;
    double price = 0;
    if (!parse_csv_double(rows.field(col[1]), price))
      rows.fail(col[1], fmt::format("Price: \"{}\" is not a number", rows.field(col[1])));
    if (!(price > 0.0)) rows.fail(col[1], fmt::format("Price: {} is not positive", rows.field(col[1])));
    std::int64_t sec = 0;
    if (!parse_hms(rows.field(col[2]), sec))
      rows.fail(col[2], fmt::format("Time: \"{}\" is not a time HH:MM:SS", rows.field(col[2])));
    const float p = static_cast<float>(price);
    if (!(p > 0.0f)) rows.fail(col[1], fmt::format("Price: {} is not positive as float32", rows.field(col[1])));
    out.ticker.push_back(it->second);
    out.time.push_back(day * 86400 + sec);
    out.price.push_back(p);
  }
}

}  // namespace tpeopt::io
