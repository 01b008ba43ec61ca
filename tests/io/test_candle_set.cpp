// io/candle_set and io/candles_generator (docs/strategies.md, "Candle data sets of many symbols"): one long CSV with
// a symbol column, a folder or a list of CSVs, contiguous storage with offsets and lengths, the
// multi-symbol cache, the config keys and their errors, and the generator's files reading
// back bit for bit.
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <unistd.h>  // for getpid
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "common/error.hpp"
#include "io/candle_set.hpp"
#include "io/candles_csv.hpp"
#include "io/candles_generator.hpp"
#include "support/bits.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tpeopt-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

std::string error_of(const std::string& text) {
  try {
    io::parse_candle_set_csv(text, "t.csv", "T");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

using tpeopt::testing::same_bits;

bool same_set(const CandleSet& a, const CandleSet& b) {
  return a.symbols == b.symbols && a.offset == b.offset && a.length == b.length && a.bars.time_ms == b.bars.time_ms &&
         same_bits(a.bars.open, b.bars.open) && same_bits(a.bars.high, b.bars.high) &&
         same_bits(a.bars.low, b.bars.low) && same_bits(a.bars.close, b.bars.close) &&
         same_bits(a.bars.volume, b.bars.volume);
}

const std::string kLong =
    "symbol,time,open,high,low,close,volume\n"
    "ZED,2020-01-02,10,11,9,10.5,100\n"
    "ABC,2020-01-01,1,2,0.5,1.5,10\n"
    "ZED,2020-01-03,10.5,12,10,11,200\n"
    "ABC,2020-01-02,1.5,2,1,1.8,20\n"
    "ABC,2020-01-03,1.8,2.2,1.7,2,30\n";

}  // namespace

TEST_CASE("candle set: a long CSV with a symbol column, stored contiguously in name order", "[cpu][io][multi]") {
  const CandleSet set = io::parse_candle_set_csv(kLong, "t.csv", "unused");
  REQUIRE(set.symbols == std::vector<std::string>{"ABC", "ZED"});
  CHECK(set.offset == std::vector<std::int64_t>{0, 3});
  CHECK(set.length == std::vector<std::int64_t>{3, 2});
  CHECK(set.bars.close == std::vector<double>{1.5, 1.8, 2.0, 10.5, 11.0});
  CHECK(set.sources[1] == "t.csv[ZED]");
  const Candles zed = set.symbol(1);
  CHECK(zed.size() == 2);
  CHECK(zed.open == std::vector<double>{10.0, 10.5});
  CHECK(zed.time_ms[1] - zed.time_ms[0] == 86'400'000);
  // Without a symbol column: one symbol of the given name; a symbol column is ignored by
  // the one-series parser.
  const CandleSet one =
      io::parse_candle_set_csv("time,open,high,low,close,volume\n2020-01-01,1,2,0.5,1.5,10\n", "t.csv", "ONE");
  CHECK(one.symbols == std::vector<std::string>{"ONE"});
  CHECK(io::parse_candles_csv("symbol,time,open,high,low,close,volume\nZED,2020-01-02,10,11,9,10.5,100\n"
                              "ABC,2020-01-03,1,2,0.5,1.5,10\n",
                              "t.csv")
            .size() == 2);
  CHECK(io::detect_candles_layout(kLong, "t.csv", {}, true).symbol >= 0);
  CHECK(io::detect_candles_layout("time,open,high,low,close,volume\n", "t.csv", {}, true).symbol < 0);
}

TEST_CASE("candle set: errors in a long CSV name file:line:column and the symbol", "[cpu][io][multi]") {
  const std::string head = "ticker,time,open,high,low,close,volume\n";
  struct Case {
    std::string text, where, what;
  };
  const Case c = GENERATE_COPY(
      Case{head + "A,2020-01-02,1,2,0.5,1.5,10\nB,2020-01-01,1,2,0.5,1.5,10\nA,2020-01-02,1,2,0.5,1.5,10\n",
           "t.csv:4:3:", "not after the previous bar of symbol A (line 2"},
      Case{head + "A,2020-01-02,1,2,0.5,1.5,10\n,2020-01-03,1,2,0.5,1.5,10\n", "t.csv:3:1:", "symbol: empty"},
      Case{head + "A,2020-01-02,1,2,0.5,x,10\n", "t.csv:2:22:", "close: cannot parse \"x\""},
      Case{head + "A,2020-01-02,1,2,0.5\n", "t.csv:2:", "expected 7 fields"},
      Case{"symbol,ticker,time,open,high,low,close,volume\n", "t.csv:1:8:", "a second symbol column"});
  const std::string e = error_of(c.text);
  CAPTURE(e);
  CHECK(e.rfind(c.where, 0) == 0);
  CHECK(e.find(c.what) != std::string::npos);
}

TEST_CASE("candle set: config data from a folder, a list, a long CSV, symbols selected", "[cpu][io][multi]") {
  const fs::path dir = temp_dir("candle-set");
  const fs::path cache = dir / "cache";
  fs::create_directories(dir / "many");
  write(dir / "many" / "BBB.csv",
        "time,open,high,low,close,volume\n2021-03-01,5,6,4,5.5,1\n2021-03-02,5.5,6,5,5.8,2\n");
  write(dir / "many" / "AAA.csv",
        "date,Open,High,Low,Close,Volume\n2020-01-01,1,2,0.5,1.5,10\n2020-01-02,1.5,2,1,1.8,20\n2020-01-03,1.8,2.2,1.7,"
        "2,30\n");
  write(dir / "many" / "notes.txt", "not a CSV");
  write(dir / "long.csv", kLong);
  using io::Json;

  SECTION("a folder: every *.csv, one symbol per file named by its stem") {
    const CandleSet set =
        io::load_candle_set_data(Json{{"candles_dir", (dir / "many").string()}, {"cache_dir", cache.string()}}, dir);
    REQUIRE(set.symbols == std::vector<std::string>{"AAA", "BBB"});
    CHECK(set.length == std::vector<std::int64_t>{3, 2});
    CHECK(set.offset == std::vector<std::int64_t>{0, 3});
    CHECK(set.bars.close[3] == 5.5);
    CHECK(set.symbol(0).source == (dir / "many" / "AAA.csv").string());
  }
  SECTION("a list of files (relative to the config's folder), a long CSV among them") {
    const CandleSet set = io::load_candle_set_data(Json{{"candles", Json::array({"many/BBB.csv", "long.csv"})},
                                                        {"cache_dir", cache.string()}},
                                                   dir);
    CHECK(set.symbols == std::vector<std::string>{"ABC", "BBB", "ZED"});
    CHECK(set.length == std::vector<std::int64_t>{3, 2, 2});
  }
  SECTION("one file, as before; symbols selected") {
    const CandleSet a = io::load_candle_set_data(Json{{"candles", "many/AAA.csv"}, {"cache_dir", ""}}, dir);
    CHECK(a.symbols == std::vector<std::string>{"AAA"});
    const Candles direct = io::read_candles_csv(dir / "many" / "AAA.csv");
    CHECK(a.bars.close == direct.close);
    const CandleSet z = io::load_candle_set_data(
        Json{{"candles", "long.csv"}, {"symbols", Json::array({"ZED"})}, {"cache_dir", cache.string()}}, dir);
    CHECK(z.symbols == std::vector<std::string>{"ZED"});
    CHECK(z.offset == std::vector<std::int64_t>{0});
    CHECK(z.bars.close == std::vector<double>{10.5, 11.0});
  }
  SECTION("the long CSV's cache round-trips, and a corrupt one is replaced") {
    const Json cfg{{"candles", "long.csv"}, {"cache_dir", cache.string()}};
    const CandleSet first = io::load_candle_set_data(cfg, dir);
    const auto id = io::candles_source_id(io::read_file_bytes(dir / "long.csv"));
    const fs::path file = io::candle_set_cache_path(cache, id);
    REQUIRE(fs::exists(file));
    CHECK(same_set(io::read_candle_set_cache(file, id, "x"), first));
    {
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(60);
      f.put('\x7f');
    }
    CHECK_THROWS_WITH(io::read_candle_set_cache(file, id, "x"), Catch::Contains("corrupt"));
    CHECK(same_set(io::load_candle_set_data(cfg, dir), first));
    CHECK(same_set(io::read_candle_set_cache(file, id, "x"), first));  // rewritten
  }
  SECTION("errors name the key") {
    auto err = [&](const Json& j) {
      try {
        io::load_candle_set_data(j, dir);
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK_THAT(err(Json{{"candles", "many/AAA.csv"}, {"candles_dir", "many"}}), Catch::Contains("exactly one of"));
    CHECK_THAT(err(Json::object()), Catch::Contains("exactly one of"));
    CHECK_THAT(err(Json{{"candles", Json::array({"many/AAA.csv", 3})}}), Catch::StartsWith("data.candles[1]"));
    CHECK_THAT(err(Json{{"candles", Json::array({"many/AAA.csv", "nope.csv"})}}),
               Catch::StartsWith("data.candles[1]: no such file"));
    CHECK_THAT(err(Json{{"candles_dir", "nope"}}), Catch::StartsWith("data.candles_dir: no such folder"));
    CHECK_THAT(err(Json{{"candles", "long.csv"}, {"symbols", Json::array({"ZED", "QQQ"})}, {"cache_dir", ""}}),
               Catch::StartsWith("data.symbols[1]: no symbol \"QQQ\""));
    CHECK_THAT(err(Json{{"candles", "long.csv"}, {"symbols", Json::array({"ZED", "ZED"})}, {"cache_dir", ""}}),
               Catch::StartsWith("data.symbols[1]") && Catch::Contains("twice"));
    CHECK_THAT(err(Json{{"candles", "long.csv"}, {"tickers", 1}}), Catch::StartsWith("data.tickers: unknown key"));
    // The same symbol from two files: both are named.
    write(dir / "ZED.csv", "time,open,high,low,close,volume\n2021-03-01,5,6,4,5.5,1\n");
    const std::string dup = err(Json{{"candles", Json::array({"long.csv", "ZED.csv"})}, {"cache_dir", ""}});
    CHECK_THAT(dup, Catch::Contains("symbol ZED appears twice") && Catch::Contains("long.csv[ZED]") &&
                        Catch::Contains("ZED.csv"));
    // A bad cell inside a folder's file: file:line:column.
    write(dir / "many" / "CCC.csv", "time,open,high,low,close,volume\n2021-03-01,5,6,4,oops,1\n");
    CHECK_THAT(err(Json{{"candles_dir", "many"}, {"cache_dir", ""}}), Catch::Contains("CCC.csv:2:18: close"));
  }
  fs::remove_all(dir);
}

TEST_CASE("candle generator: different lengths and starts, deterministic, files read back bit for bit",
          "[cpu][io][multi]") {
  io::CandleSetGeneratorOptions o;
  o.symbols = 12;
  o.bars = 300;
  o.min_bars = 100;
  o.seed = 5;
  const CandleSet a = io::generate_candle_set(o);
  REQUIRE(a.n_symbols() == 12);
  CHECK(a.symbols[0] == "SYM0000");
  CHECK(same_set(a, io::generate_candle_set(o)));
  std::set<std::int64_t> lengths, starts;
  for (std::size_t s = 0; s < a.n_symbols(); ++s) {
    CHECK(a.length[s] >= 100);
    CHECK(a.length[s] <= 300);
    lengths.insert(a.length[s]);
    starts.insert(a.bars.time_ms[static_cast<std::size_t>(a.offset[s])]);
    const Candles c = a.symbol(s);
    for (std::size_t i = 0; i < c.size(); ++i) {
      CHECK(c.high[i] >= std::max(c.open[i], c.close[i]));
      CHECK(c.low[i] <= std::min(c.open[i], c.close[i]));
      CHECK(c.low[i] > 0.0);
    }
  }
  CHECK(lengths.size() > 6);
  CHECK(starts.size() > 6);
  // Symbol s does not depend on how many symbols are generated.
  o.symbols = 3;
  const CandleSet b = io::generate_candle_set(o);
  CHECK(b.bars.close ==
        std::vector<double>(a.bars.close.begin(), a.bars.close.begin() + static_cast<std::ptrdiff_t>(b.n_bars())));

  const fs::path dir = temp_dir("candle-gen");
  io::write_candle_set_dir(a, dir / "dir");
  io::write_candle_set_long_csv(a, dir / "long.csv");
  using io::Json;
  const CandleSet from_dir = io::load_candle_set_data(Json{{"candles_dir", "dir"}, {"cache_dir", ""}}, dir);
  const CandleSet from_long = io::load_candle_set_data(Json{{"candles", "long.csv"}, {"cache_dir", ""}}, dir);
  CHECK(same_set(from_dir, a));
  CHECK(same_set(from_long, a));
  fs::remove_all(dir);
}
