// The hand-written binary formats keep their bytes (docs/design.md, "Data and run-directory
// formats"): files written by earlier tpeopt versions, the fixtures in tests/io/fixtures/,
// still read with the same contents, and the same contents are written again byte for byte.
// The fixtures were written by the code before the formats shared common/binary_format.hpp.
// TPEOPT_WRITE_BINARY_FIXTURES=1 rewrites them instead of comparing (for a deliberate format
// change, which also bumps the format's version).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/candles.hpp"
#include "io/candle_set.hpp"
#include "io/candles_cache.hpp"
#include "storage/journal.hpp"
#include "strategies/trade_filter/trade_filter_cache.hpp"
#include "support/bits.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

fs::path fixture(const std::string& name) { return fs::path(testing::source_dir()) / "tests/io/fixtures" / name; }

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool rewriting() {
  const char* env = std::getenv("TPEOPT_WRITE_BINARY_FIXTURES");
  return env && std::string(env) == "1";
}

/// A fresh path in the temporary folder for the test's own output.
fs::path scratch(const std::string& name) {
  static const fs::path dir = testing::make_process_temp_dir("binary-formats");
  const fs::path p = dir / name;
  fs::remove(p);
  return p;
}

/// Writes `write(path)` to a scratch file, then requires its bytes to equal the fixture's
/// (or, when rewriting, makes it the fixture).
template <typename Write>
void same_bytes_as_fixture(const std::string& name, Write write) {
  const fs::path out = scratch(name);
  write(out);
  if (rewriting()) {
    fs::create_directories(fixture(name).parent_path());
    fs::copy_file(out, fixture(name), fs::copy_options::overwrite_existing);
    WARN("rewrote " << fixture(name).string());
    return;
  }
  const std::string expected = bytes_of(fixture(name)), got = bytes_of(out);
  CAPTURE(name, expected.size(), got.size());
  REQUIRE(got.size() == expected.size());
  REQUIRE(got == expected);
}

const io::CandlesSourceId kSource{0x0123456789abcdefULL, 77};

Candles three_bars() {
  Candles c;
  c.time_ms = {1'600'000'000'000, 1'600'003'600'000, 1'600'007'200'000};
  c.open = {1.5, 2.25, -0.0};
  c.high = {1.75, 2.5, 1e300};
  c.low = {1.25, 2.0, -1e-300};
  c.close = {1.625, 2.125, 3.0};
  c.volume = {100.0, 0.0, 12345.678};
  return c;
}

CandleSet two_symbols() {
  CandleSet s;
  s.symbols = {"AAA", "BBBB"};
  s.offset = {0, 2};
  s.length = {2, 1};
  s.bars = three_bars();
  return s;
}

strategies::TradeFilterData two_trades() {
  strategies::TradeFilterData d;
  d.tickers = {"AAA"};
  d.prices = {10.0f, 10.5f, 9.75f, 11.0f};
  d.ticker_offset = {0, 4};
  d.ticker = {0, 0};
  d.entry_time = {1'600'000'000, 1'600'000'060};
  d.exit_time = {1'600'000'120, 1'600'000'180};
  d.volatility = {0.5f, 1.5f};
  d.ratio = {0.25f, 0.75f};
  d.adx28 = {20.0f, 30.0f};
  d.adx14 = {21.0f, 31.0f};
  d.adx7 = {22.0f, 32.0f};
  d.entry_price = {10.0, 9.75};
  d.logged_pct = {-2.5, 12.8205};
  d.logged_q = {-250000, 1282050};
  d.window_start = {0, 2};
  d.window_len = {3, 2};
  d.path_offset = {0, 3, 5};
  d.path = {0.0f, 5.0f, -2.5f, 0.0f, 12.8205f};
  d.up_offset = {0, 1, 2};
  d.up_value = {5.0f, 12.8205f};
  d.up_pos = {1, 1};
  d.down_offset = {0, 1, 1};
  d.down_value = {-2.5f};
  d.down_pos = {2};
  d.sources = {{"trades.csv", 1234, "00000000deadbeef"}, {"AAA.csv", 99, "0123456789abcdef"}};
  d.dropped_trades = 3;
  d.empty_windows = 1;
  return d;
}

void require_same(const Candles& a, const Candles& b) {
  REQUIRE(a.time_ms == b.time_ms);
  for (auto m : {&Candles::open, &Candles::high, &Candles::low, &Candles::close, &Candles::volume})
    REQUIRE(testing::same_bits(a.*m, b.*m));
}

engine::JournalHeader journal_header() {
  engine::JournalHeader h;
  h.config_digest = "c0ffee";
  h.data_checksums = {"0123456789abcdef"};
  h.n_axes = 2;
  h.n_metrics = 1;
  return h;
}

/// Batch k of a journal: 3 trials, 2 axes, 1 metric; batch 1 carries halving rungs.
void journal_batch(std::uint64_t k, engine::BatchRequest& q, engine::BatchResult& r, engine::BatchTimings& t) {
  q = {};
  r = {};
  t = {};
  q.batch_index = r.batch_index = k;
  q.first_trial = r.first_trial = 3 * k;
  q.n_trials = r.n_trials = 3;
  q.n_axes = 2;
  q.values = {0.5, 1.0 + k, -2.0, 3.25, 1e-9, 7.0};
  r.scores = {1.5, NAN, -0.25 * static_cast<double>(k)};
  r.violations = {0.0, 0.0, 2.0};
  r.n_metrics = 1;
  r.metrics = {10.0, 11.0, 12.0 + k};
  if (k == 1) {
    r.n_rungs = 3;
    r.rung = {2, 0, 1};
  }
  t.ask_ms = 1.25;
  t.exec_ms = 2.5 + k;
  t.tell_ms = 0.125;
  t.overlap_ms = 1.0;
  t.idle_ms = 0.0625;
  t.wall_ms = 10.0 * (k + 1);
}

}  // namespace

