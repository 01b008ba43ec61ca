#include "reports/report_figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "io/candle_set.hpp"
#include "reports/svg_plot.hpp"

namespace tpeopt::engine {

namespace {

using svg::Canvas;
using svg::Scale;

constexpr const char* kBlue = "#1f77b4";
constexpr const char* kOrange = "#ff7f0e";
constexpr const char* kGreen = "#2ca02c";
constexpr const char* kRed = "#d62728";
constexpr const char* kGrey = "#8c8c8c";
constexpr const char* kLightGrey = "#c7c7c7";
constexpr const char* kIdle = "#f4b6b6";

bool is_failed(const ReportTrial& t) { return std::isnan(t.score); }
bool is_infeasible(const ReportTrial& t) { return !is_failed(t) && t.violation > 0.0; }

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
  return v[i];
}

void no_data(Canvas& c, const std::string& what) {
  c.text(c.width() / 2, c.height() / 2, what, "middle", 14, R"(fill="#777")");
}

}  // namespace

std::size_t top_trial_count(std::size_t n_trials) {
  const auto tenth = static_cast<std::size_t>(std::ceil(0.1 * static_cast<double>(n_trials)));
  return std::min(n_trials, std::max<std::size_t>(10, tenth));
}

// ---------------------------------------------------------------------------------------
// optimization history

std::string history_figure(const RunReportData& run) {
  const double W = 960, H = 400, left = 78, right = 20, top = 40, bottom = 64;
  Canvas c(W, H, "optimization history: score per trial and best so far");
  const bool minimize = run.config.objective.direction == tpe::Direction::Minimize;
  const auto& trials = run.trials;

  std::vector<double> scores;
  for (const auto& t : trials)
    if (!is_failed(t) && std::isfinite(t.score)) scores.push_back(t.score);
  if (scores.empty()) {
    no_data(c, trials.empty() ? "no trials yet" : "no trial has a score (all failed)");
    return c.finish();
  }

  // Best so far, among feasible trials (they rank before every infeasible one).
  std::vector<std::pair<std::uint64_t, double>> best;  // (trial, best score after it)
  double b = std::numeric_limits<double>::quiet_NaN();
  for (const auto& t : trials) {
    if (is_failed(t) || is_infeasible(t) || !std::isfinite(t.score)) continue;
    if (std::isnan(b) || (minimize ? t.score < b : t.score > b)) {
      b = t.score;
      best.emplace_back(t.trial, b);
    }
  }

  // Range: every score, unless a few outliers would squash the rest (then 1%..99%, the best included).
  double lo = *std::min_element(scores.begin(), scores.end()), hi = *std::max_element(scores.begin(), scores.end());
  const double q1 = quantile(scores, 0.01), q99 = quantile(scores, 0.99);
  bool clipped = false;
  if (scores.size() >= 50 && (hi - lo) > 4 * (q99 - q1) && q99 > q1) {
    lo = q1;
    hi = q99;
    for (const auto& [trial, v] : best) {
      (void)trial;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    clipped = true;
  }
  const double pad = (hi - lo) * 0.04;
  const auto yticks = svg::nice_ticks(lo - pad, hi + pad, 6);
  const Scale y(lo - pad, hi + pad, H - bottom, top);
  const double max_trial = static_cast<double>(trials.back().trial);
  const Scale x(0, std::max(1.0, max_trial), left, W - right);

  svg::y_axis(c, y, left, W - right, yticks,
              fmt::format("{} ({})", run.config.objective.name.empty() ? "score" : run.config.objective.name,
                          minimize ? "minimize: lower is better" : "maximize: higher is better"));
  svg::x_axis(c, x, H - bottom, svg::nice_ticks(0, max_trial, 10), "trial");

  auto ypos = [&](double v) { return std::clamp(y(v), top, H - bottom); };
  // Down-sample the points of very large runs (every improvement is still on the line).
  const std::size_t stride = std::max<std::size_t>(1, trials.size() / 20000);
  std::size_t n_outside = 0, n_infeasible = 0, n_failed = 0;
  std::string points, crosses, failed;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const auto& t = trials[i];
    const double px = x(static_cast<double>(t.trial));
    if (is_failed(t)) {
      ++n_failed;
      failed += fmt::format("M{:.1f} {:.1f}v7", px, H - bottom - 9);
      continue;
    }
    if (!std::isfinite(t.score)) continue;
    if (t.score < y.d0 || t.score > y.d1) ++n_outside;
    if (is_infeasible(t)) {
      ++n_infeasible;
      if (i % stride != 0) continue;
      const double py = ypos(t.score);
      crosses += fmt::format("M{0:.1f} {1:.1f}l5 5M{0:.1f} {2:.1f}l5 -5", px - 2.5, py - 2.5, py + 2.5);
      continue;
    }
    if (i % stride != 0) continue;
    points += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.2"/>)", px, ypos(t.score));
  }
  if (!crosses.empty())
    c.raw(fmt::format(R"(<path d="{}" stroke="{}" stroke-width="1.2" fill="none"/>)", crosses, kGrey) + "\n");
  c.raw(fmt::format(R"(<g fill="{}" fill-opacity="0.45">{}</g>)", kBlue, points) + "\n");
  if (!failed.empty()) c.raw(fmt::format(R"(<path d="{}" stroke="{}" stroke-width="1.5"/>)", failed, kRed) + "\n");

