// io/candles_csv and io/candles_cache: every error names file:line:column; every time
// format of the real files parses; the binary cache round-trips and refuses bad files.
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <unistd.h>  // for getpid
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "io/candles_cache.hpp"
#include "io/candles_csv.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

const std::string kData = tpeopt::testing::data_dir();
const std::string head = "time,open,high,low,close,volume\n";

std::string error_of(const std::string& text) {
  try {
    io::parse_candles_csv(text, "t.csv");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tpeopt-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("candles CSV: every bad value is named by file:line:column", "[cpu][exhaustion][io]") {
  struct Case {
    std::string text, where, what;
  };
  const Case c = GENERATE(
      Case{head + "2020-01-01,1,2,0.5,1.5,10\n2020-01-02,x,2,0.5,1.5,10\n", "t.csv:3:12:", "open: cannot parse \"x\""},
      Case{head + "2020-01-01,1,2,0.5,1.5,10\n2020-13-02,1,2,0.5,1.5,10\n", "t.csv:3:1:", "time: cannot parse"},
      Case{head + "2020-01-02,1,2,0.5,1.5,10\n2020-01-01,1,2,0.5,1.5,10\n", "t.csv:3:1:", "not after the previous"},
      Case{head + "2020-01-02,1,2,0.5,1.5,10\n2020-01-02,1,2,0.5,1.5,10\n", "t.csv:3:1:", "not after the previous"},
      Case{head + "2020-01-01,1,1.4,0.5,1.5,10\n", "t.csv:2:14:", "high: 1.4 is below max(open, close) = 1.5"},
      Case{head + "2020-01-01,1,2,1.2,1.5,10\n", "t.csv:2:16:", "low: 1.2 is above min(open, close) = 1"},
      Case{head + "2020-01-01,1,2,0.5,1.5,-1\n", "t.csv:2:24:", "volume: -1 is negative"},
      Case{head + "2020-01-01,0,2,0.5,1.5,1\n", "t.csv:2:12:", "open: price 0 is not positive"},
      Case{head + "2020-01-01,1,2,-0.5,1.5,1\n", "t.csv:2:16:", "low: price -0.5 is not positive"},
      Case{head + "2020-01-01,1,2,0.5,nan,1\n", "t.csv:2:20:", "close: cannot parse \"nan\""},
      Case{head + "2020-01-01,1,2,0.5,inf,1\n", "t.csv:2:20:", "close: cannot parse \"inf\""},
      Case{head + "2020-01-01,1,2,0.5\n", "t.csv:2:", "expected 6 fields"},
      Case{"time,open,high,low,close\n2020-01-01,1,2,0.5,1.5\n", "t.csv:1:1:", "no volume column"},
      Case{"foo,open,high,low,close,volume\n", "t.csv:1:1:", "no time column"}, Case{head, "t.csv:2:1:", "no bars"},
      Case{"", "t.csv:1:1:", "empty file"});
  CAPTURE(c.text);
  const std::string e = error_of(c.text);
  CHECK_THAT(e, Catch::Contains(c.where));
  CHECK_THAT(e, Catch::Contains(c.what));
}

TEST_CASE("candles CSV: headers in any case and order, every time format", "[cpu][exhaustion][io]") {
  // Columns shuffled and capitalised, an extra column, CRLF line ends, quotes.
  const auto c = io::parse_candles_csv(
      "Volume,CLOSE,extra,Low,High,Open,TimeStamp\r\n5,1.5,x,0.5,2,1,1600000000\r\n6,\"1.6\",y,0.5,2,1,"
      "1600000060000\r\n",
      "t.csv");
  REQUIRE(c.size() == 2);
  CHECK(c.time_ms[0] == 1600000000000LL);  // Unix seconds
  CHECK(c.time_ms[1] == 1600000060000LL);  // Unix milliseconds
  CHECK(c.close[1] == 1.6);
  CHECK(c.volume[0] == 5.0);
  std::int64_t t = 0;
  REQUIRE(io::parse_time_ms("2023-03-01 02:00:00+02:00", t));
  CHECK(t == 1677628800000LL);  // = 2023-03-01 00:00:00 UTC
  REQUIRE(io::parse_time_ms("2023-03-01T00:00:00Z", t));
  CHECK(t == 1677628800000LL);
  REQUIRE(io::parse_time_ms("2023-02-28 19:00:00-0500", t));
  CHECK(t == 1677628800000LL);
  REQUIRE(io::parse_time_ms("2023-03-01 00:00:00.250", t));
  CHECK(t == 1677628800250LL);
  CHECK_FALSE(io::parse_time_ms("2023-02-29", t));  // not a leap year
  CHECK(io::parse_time_ms("2024-02-29", t));
  CHECK_FALSE(io::parse_time_ms("2023-03-01 25:00:00", t));
  CHECK_FALSE(io::parse_time_ms("2023-03-01 00:00:00+", t));
}

TEST_CASE("candles CSV: the real files parse with their time formats", "[cpu][exhaustion][io]") {
  struct F {
    const char* path;
    std::size_t bars;
    std::int64_t first_ms;
  };
  const F f = GENERATE(F{"backtesting-py/GOOG.csv", 2148, 1092873600000LL},             // 2004-08-19 (date)
                       F{"backtesting-py/EURUSD.csv", 5000, 1492592400000LL},           // 2017-04-19 09:00:00
                       F{"backtesting-py/BTCUSD.csv", 156, 1327968000000LL},            // 2012-01-31
                       F{"binance-1m/BTCUSDT_1m_2023-03.csv", 30240, 1677628800000LL},  // +00:00 offset
                       F{"binance-1m/BTCUSD_1m_2023-03.csv", 30240, 1677628800000LL},
                       F{"binance-1m/BTCUSDC_1m_2023-03.csv", 30240, 1677628800000LL});
  CAPTURE(f.path);
  const auto c = io::read_candles_csv(kData + "/" + f.path);
  CHECK(c.size() == f.bars);
  CHECK(c.time_ms.front() == f.first_ms);
  if (std::string(f.path).find("binance") != std::string::npos) CHECK(c.time_ms[1] - c.time_ms[0] == 60000);
}

TEST_CASE("candles cache: round trip, and clear errors on mismatch, truncation, bad magic", "[cpu][exhaustion][io]") {
  const fs::path dir = temp_dir("cache");
  const fs::path csv = kData + "/backtesting-py/GOOG.csv";
  const std::string bytes = io::read_file_bytes(csv);
  const auto id = io::candles_source_id(bytes);
  const auto parsed = io::read_candles_csv(csv);
  const fs::path file = dir / "c.bin";
  io::write_candles_cache(file, parsed, id);
  const auto back = io::read_candles_cache(file, id, csv.string());
  CHECK(back.time_ms == parsed.time_ms);
  CHECK(back.open == parsed.open);
  CHECK(back.volume == parsed.volume);
  CHECK(back.close == parsed.close);

  auto error_of_file = [&](const io::CandlesSourceId& expect) {
    try {
      io::read_candles_cache(file, expect, "x");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error_of_file({id.checksum ^ 1, id.size}), Catch::Contains("candles cache of another CSV"));
  fs::resize_file(file, fs::file_size(file) - 100);
  CHECK_THAT(error_of_file(id), Catch::Contains("truncated or corrupt"));
  { std::ofstream(file, std::ios::trunc) << "not a cache at all"; }
  CHECK_THAT(error_of_file(id), Catch::Contains("bad magic"));

  // load_candles: writes the cache in the cache dir, reads it back, replaces a corrupt one.
  const fs::path cdir = dir / "cachedir";
  const auto a = io::load_candles(csv, cdir);
  const fs::path cached = io::candles_cache_path(cdir, id);
  REQUIRE(fs::exists(cached));
  const auto b = io::load_candles(csv, cdir);
  CHECK(b.close == a.close);
  { std::ofstream(cached, std::ios::trunc) << "garbage"; }
  const auto c = io::load_candles(csv, cdir);
  CHECK(c.close == a.close);
  CHECK(io::read_candles_cache(cached, id, "x").size() == a.size());
  // An unusable cache dir is skipped without error.
  const fs::path blocked = dir / "blocked";
  { std::ofstream(blocked) << "a file, not a folder"; }
  CHECK(io::load_candles(csv, blocked / "sub").size() == a.size());
  fs::remove_all(dir);
}
