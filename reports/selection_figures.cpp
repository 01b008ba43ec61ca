#include "reports/selection_figures.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "reports/svg_plot.hpp"

namespace tpeopt::engine {

namespace {

using svg::Canvas;
using svg::Scale;

std::vector<double> finite(const io::Json& a) {
  std::vector<double> v;
  if (!a.is_array()) return v;
  for (const auto& x : a) v.push_back(x.is_number() ? x.get<double>() : NAN);
  return v;
}

std::string no_data(std::string_view label, std::string_view why) {
  Canvas c(480, 120, label);
  c.text(240, 60, why, "middle", 14);
  return c.finish();
}

std::string number_or_dash(const io::Json& j, const char* key, const char* format) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "-";
  return fmt::format(fmt::runtime(format), j[key].get<double>());
}

}  // namespace

std::string logit_figure(const io::Json& splits) {
  std::vector<double> logits;
  for (double l : finite(splits.is_object() ? splits.value("logits", io::Json()) : io::Json()))
    if (std::isfinite(l)) logits.push_back(l);
  if (logits.empty()) return no_data("CSCV logits", "no split");
  const double W = 720, H = 320, left = 70, right = 20, top = 24, bottom = 56;
  double lo = std::min(*std::min_element(logits.begin(), logits.end()), -0.5);
  double hi = std::max(*std::max_element(logits.begin(), logits.end()), 0.5);
  const int bins = 40;
  const double width = (hi - lo) / bins;
  std::vector<double> count(bins, 0.0);
  for (double l : logits) count[std::min(bins - 1, static_cast<int>((l - lo) / width))] += 1.0;
  const double top_count = *std::max_element(count.begin(), count.end());
  Canvas c(W, H, "distribution of the CSCV logits");
  const Scale x(lo, hi, left, W - right), y(0, top_count * 1.05, H - bottom, top);
  svg::y_axis(c, y, left, W - right, svg::nice_ticks(0, top_count * 1.05, 5), "splits");
  svg::x_axis(c, x, H - bottom, svg::nice_ticks(lo, hi, 8), "logit of the in-sample best's out-of-sample rank");
  for (int b = 0; b < bins; ++b) {
    const double b0 = lo + b * width;
    const bool overfit = b0 + width <= 0.0;
    c.rect(x(b0) + 0.5, y(count[b]), std::max(0.5, x(b0 + width) - x(b0) - 1), H - bottom - y(count[b]),
           overfit ? "#d62728" : "#1f77b4");
  }
  c.line(x(0), top, x(0), H - bottom, "#333", 1.5, "stroke-dasharray=\"4 3\"");
  svg::legend_entry(c, left + 10, 12, svg::Swatch::Box, "#d62728", "at or below the median out of sample (overfit)");
  return c.finish();
}

std::string in_vs_out_figure(const io::Json& splits) {
  const auto is = finite(splits.is_object() ? splits.value("in_sample_sharpe", io::Json()) : io::Json());
  const auto oos = finite(splits.is_object() ? splits.value("out_of_sample_sharpe", io::Json()) : io::Json());
  std::vector<std::pair<double, double>> points;
  for (std::size_t i = 0; i < is.size() && i < oos.size(); ++i)
    if (std::isfinite(is[i]) && std::isfinite(oos[i])) points.emplace_back(is[i], oos[i]);
  if (points.empty()) return no_data("in-sample vs out-of-sample Sharpe", "no split");
  double lo = 0.0, hi = 0.0;
  for (const auto& [a, b] : points) lo = std::min({lo, a, b}), hi = std::max({hi, a, b});
  const double pad = (hi - lo) * 0.05 + 1e-12;
  lo -= pad, hi += pad;
  const double W = 520, H = 480, left = 70, right = 20, top = 20, bottom = 56;
  Canvas c(W, H, "in-sample best per CSCV split: in-sample vs out-of-sample Sharpe ratio");
  const Scale x(lo, hi, left, W - right), y(lo, hi, H - bottom, top);
  const auto ticks = svg::nice_ticks(lo, hi, 6);
  svg::y_axis(c, y, left, W - right, ticks, "out-of-sample Sharpe (per observation)");
  svg::x_axis(c, x, H - bottom, ticks, "in-sample Sharpe (per observation)");
  c.line(x(lo), y(lo), x(hi), y(hi), "#999", 1, "stroke-dasharray=\"4 3\"");
  c.line(x(lo), y(0), x(hi), y(0), "#333", 1);
  // At most 4,000 dots: a sample of a larger list, evenly spaced (the splits are in no order that matters).
  const std::size_t stride = std::max<std::size_t>(1, points.size() / 4000);
  std::string dots;
  for (std::size_t i = 0; i < points.size(); i += stride)
    dots += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\"/>", x(points[i].first), y(points[i].second));
  c.raw("<g fill=\"#1f77b4\" fill-opacity=\"0.35\">" + dots + "</g>");
  return c.finish();
}