  if (!best.empty()) {
    std::vector<std::pair<double, double>> line;
    for (std::size_t i = 0; i < best.size(); ++i) {
      const double px = x(static_cast<double>(best[i].first)), py = ypos(best[i].second);
      if (i > 0) line.emplace_back(px, line.back().second);
      line.emplace_back(px, py);
    }
    line.emplace_back(x(max_trial), line.back().second);
    c.polyline(line, kOrange, 2.5, R"(stroke-linejoin="round")");
  }

  // Legend
  double lx = left;
  lx = svg::legend_entry(c, lx, 18, svg::Swatch::Dot, kBlue, "feasible trial");
  lx = svg::legend_entry(c, lx, 18, svg::Swatch::Line, kOrange,
                         best.empty() ? "best so far (none feasible)"
                                      : fmt::format("best so far ({})", svg::format_number(best.back().second, 6)));
  if (n_infeasible)
    lx = svg::legend_entry(c, lx, 18, svg::Swatch::Cross, kGrey, fmt::format("infeasible ({})", n_infeasible));
  if (n_failed)
    lx = svg::legend_entry(c, lx, 18, svg::Swatch::Line, kRed, fmt::format("failed: no score ({})", n_failed));
  std::string notes;
  if (clipped) notes += fmt::format("{} outlying trials drawn on the edge", n_outside);
  if (stride > 1) notes += fmt::format("{}every {}th trial drawn", notes.empty() ? "" : "; ", stride);
  if (!notes.empty()) c.text(W - right, 18 + 4, notes, "end", 11, R"(fill="#777")");
  return c.finish();
}

// ---------------------------------------------------------------------------------------
// parameter distributions

namespace {

struct Bins {
  std::vector<std::string> labels;  // categorical only
  std::size_t n = 0;
  double lo = 0, hi = 1;  // in binning space (log10 for log axes)
  bool log = false;
  bool categorical = false;
  bool per_value = false;  // one bin per integer / step value
  double step = 1;

