#include "strategies/trade_filter/trade_filter_generator.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/format.h>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>

#include "common/error.hpp"
#include "io/csv_rows.hpp"

namespace tpeopt::io {

namespace fs = std::filesystem;

namespace {

constexpr int kOpen = 9 * 3600 + 30 * 60;
constexpr int kSeconds = 6 * 3600 + 30 * 60 + 1;  // 09:30:00 .. 16:00:00 inclusive

/// One ticker-day of second bars and its indicators.
struct Day {
  std::vector<double> price, atr14, atr28, vol_pct, vol_ratio, adx28, adx14, adx7, rsi, mean5;
  std::vector<std::int64_t> volume;
};

struct TickerState {
  double price = 20.0;
  bool wild = false;
  double atr14 = 0, atr28 = 0, pdm[3] = {}, ndm[3] = {}, adx[3] = {20, 20, 20}, gain = 0, loss = 0;
};

double ema_alpha(double seconds) { return 2.0 / (seconds + 1.0); }

void simulate_day(TickerState& st, boost::random::mt19937_64& rng, Day& d) {
  boost::random::normal_distribution<double> normal;
  boost::random::uniform_01<double> u01;
  for (auto* v :
       {&d.price, &d.atr14, &d.atr28, &d.vol_pct, &d.vol_ratio, &d.adx28, &d.adx14, &d.adx7, &d.rsi, &d.mean5})
    v->assign(kSeconds, 0.0);
  d.volume.assign(kSeconds, 0);
  double logp = std::log(st.price) + 0.01 * normal(rng);  // overnight gap
  double prev = st.price;
  const double a14 = ema_alpha(14 * 60), a28 = ema_alpha(28 * 60),
               adx_a[3] = {ema_alpha(28 * 60), ema_alpha(14 * 60), ema_alpha(7 * 60)};
  double sum5 = 0;
  for (int t = 0; t < kSeconds; ++t) {
    if (u01(rng) < (st.wild ? 1.0 / 900 : 1.0 / 2400)) st.wild = !st.wild;
    const double sigma = st.wild ? 0.0011 : 0.00035;
    logp += sigma * normal(rng);
    const double p = std::max(0.01, std::round(std::exp(logp) * 100.0) / 100.0);
    const double move = t == 0 ? 0.0 : p - prev;         // the overnight gap is not a bar's range
    const double tr = std::abs(move) * std::sqrt(60.0);  // per-second range scaled to a minute bar
    if (st.atr14 == 0) st.atr14 = st.atr28 = p * 0.003;
    st.atr14 += a14 * (tr - st.atr14);
    st.atr28 += a28 * (tr - st.atr28);
    const double up = move > 0 ? move : 0, down = move < 0 ? -move : 0;
    for (int k = 0; k < 3; ++k) {
      st.pdm[k] += adx_a[k] * 4 * (up - st.pdm[k]);
      st.ndm[k] += adx_a[k] * 4 * (down - st.ndm[k]);
      const double s = st.pdm[k] + st.ndm[k];
      const double dx = s > 0 ? 100.0 * std::abs(st.pdm[k] - st.ndm[k]) / s : 0.0;
      st.adx[k] += adx_a[k] * 8 * (dx - st.adx[k]);
    }
    st.gain += a14 * (up - st.gain);
    st.loss += a14 * (down - st.loss);
    sum5 += p;
    if (t >= 300) sum5 -= d.price[t - 300];
    d.price[t] = p;
    d.mean5[t] = sum5 / std::min(t + 1, 300);
    d.atr14[t] = st.atr14;
    d.atr28[t] = st.atr28;
    d.vol_pct[t] = std::round(st.atr14 / p * 100.0 * 100.0) / 100.0;
    d.vol_ratio[t] = std::round(st.atr14 / st.atr28 * 100.0) / 100.0;
    d.adx28[t] = std::round(st.adx[0] * 100.0) / 100.0;
    d.adx14[t] = std::round(st.adx[1] * 100.0) / 100.0;
    d.adx7[t] = std::round(st.adx[2] * 100.0) / 100.0;
    d.rsi[t] = st.loss > 0 ? 100.0 - 100.0 / (1.0 + st.gain / st.loss) : 100.0;
    d.volume[t] = static_cast<std::int64_t>(100 + 900 * u01(rng) * (st.wild ? 3 : 1));
    prev = p;
  }
  st.price = d.price.back();
}

std::string hms(int seconds_of_day) {
  return fmt::format("{:02}:{:02}:{:02}", seconds_of_day / 3600, seconds_of_day / 60 % 60, seconds_of_day % 60);
}

void write_file(const fs::path& p, const std::string& s) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(p.c_str(), "wb"), &std::fclose);
  if (!f || std::fwrite(s.data(), 1, s.size(), f.get()) != s.size())
    throw make_error("{}: cannot write: {}", p.string(), std::strerror(errno));
}

struct GeneratedTrade {
  int entry = 0, exit = 0, ticker = 0;
  double entry_price = 0, exit_price = 0, change = 0, best = 0, worst = 0;
  double vol = 0, ratio = 0, adx28 = 0, adx14 = 0, adx7 = 0;
};

}  // namespace

