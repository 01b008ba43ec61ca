#include "io/candle_data_config.hpp"

#include "common/error.hpp"
#include "io/candle_set.hpp"
#include "io/candles_config.hpp"
#include "io/candles_format.hpp"

namespace tpeopt::io {

namespace {

std::string path_at(const Json& v, const std::string& key) {
  if (!v.is_string()) throw make_error("{}: expected a CSV file path, got {}", key, json_type_name(v));
  if (v.get<std::string>().empty()) throw make_error("{}: expected a CSV file path, got an empty string", key);
  return v.get<std::string>();
}

}  // namespace

CandleDataConfig parse_candle_data_config(const Json& data, CandleSources sources, ConfigErrors* errors) {
  JsonFields f(data, "data");
  CandleDataConfig c;
  c.sources = sources;
  if (sources == CandleSources::OneSeries) {
    f.reject_unknown({"candles", "cache_dir", "time_format"}, errors);
    const std::string value = f.get_string("candles");
    if (value.empty()) throw make_error("data.candles: expected a CSV file path, got an empty string");
    c.candles.push_back(value);
  } else {
    f.reject_unknown({"candles", "candles_dir", "symbols", "cache_dir", "time_format"}, errors);
    if (f.has("candles") == f.has("candles_dir"))
      throw make_error(
          "data: expected exactly one of \"candles\" (a CSV file or a list of them) and \"candles_dir\" "
          "(a folder of CSV files)");
    if (f.has("candles")) {
      const Json& v = f.at("candles");
      if (v.is_array()) {
        if (v.empty()) throw make_error("data.candles: expected at least one CSV file");
        c.candles_list = true;
        for (std::size_t i = 0; i < v.size(); ++i)
          c.candles.push_back(path_at(v[i], fmt::format("data.candles[{}]", i)));
      } else if (v.is_string()) {
        c.candles.push_back(path_at(v, "data.candles"));
      } else {
        throw make_error("data.candles: expected a CSV file path or a list of them, got {}", json_type_name(v));
      }
    } else {
      c.candles_dir = f.get_string("candles_dir");
      if (c.candles_dir.empty()) throw make_error("data.candles_dir: expected a folder, got an empty string");
    }
    if (f.has("symbols")) {
      const Json& list = f.at("symbols");
      if (!list.is_array() || list.empty())
        throw make_error("data.symbols: expected a non-empty list of symbol names, got {}", json_type_name(list));
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string())
          throw make_error("data.symbols[{}]: expected a symbol name, got {}", i, json_type_name(list[i]));
        c.symbols.push_back(list[i].get<std::string>());
      }
    }
  }
  if (f.has("cache_dir")) c.cache_dir = f.get_string("cache_dir");
  if (f.has("time_format")) {
    c.time_format = f.get_string("time_format");
    check_time_format(c.time_format, "data.time_format");
  }
  return c;
}

Json CandleDataConfig::to_json() const {
  Json j = Json::object();
  if (!candles.empty()) {
    if (candles_list) j["candles"] = candles;
    else j["candles"] = candles.front();
  } else {
    j["candles_dir"] = candles_dir;
  }
  if (!symbols.empty()) j["symbols"] = symbols;
  if (cache_dir) j["cache_dir"] = *cache_dir;
  if (!time_format.empty()) j["time_format"] = time_format;
  return j;
}

// Both loaders read the object this config writes: the shape was checked at load, the
// loaders check the files.
CandleSet load_candle_set(const CandleDataConfig& config, const std::filesystem::path& base_dir, bool require_volume) {
  TPEOPT_ASSERT(config.sources == CandleSources::Many, "load_candle_set: a one-series data config");
  return load_candle_set_data(config.to_json(), base_dir, require_volume);
}

Candles load_one_series(const CandleDataConfig& config, const std::filesystem::path& base_dir) {
  TPEOPT_ASSERT(config.sources == CandleSources::OneSeries, "load_one_series: a data config of many symbols");
  return load_candles_data(config.to_json(), base_dir);
}

}  // namespace tpeopt::io