  std::size_t index(double v) const {
    if (categorical) return std::min(n - 1, static_cast<std::size_t>(std::max(0.0, v)));
    double u = log ? std::log10(std::max(v, 1e-300)) : v;
    if (per_value) return std::min(n - 1, static_cast<std::size_t>(std::max(0.0, std::round((u - lo) / step))));
    const double f = (u - lo) / (hi - lo);
    return std::min(n - 1, static_cast<std::size_t>(std::max(0.0, f * static_cast<double>(n))));
  }
};

Bins make_bins(const tpe::Axis& a) {
  Bins b;
  if (a.kind == tpe::Axis::Kind::Categorical) {
    b.categorical = true;
    b.n = a.n_choices();
    for (std::size_t i = 0; i < b.n; ++i)
      b.labels.push_back(a.choice_labels.empty() ? svg::format_number(a.choices[i]) : a.choice_labels[i]);
    return b;
  }
  b.log = a.log;
  b.lo = a.log ? std::log10(a.low) : a.low;
  b.hi = a.log ? std::log10(a.high) : a.high;
  const double step = a.kind == tpe::Axis::Kind::Int && a.step <= 0 ? 1.0 : a.step;
  if (!a.log && step > 0 && (a.high - a.low) / step + 1 <= 25.5) {
    b.per_value = true;
    b.step = step;
    b.n = static_cast<std::size_t>(std::llround((a.high - a.low) / step)) + 1;
    return b;
  }
  b.n = 20;
  if (!(b.hi > b.lo)) b.n = 1;
  return b;
}

void param_panel(Canvas& c, double ox, double oy, double w, double h, const tpe::Axis& axis,
                 const std::vector<double>& all, const std::vector<double>& top) {
  const Bins bins = make_bins(axis);
  std::vector<double> fa(bins.n, 0.0), ft(bins.n, 0.0);
  for (double v : all) fa[bins.index(v)] += 1.0 / static_cast<double>(all.size());
  for (double v : top) ft[bins.index(v)] += 1.0 / static_cast<double>(top.size());
  double peak = 0;
  for (std::size_t i = 0; i < bins.n; ++i) peak = std::max({peak, fa[i], ft[i]});
  if (peak <= 0) peak = 1;

  const double pl = ox + 44, pr = ox + w - 10, pt = oy + 24, pb = oy + h - 30;
  c.text(ox + 44, oy + 14, axis.name + (axis.log ? " (log scale)" : ""), "start", 13, R"(font-weight="bold")");
  const Scale y(0, peak * 1.08, pb, pt);
  std::vector<double> yt = svg::nice_ticks(0, peak * 1.08, 3);
  // y axis as percent of each group
  for (double t : yt) {
    const double py = y(t);
    c.line(pl, py, pr, py, "#ececec", 1);
    c.text(pl - 5, py + 4, fmt::format("{}%", svg::format_number(100 * t, 3)), "end", 10, R"(fill="#555")");
  }
  const double bw = (pr - pl) / static_cast<double>(bins.n);
  for (std::size_t i = 0; i < bins.n; ++i) {
    const double bx = pl + bw * static_cast<double>(i);
    if (fa[i] > 0) c.rect(bx + 0.5, y(fa[i]), bw - 1, pb - y(fa[i]), kLightGrey);
    if (ft[i] > 0) c.rect(bx + bw * 0.22, y(ft[i]), bw * 0.56, pb - y(ft[i]), kBlue, R"(fill-opacity="0.85")");
  }
  c.line(pl, pb, pr, pb, "#555", 1);
  c.line(pl, pt, pl, pb, "#555", 1);

  // x labels
  if (bins.categorical || bins.per_value) {
    const std::size_t every = std::max<std::size_t>(1, (bins.n + 7) / 8);
    for (std::size_t i = 0; i < bins.n; i += every) {
      std::string label =
          bins.categorical ? bins.labels[i] : svg::format_number(axis.low + bins.step * static_cast<double>(i));
      if (label.size() > 10) label = label.substr(0, 9) + "\xE2\x80\xA6";
      c.text(pl + bw * (static_cast<double>(i) + 0.5), pb + 14, label, "middle", 10, R"(fill="#444")");
    }
  } else if (bins.log) {
    const Scale x(bins.lo, bins.hi, pl, pr);
    // 1, 2, 5 times powers of ten inside the range; only the powers when that is too many.
    std::vector<double> ticks, decades;
    for (double e = std::floor(bins.lo); e <= bins.hi + 1e-9; e += 1)
      for (double m : {1.0, 2.0, 5.0}) {
        const double t = e + std::log10(m);
        if (t < bins.lo - 1e-9 || t > bins.hi + 1e-9) continue;
        ticks.push_back(t);
        if (m == 1.0) decades.push_back(t);
      }
    if (ticks.size() > 7) ticks = decades;
    if (ticks.size() < 2) ticks = {bins.lo, bins.hi};
    for (double t : ticks) {
      c.line(x(t), pb, x(t), pb + 3, "#555", 1);
      c.text(x(t), pb + 14, svg::format_number(std::pow(10.0, t), 3), "middle", 10, R"(fill="#444")");
    }
  } else {
    const Scale x(bins.lo, bins.hi, pl, pr);
    auto ticks = svg::nice_ticks(bins.lo, bins.hi, 5);
    if (ticks.size() < 3) ticks = svg::nice_ticks(bins.lo, bins.hi, 8);
    for (double t : ticks) {
      c.line(x(t), pb, x(t), pb + 3, "#555", 1);
      c.text(x(t), pb + 14, svg::format_number(t, 3), "middle", 10, R"(fill="#444")");
    }
  }
}

}  // namespace

std::string params_figure(const RunReportData& run) {
  const auto& axes = run.config.space.axes;
  const std::size_t n = run.trials.size();
  const double W = 960, panel_w = 320, panel_h = 170, head = 34;
  const std::size_t cols = 3, rows = (axes.size() + cols - 1) / cols;
  const double H = head + panel_h * static_cast<double>(std::max<std::size_t>(rows, 1)) + 4;
  Canvas c(W, H, "distribution of each parameter: top trials against all trials");
  if (n == 0 || axes.empty()) {
    no_data(c, n == 0 ? "no trials yet" : "no searched parameters");
    return c.finish();
  }
  const std::size_t k = top_trial_count(n);
  const auto order = rank_trials(run.trials, run.config.objective.direction);
  double lx = 44;
  lx = svg::legend_entry(c, lx, 16, svg::Swatch::Box, kLightGrey, fmt::format("all {} trials", n));
  lx = svg::legend_entry(c, lx, 16, svg::Swatch::Box, kBlue, fmt::format("top {} by rank", k));
  c.text(lx, 20, "bar height: share of the group in the bin", "start", 11, R"(fill="#777")");

  for (std::size_t a = 0; a < axes.size(); ++a) {
    std::vector<double> all, top;
    all.reserve(n);
    for (const auto& t : run.trials) all.push_back(t.values[a]);
    for (std::size_t r = 0; r < k; ++r) top.push_back(run.trials[order[r]].values[a]);
    const double ox = panel_w * static_cast<double>(a % cols), oy = head + panel_h * static_cast<double>(a / cols);
    param_panel(c, ox, oy, panel_w, panel_h, axes[a], all, top);
  }
  return c.finish();
}

// ---------------------------------------------------------------------------------------
// pipeline timeline

std::string timeline_figure(const RunReportData& run, std::size_t last_batches) {
  const double W = 960, H = 250, left = 92, right = 20, top = 44;
  const double lane_h = 46, gap = 22;
  const double sampler_y = top, executor_y = top + lane_h + gap, axis_y = executor_y + lane_h + 10;
  Canvas c(W, H, "timeline of the last batches: sampler and executor busy intervals");

  std::vector<const ReportBatch*> shown;
  for (const auto& b : run.batches)
    if (!b.replayed) shown.push_back(&b);
  if (shown.size() > last_batches) shown.erase(shown.begin(), shown.end() - static_cast<std::ptrdiff_t>(last_batches));
  if (shown.empty()) {
    no_data(c, "no evaluated batch with timings (a resumed run's replayed batches have none)");
    return c.finish();
  }
  double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
  for (const auto* b : shown) {
    t0 = std::min({t0, b->ask_begin, b->exec_begin, b->tell_begin});
    t1 = std::max({t1, b->ask_end, b->exec_end, b->tell_end});
  }
  const Scale x(t0, t1, left, W - right);
  const auto ticks = svg::nice_ticks(t0, t1, 10);

  for (double t : ticks) c.line(x(t), sampler_y - 4, x(t), axis_y, "#ececec", 1);
  c.rect(left, sampler_y, W - right - left, lane_h, "#f7f7f7");
  c.rect(left, executor_y, W - right - left, lane_h, "#f7f7f7");
  c.text(left - 8, sampler_y + lane_h / 2 + 4, "sampler", "end", 13, R"(font-weight="bold")");
  c.text(left - 8, executor_y + lane_h / 2 + 4, "executor", "end", 13, R"(font-weight="bold")");

  // Executor idle gaps between consecutive shown batches (and before the first shown one, clipped).
  // Batches that overlap on the device (several streams) count once: busy is the union of
  // the intervals, and a gap is one after the latest end so far.
  double busy = 0, latest_end = t0;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const double prev_end = latest_end;
    if (shown[i]->exec_begin > prev_end) {
      c.raw(
          fmt::format(
              R"(<rect x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{:.1f}" fill="{}"><title>executor idle {:.3f} ms before batch {}</title></rect>)",
              x(prev_end), executor_y + 6, x(shown[i]->exec_begin) - x(prev_end), lane_h - 12, kIdle,
              shown[i]->exec_begin - prev_end, shown[i]->batch) +
          "\n");
    }
    busy += std::max(0.0, shown[i]->exec_end - std::max(shown[i]->exec_begin, latest_end));
    latest_end = std::max(latest_end, shown[i]->exec_end);
  }

  auto interval = [&](double b, double e, double y, const char* color, const std::string& tip, std::uint64_t batch) {
    // At least 2 px wide so that short intervals stay visible; a thin white edge separates wide neighbours.
    const double px = x(b), w = std::max(2.0, x(e) - x(b));
    c.raw(fmt::format(
              R"(<rect x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{:.1f}" fill="{}"{}><title>{}</title></rect>)", px,
              y, w, lane_h - 12, color, w >= 6 ? R"( stroke="#fff" stroke-width="0.5")" : "", svg::escape(tip)) +
          "\n");
    if (w >= 22) c.text(px + w / 2, y + (lane_h - 12) / 2 + 4, std::to_string(batch), "middle", 10, R"(fill="#fff")");
  };
  for (const auto* b : shown) {
    interval(b->ask_begin, b->ask_end, sampler_y + 6, kBlue,
             fmt::format("batch {}: ask {:.3f} ms ({:.3f} hidden behind the executor)", b->batch, b->ask_ms,
                         b->overlap_ms),
             b->batch);
    interval(b->tell_begin, b->tell_end, sampler_y + 6, kGreen,
             fmt::format("batch {}: tell {:.3f} ms", b->batch, b->tell_ms), b->batch);
    interval(b->exec_begin, b->exec_end, executor_y + 6, kOrange,
             fmt::format("batch {}: executor {:.3f} ms, idle before it {:.3f} ms{}", b->batch, b->exec_ms, b->idle_ms,
                         std::isnan(b->device_occupancy)
                             ? std::string()
                             : fmt::format(", device occupancy {:.1f}%", 100.0 * b->device_occupancy)),
             b->batch);
  }
  svg::x_axis(c, x, axis_y, ticks, "ms since the run's first evaluated batch");

  double lx = left;
  lx = svg::legend_entry(c, lx, 18, svg::Swatch::Box, kBlue, "ask");
  lx = svg::legend_entry(c, lx, 18, svg::Swatch::Box, kGreen, "tell");
  lx = svg::legend_entry(c, lx, 18, svg::Swatch::Box, kOrange, "executor busy");
  lx = svg::legend_entry(c, lx, 18, svg::Swatch::Box, kIdle, "executor idle");
  const double span = t1 - t0;
  c.text(W - right, 22,
         fmt::format("batches {}..{}: executor busy {:.1f}% of {} ms", shown.front()->batch, shown.back()->batch,
                     span > 0 ? 100.0 * busy / span : 0.0, svg::format_number(span, 4)),
         "end", 11, R"(fill="#555")");
  return c.finish();
}

// ---------------------------------------------------------------------------------------
// the best trial's equity curve

std::string equity_figure(const RunReportData& run) {
  const double W = 960, H = 380, left = 78, right = 20, top = 40, bottom = 56;
  Canvas c(W, H, "equity of the best trial after each trade");
  static const char* const colors[] = {kBlue, kOrange, kGreen, kRed, "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  constexpr std::size_t kLines = sizeof(colors) / sizeof(colors[0]);
  std::vector<const EquitySeries*> lines;
  for (const auto& e : run.equity)
    if (!e.points.empty() && lines.size() < kLines) lines.push_back(&e);
  if (lines.empty()) {
    no_data(c, run.equity.empty() ? "no equity curve" : "the best trial made no trade");
    return c.finish();
  }
  std::int64_t t0 = lines.front()->points.front().first, t1 = t0;
  double lo = 1.0, hi = 1.0;
  for (const auto* e : lines)
    for (const auto& [t, v] : e->points) {
      t0 = std::min(t0, t);
      t1 = std::max(t1, t);
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
  const double pad = std::max((hi - lo) * 0.05, 1e-3);
  const Scale y(lo - pad, hi + pad, H - bottom, top);
  const Scale x(static_cast<double>(t0), static_cast<double>(std::max(t1, t0 + 1)), left, W - right);
  svg::y_axis(c, y, left, W - right, svg::nice_ticks(lo - pad, hi + pad, 6), "equity (1 = start)");
  // Dates under the time axis: six evenly spaced labels, with the hour when the span is short.
  c.line(left, H - bottom, W - right, H - bottom, "#555", 1);
  const std::size_t label_chars = x.d1 - x.d0 < 10.0 * 86400e3 ? 16 : 10;  // "YYYY-MM-DD HH:MM" or the date
  for (int k = 0; k <= 5; ++k) {
    const double t = x.d0 + (x.d1 - x.d0) * k / 5.0;
    const double px = x(t);
    c.line(px, H - bottom, px, H - bottom + 4, "#555", 1);
    c.text(px, H - bottom + 16, io::format_time_ms(static_cast<std::int64_t>(t)).substr(0, label_chars),
           k == 0 ? "start" : (k == 5 ? "end" : "middle"), 11, R"(fill="#444")");
  }
  c.text((left + W - right) / 2, H - bottom + 34, "time of each trade's exit (UTC)", "middle", 12, R"(fill="#333")");
  // The level of the start, for reference.
  c.line(left, y(1.0), W - right, y(1.0), kLightGrey, 1, R"(stroke-dasharray="4 3")");
  double lx = left + 4;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::pair<double, double>> pts;
    // A step line: the equity holds between exits.
    for (std::size_t j = 0; j < lines[i]->points.size(); ++j) {
      const auto& [t, v] = lines[i]->points[j];
      const double px = x(static_cast<double>(t)), py = std::clamp(y(v), top, H - bottom);
      if (!pts.empty()) pts.emplace_back(px, pts.back().second);
      pts.emplace_back(px, py);
    }
    c.polyline(pts, colors[i], 1.8);
    // The trade counts and final equities are in the page's table; the legend names the lines.
    const std::string label = lines[i]->name.empty() ? std::string("equity") : lines[i]->name.substr(0, 16);
    lx = svg::legend_entry(c, lx, 16, svg::Swatch::Line, colors[i], label);
  }
  return c.finish();
}

}  // namespace tpeopt::engine