TEST_CASE("binary formats: a candles cache of an earlier version reads and is written again byte for byte",
          "[cpu][io][formats]") {
  same_bytes_as_fixture("candles.bin", [](const fs::path& p) { io::write_candles_cache(p, three_bars(), kSource); });
  if (rewriting()) return;
  const Candles back = io::read_candles_cache(fixture("candles.bin"), kSource, "fixture");
  require_same(back, three_bars());
  REQUIRE(back.source == "fixture");
  // Another CSV's identity is refused, and so is a cut file.
  REQUIRE_THROWS(io::read_candles_cache(fixture("candles.bin"), {kSource.checksum, 78}, "fixture"));
  const fs::path cut = scratch("candles-cut.bin");
  std::string bytes = bytes_of(fixture("candles.bin"));
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 9);
  REQUIRE_THROWS(io::read_candles_cache(cut, kSource, "cut"));
}

TEST_CASE("binary formats: a candle set cache of an earlier version reads and is written again byte for byte",
          "[cpu][io][formats]") {
  same_bytes_as_fixture("candleset.bin",
                        [](const fs::path& p) { io::write_candle_set_cache(p, two_symbols(), kSource); });
  if (rewriting()) return;
  const CandleSet back = io::read_candle_set_cache(fixture("candleset.bin"), kSource, "fixture");
  REQUIRE(back.symbols == two_symbols().symbols);
  REQUIRE(back.offset == two_symbols().offset);
  REQUIRE(back.length == two_symbols().length);
  require_same(back.bars, three_bars());
  std::string bytes = bytes_of(fixture("candleset.bin"));
  bytes[40] ^= 1;  // one bit of the bar count flipped: the checksum no longer matches
  const fs::path bad = scratch("candleset-bad.bin");
  std::ofstream(bad, std::ios::binary) << bytes;
  REQUIRE_THROWS(io::read_candle_set_cache(bad, kSource, "bad"));
}

TEST_CASE("binary formats: a trade_filter cache of an earlier version reads and is written again byte for byte",
          "[cpu][io][formats][trade_filter]") {
  same_bytes_as_fixture("trade_filter.tfc", [](const fs::path& p) { io::write_trade_filter_cache(two_trades(), p); });
  if (rewriting()) return;
  const auto back = io::read_trade_filter_cache(fixture("trade_filter.tfc"));
  const auto want = two_trades();
  REQUIRE(back.tickers == want.tickers);
  REQUIRE(back.prices == want.prices);
  REQUIRE(back.path == want.path);
  REQUIRE(back.logged_q == want.logged_q);
  REQUIRE(back.down_pos == want.down_pos);
  REQUIRE(back.sources.size() == 2);
  REQUIRE(back.sources[1].name == "AAA.csv");
  REQUIRE(back.sources[1].size == 99);
  REQUIRE(back.sources[1].checksum == "0123456789abcdef");
  REQUIRE(back.dropped_trades == 3);
  REQUIRE(back.empty_windows == 1);
  std::string bytes = bytes_of(fixture("trade_filter.tfc"));
  const fs::path cut = scratch("trade_filter-cut.tfc");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 1);
  REQUIRE_THROWS(io::read_trade_filter_cache(cut));
}

TEST_CASE("binary formats: a run journal of an earlier version reads and is written again byte for byte",
          "[cpu][io][formats][long-runs]") {
  same_bytes_as_fixture("journal.bin", [](const fs::path& p) {
    auto w = engine::JournalWriter::create(p, journal_header());
    for (std::uint64_t k = 0; k < 2; ++k) {
      engine::BatchRequest q;
      engine::BatchResult r;
      engine::BatchTimings t;
      journal_batch(k, q, r, t);
      w.append(q, r, t);
    }
  });
  if (rewriting()) return;
  const auto back = engine::read_journal(fixture("journal.bin"));
  REQUIRE_FALSE(back.dropped_torn_tail);
  REQUIRE(back.header.config_digest == "c0ffee");
  REQUIRE(back.header.n_axes == 2);
  REQUIRE(back.records.size() == 2);
  for (std::uint64_t k = 0; k < 2; ++k) {
    engine::BatchRequest q;
    engine::BatchResult r;
    engine::BatchTimings t;
    journal_batch(k, q, r, t);
    const auto& got = back.records[k];
    CAPTURE(k);
    REQUIRE(testing::same_bits(got.batch.request.values, q.values));
    REQUIRE(testing::same_bits(got.batch.result.scores, r.scores));
    REQUIRE(testing::same_bits(got.batch.result.metrics, r.metrics));
    REQUIRE(got.batch.result.rung == r.rung);
    REQUIRE(got.batch.result.n_rungs == r.n_rungs);
    REQUIRE(got.timings.exec_ms == t.exec_ms);
    REQUIRE(got.timings.wall_ms == t.wall_ms);
  }
}
