// trade_filter preparation: windows, paths, dropped tickers, empty windows, every error
// case (file:line:column) and the binary cache (round trip, truncation, corruption).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "strategies/trade_filter/trade_filter_cache.hpp"
#include "strategies/trade_filter/trade_filter_prepare.hpp"
#include "support/files.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

const char* kMarketHeader =
    "Ticker,Price,Val,Avg,Atr14,Atr28,Rsi,Volume,Adx28,Adx14,Adx7,Volatility Percent,Volatility Ratio,Time\n";
const char* kLogHeader =
    "Date,Trade Id,Ticker,Entry Price,Exit Price,Entry Time,Exit Time,Worst Exit Percent,Entry Volatility Percent,"
    "Entry Volatility Ratio,Entry Adx28,Entry Adx14,Entry Adx7,Trade Best Exit Percent,Trade Percent Change\n";

std::string mrow(const char* ticker, double price, const char* time) {
  return std::string(ticker) + "," + std::to_string(price) + ",1,1,1,1,50,100,20,20,20,0.5,1.0," + time + "\n";
}

struct TempDir {
  fs::path dir;
  explicit TempDir(const std::string& name) : dir(fs::temp_directory_path() / ("tpeopt_test_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir / "market");
  }
  ~TempDir() { fs::remove_all(dir); }
  void write(const fs::path& rel, const std::string& text) const { std::ofstream(dir / rel) << text; }
  io::TradeFilterInputs inputs() const { return {dir / "market", dir / "trades.csv", {"SOXL", "MARA"}}; }
};

/// A valid small data set: SOXL at 10, 10.1, 9.9, 10.2 at 09:30:00..03 on 01/02/2024,
/// MARA and TSLA rows mixed in; trades: SOXL 09:30:01-09:30:03 (3 rows), MARA with an
/// empty window, TSLA (dropped).
void write_valid(const TempDir& t) {
  t.write("market/Raw_Market_data_01-02-2024.csv", std::string(kMarketHeader) + mrow("SOXL", 10.0, "09:30:00") +
                                                       mrow("TSLA", 200, "09:30:00") + mrow("SOXL", 10.1, "09:30:01") +
                                                       mrow("MARA", 5.0, "09:30:01") + mrow("SOXL", 9.9, "09:30:02") +
                                                       mrow("SOXL", 10.2, "09:30:03") + mrow("SOXL", 10.3, "09:30:04"));
  t.write("market/Raw_Market_data_01-03-2024.csv", std::string(kMarketHeader) + mrow("SOXL", 11.0, "09:30:02"));
  t.write("market/notes.txt", "ignored");
  t.write("trades.csv", std::string(kLogHeader) +
                            "01/02/2024,1,SOXL,10.0,10.2,09:30:01,09:30:03,-1,0.5,0.9,25,26,27,2,1.5\n"
                            "2024-01-02,2,MARA,5.0,5.1,10:00:00,10:05:00,-1,0.2,0.3,10,11,12,2,2.0\n"
                            "01/02/2024,3,TSLA,200,201,09:30:00,09:30:05,-1,0.2,0.3,10,11,12,2,0.5\n");
}

void require_error(const TempDir& t, const std::string& where, const std::string& what) {
  try {
    io::prepare_trade_filter_data(t.inputs());
    FAIL("no error");
  } catch (const Error& e) {
    const std::string msg = e.what();
    CAPTURE(msg);
    REQUIRE(msg.find(where) != std::string::npos);
    REQUIRE(msg.find(what) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("trade_filter preparation: windows, paths, dropped and empty trades", "[cpu][trade_filter]") {
  TempDir t("tf_prepare");
  write_valid(t);
  const auto d = io::prepare_trade_filter_data(t.inputs());
  REQUIRE(d.tickers == std::vector<std::string>{"MARA", "SOXL"});
  REQUIRE(d.prices.size() == 7);  // 1 MARA + 6 SOXL
  REQUIRE(d.ticker_offset == std::vector<std::uint64_t>{0, 1, 7});
  REQUIRE(d.n_trades() == 2);
  REQUIRE(d.dropped_trades == 1);
  REQUIRE(d.empty_windows == 1);
  // SOXL trade: rows 09:30:01, :02, :03 of 01/02 (global rows 2, 3, 4)
  REQUIRE(d.ticker[0] == 1);
  REQUIRE(d.window_start[0] == 2);
  REQUIRE(d.window_len[0] == 3);
  const double prices[3] = {10.1, 9.9, 10.2};
  for (int k = 0; k < 3; ++k) {
    const float expected =
        static_cast<float>((static_cast<double>(static_cast<float>(prices[k])) / 10.0 - 1.0) * 100.0);
    REQUIRE(d.path[d.path_offset[0] + k] == expected);
  }
  REQUIRE(d.volatility[0] == 0.5f);
  REQUIRE(d.adx7[0] == 27.0f);
  REQUIRE(d.logged_pct[0] == 1.5);
  REQUIRE(d.logged_q[0] == 1500000000);
  // MARA trade: no row between 10:00:00 and 10:05:00
  REQUIRE(d.window_len[1] == 0);
  REQUIRE(d.path_offset[2] - d.path_offset[1] == 0);
  // record highs of the SOXL path: +1% at 0, +2% at 2; lows: +1% at 0, -1% at 1
  REQUIRE(d.up_offset[1] - d.up_offset[0] == 2);
  REQUIRE(d.up_pos[0] == 0);
  REQUIRE(d.up_pos[1] == 2);
  REQUIRE(d.down_pos[1] == 1);
  REQUIRE(d.sources.size() == 3);  // the log and two market files
}

TEST_CASE("trade_filter preparation errors name file, line and column", "[cpu][trade_filter]") {
  TempDir t("tf_errors");
  write_valid(t);
  const std::string log_ok =
      std::string(kLogHeader) + "01/02/2024,1,SOXL,10.0,10.2,09:30:01,09:30:03,-1,0.5,0.9,25,26,27,2,1.5\n";
  SECTION("missing column in the log") {
    t.write("trades.csv", "Date,Trade Id,Ticker\n01/02/2024,1,SOXL\n");
    require_error(t, "trades.csv:1:1", "missing column \"Entry Price\"");
  }
  SECTION("missing column in a market file") {
    t.write("market/Raw_Market_data_01-02-2024.csv", "Ticker,Val,Time\nSOXL,1,09:30:00\n");
    require_error(t, "Raw_Market_data_01-02-2024.csv:1:1", "missing column \"Price\"");
  }
  SECTION("unparsable number") {
    t.write("trades.csv",
            std::string(kLogHeader) + "01/02/2024,1,SOXL,10.0,10.2,09:30:01,09:30:03,-1,abc,0.9,25,26,27,2,1.5\n");
    require_error(t, "trades.csv:2:50", "Entry Volatility Percent: \"abc\" is not a number");
  }
  SECTION("unparsable time") {
    t.write("trades.csv",
            std::string(kLogHeader) + "01/02/2024,1,SOXL,10.0,10.2,9h30,09:30:03,-1,0.5,0.9,25,26,27,2,1.5\n");
    require_error(t, "trades.csv:2:29", "Entry Time: \"9h30\" is not a time");
  }
  SECTION("unparsable date") {
    t.write("trades.csv",
            std::string(kLogHeader) + "13/02/2024,1,SOXL,10.0,10.2,09:30:01,09:30:03,-1,0.5,0.9,25,26,27,2,1.5\n");
    require_error(t, "trades.csv:2:1", "Date: \"13/02/2024\"");
  }
  SECTION("unparsable market time") {
    t.write("market/Raw_Market_data_01-02-2024.csv", std::string(kMarketHeader) + mrow("SOXL", 10.0, "09:61:00"));
    t.write("trades.csv", log_ok);
    require_error(t, "Raw_Market_data_01-02-2024.csv:2:", "Time: \"09:61:00\"");
  }
  SECTION("zero market price") {
    t.write("market/Raw_Market_data_01-02-2024.csv", std::string(kMarketHeader) + mrow("SOXL", 10.0, "09:30:00") +
                                                         "SOXL,0,1,1,1,1,50,100,20,20,20,0.5,1.0,09:30:01\n");
    t.write("trades.csv", log_ok);
    require_error(t, "Raw_Market_data_01-02-2024.csv:3:6", "Price: 0 is not positive");
  }
  SECTION("negative entry price") {
    t.write("trades.csv",
            std::string(kLogHeader) + "01/02/2024,1,SOXL,-10.0,10.2,09:30:01,09:30:03,-1,0.5,0.9,25,26,27,2,1.5\n");
    require_error(t, "trades.csv:2:19", "Entry Price: -10 is not positive");
  }
  SECTION("zero exit price") {
    t.write("trades.csv",
            std::string(kLogHeader) + "01/02/2024,1,SOXL,10.0,0,09:30:01,09:30:03,-1,0.5,0.9,25,26,27,2,1.5\n");
    require_error(t, "trades.csv:2:24", "Exit Price: 0 is not positive");
  }
  SECTION("exit before entry") {
    t.write("trades.csv",
            std::string(kLogHeader) + "01/02/2024,1,SOXL,10.0,10.2,09:30:03,09:30:01,-1,0.5,0.9,25,26,27,2,1.5\n");
    require_error(t, "trades.csv:2:38", "Exit Time 09:30:01 is before Entry Time 09:30:03");
  }
  SECTION("short row") {
    t.write("trades.csv", std::string(kLogHeader) + "01/02/2024,1,SOXL,10.0\n");
    require_error(t, "trades.csv:2:", "the row has 4 fields");
  }
}

TEST_CASE("trade_filter cache: round trip, truncation and corruption", "[cpu][trade_filter]") {
  TempDir t("tf_cache");
  write_valid(t);
  const auto d = io::prepare_trade_filter_data(t.inputs());
  const fs::path cache = t.dir / "c.tfc";
  io::write_trade_filter_cache(d, cache);
  REQUIRE(testing::temporaries_beside(cache).empty());
  const auto e = io::read_trade_filter_cache(cache);
  REQUIRE(e.path == d.path);
  REQUIRE(e.up_value == d.up_value);
  REQUIRE(e.logged_q == d.logged_q);
  REQUIRE(e.tickers == d.tickers);
  REQUIRE(e.sources.size() == d.sources.size());
  REQUIRE(e.sources[0].checksum == d.sources[0].checksum);
  REQUIRE(e.empty_windows == 1);

  std::string bytes;
  {
    std::ifstream in(cache, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  SECTION("truncated") {
    std::ofstream(cache, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 20);
    REQUIRE_THROWS_WITH(io::read_trade_filter_cache(cache), Catch::Contains("not a valid trade_filter cache"));
  }
  SECTION("corrupt byte") {
    bytes[bytes.size() / 2] ^= 0x5a;
    std::ofstream(cache, std::ios::binary | std::ios::trunc) << bytes;
    REQUIRE_THROWS_WITH(io::read_trade_filter_cache(cache), Catch::Contains("not a valid trade_filter cache"));
  }
  SECTION("bad magic") {
    bytes[0] = 'X';
    std::ofstream(cache, std::ios::binary | std::ios::trunc) << bytes;
    REQUIRE_THROWS_WITH(io::read_trade_filter_cache(cache), Catch::Contains("bad magic"));
  }
}