std::string selection_section(const io::Json& selection, const io::Json& summary) {
  io::Json s = summary.is_object() && summary.contains("selection_bias") ? summary["selection_bias"] : io::Json();
  if (s.is_null() && selection.is_object()) s = selection.value("summary", io::Json());
  if (!s.is_object()) return "";
  std::string html = "<section id=\"selection-bias\">\n<h2>Will it hold up?</h2>\n<p class=\"note\">" +
                     svg::escape(s.value("verdict", std::string("not available"))) + " (docs/will-it-hold-up.md)</p>\n";
  if (!s.value("available", false)) return html + "</section>\n";
  const io::Json dsr = s.value("dsr", io::Json()), pbo = s.value("pbo", io::Json());
  html += "<table class=\"top\">\n";
  const auto row = [&](const std::string& k, const std::string& v) {
    html += "<tr><th>" + svg::escape(k) + "</th><td>" + svg::escape(v) + "</td></tr>\n";
  };
  row("trials (N)", fmt::format("{}", s.value("trials", 0)));
  row("re-evaluated",
      fmt::format("top {} and {} sampled, over {} folds of {} in-sample {}", s.value("top", 0), s.value("sample", 0),
                  s.value("sub_periods", 0), s.value("in_sample", 0), s.value("unit", std::string())));
  const io::Json paper = s.value("dsr_paper", io::Json());
  row("best Sharpe (per observation)",
      number_or_dash(dsr, "sharpe", "{:.4g}") + ", T " + number_or_dash(dsr, "observations", "{:.0f}"));
  row("best z (Sharpe in its own standard errors)", number_or_dash(dsr, "z", "{:.4g}"));
  row("expected maximum z by chance (E[max z])", number_or_dash(dsr, "expected_max_z", "{:.4g}"));
  row("variance of z across trials", number_or_dash(dsr, "z_variance", "{:.4g}") + ", at most 1 under the null: " +
                                         number_or_dash(dsr, "null_z_variance", "{:.4g}") + " (" +
                                         (dsr.is_object() ? dsr.value("variance_from", std::string()) : "") + ")");
  row("expected maximum Sharpe by chance at its T (SR_0)", number_or_dash(dsr, "expected_max_sharpe", "{:.4g}"));
  row("skewness, kurtosis", number_or_dash(dsr, "skewness", "{:.3g}") + ", " +
                                number_or_dash(dsr, "kurtosis", "{:.3g}") + " (" +
                                (dsr.is_object() ? dsr.value("moments_from", std::string()) : "") + ")");
  row("Deflated Sharpe Ratio", number_or_dash(dsr, "dsr", "{:.4f}"));
  row("the paper's DSR (one variance of Sharpe ratios)",
      number_or_dash(paper, "dsr", "{:.4f}") + " (SR_0 " + number_or_dash(paper, "expected_max_sharpe", "{:.4g}") +
          ", variance of Sharpe across trials " + number_or_dash(paper, "sharpe_variance", "{:.4g}") + ")");
  row("PBO",
      number_or_dash(pbo, "pbo", "{:.4f}") +
          (pbo.is_object() ? fmt::format(" ({} of {} splits{})", pbo.value("splits", 0), pbo.value("all_splits", 0.0),
                                         pbo.value("sampled", false) ? ", sampled" : "")
                           : std::string()));
  row("probability of loss (the in-sample best loses out of sample)",
      number_or_dash(pbo, "probability_of_loss", "{:.4f}"));
  row("performance degradation (out of sample on in sample, per split)",
      "slope " + number_or_dash(pbo, "degradation_slope", "{:.3g}") + ", intercept " +
          number_or_dash(pbo, "degradation_intercept", "{:.3g}"));
  html += "</table>\n";
  const io::Json splits = selection.is_object() ? selection.value("splits", io::Json()) : io::Json();
  html += "<h3>Logits of the in-sample best's out-of-sample rank, per split</h3>\n" + logit_figure(splits);
  html += "<h3>The in-sample best per split: in sample vs out of sample</h3>\n" + in_vs_out_figure(splits);
  return html + "</section>\n";
}

}  // namespace tpeopt::engine