GeneratedTradeFilterData generate_trade_filter_data(const TradeFilterGeneratorOptions& o) {
  if (o.days < 1) throw make_error("--days: expected at least 1");
  if (o.tickers.empty()) throw make_error("--tickers: expected at least one ticker");
  std::int64_t day = 0;
  if (!parse_date(o.first_day, day)) throw make_error("first day: \"{}\" is not a date YYYY-MM-DD", o.first_day);
  GeneratedTradeFilterData out;
  out.market_dir = o.out / "market";
  out.trades = o.out / "trades.csv";
  std::error_code ec;
  fs::create_directories(out.market_dir, ec);
  if (ec) throw make_error("{}: cannot create: {}", out.market_dir.string(), ec.message());

  boost::random::mt19937_64 rng(o.seed);
  boost::random::uniform_01<double> u01;
  std::vector<std::string> all = o.tickers;
  all.insert(all.end(), o.extra_tickers.begin(), o.extra_tickers.end());
  std::vector<TickerState> states(all.size());
  for (std::size_t k = 0; k < all.size(); ++k) states[k].price = 5.0 + 60.0 * u01(rng);
  std::vector<Day> days(all.size());

  std::string log =
      "Date,Trade Id,Ticker,Entry Price,Exit Price,Entry Time,Exit Time,Worst Exit Percent,"
      "Entry Volatility Percent,Entry Volatility Ratio,Entry Adx28,Entry Adx14,Entry Adx7,"
      "Trade Best Exit Percent,Trade Percent Change,Strategy\n";
  std::uint64_t trade_id = 1;
  for (int di = 0; di < o.days; ++di) {
    while (true) {                                      // weekdays only (1970-01-01 was a Thursday)
      const std::int64_t wd = ((day % 7) + 7 + 3) % 7;  // 0 = Monday
      if (wd < 5) break;
      ++day;
    }
    std::int64_t y;
    unsigned m, dd;
    civil_from_days(day, y, m, dd);
    for (std::size_t k = 0; k < all.size(); ++k) simulate_day(states[k], rng, days[k]);

    std::string text =
        "Ticker,Price,Val,Avg,Atr14,Atr28,Rsi,Volume,Adx28,Adx14,Adx7,Volatility Percent,"
        "Volatility Ratio,Time\n";
    text.reserve(static_cast<std::size_t>(kSeconds) * all.size() * 110);
    auto it = std::back_inserter(text);
    for (int t = 0; t < kSeconds; ++t) {
      const std::string time = hms(kOpen + t);
      for (std::size_t k = 0; k < all.size(); ++k) {
        const Day& d = days[k];
        fmt::format_to(it, "{},{:.2f},{:.2f},{:.4f},{:.4f},{:.4f},{:.2f},{},{:.2f},{:.2f},{:.2f},{:.2f},{:.2f},{}\n",
                       all[k], d.price[t], d.price[t] * static_cast<double>(d.volume[t]), d.mean5[t], d.atr14[t],
                       d.atr28[t], d.rsi[t], d.volume[t], d.adx28[t], d.adx14[t], d.adx7[t], d.vol_pct[t],
                       d.vol_ratio[t], time);
        ++out.market_rows;
      }
    }
    write_file(out.market_dir / fmt::format("Raw_Market_data_{:02}-{:02}-{:04}.csv", m, dd, y), text);

    // this day's trades
    const std::uint64_t n_day = o.trades / static_cast<std::uint64_t>(o.days) +
                                (static_cast<std::uint64_t>(di) < o.trades % static_cast<std::uint64_t>(o.days));
    std::vector<GeneratedTrade> trades;
    for (std::uint64_t j = 0; j < n_day; ++j) {
      GeneratedTrade g;
      g.ticker = static_cast<int>(j % o.tickers.size());
      const Day& d = days[static_cast<std::size_t>(g.ticker)];
      int entry = 0;
      for (int attempt = 0; attempt < 50; ++attempt) {
        entry = 300 + static_cast<int>(u01(rng) * (kSeconds - 420));
        if (d.price[entry] > d.mean5[entry] && d.vol_ratio[entry] >= 0.8) break;
      }
      const double tp = 0.3 + 1.2 * u01(rng), sl = -(0.3 + 0.9 * u01(rng));
      const int limit = std::min(kSeconds - 1, entry + 300 + static_cast<int>(u01(rng) * 1500));
      const double p0 = d.price[entry];
      double best = 0, worst = 0;
      int exit = entry;
      for (int t = entry + 1; t <= limit; ++t) {
        const double r = (d.price[t] / p0 - 1.0) * 100.0;
        best = std::max(best, r);
        worst = std::min(worst, r);
        exit = t;
        if (r >= tp || r <= sl) break;
      }
      g.entry = entry;
      g.exit = exit;
      g.entry_price = p0;
      g.exit_price = d.price[exit];
      g.change = (g.exit_price / p0 - 1.0) * 100.0;
      g.best = best;
      g.worst = worst;
      g.vol = d.vol_pct[entry];
      g.ratio = d.vol_ratio[entry];
      g.adx28 = d.adx28[entry];
      g.adx14 = d.adx14[entry];
      g.adx7 = d.adx7[entry];
      trades.push_back(g);
    }
    std::stable_sort(trades.begin(), trades.end(),
                     [](const GeneratedTrade& a, const GeneratedTrade& b) { return a.entry < b.entry; });
    auto lit = std::back_inserter(log);
    for (const auto& g : trades) {
      fmt::format_to(
          lit,
          "{:02}/{:02}/"
          "{:04},{},{},{:.2f},{:.2f},{},{},{:.4f},{:.2f},{:.2f},{:.2f},{:.2f},{:.2f},{:.4f},{:.4f},momentum\n",
          m, dd, y, trade_id++, o.tickers[static_cast<std::size_t>(g.ticker)], g.entry_price, g.exit_price,
          hms(kOpen + g.entry), hms(kOpen + g.exit), g.worst, g.vol, g.ratio, g.adx28, g.adx14, g.adx7, g.best,
          g.change);
      ++out.trade_rows;
    }
    ++day;
  }
  write_file(out.trades, log);
  return out;
}

}  // namespace tpeopt::io
