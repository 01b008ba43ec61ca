#include "reports/svg_plot.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace tpeopt::engine::svg {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string format_number(double v, int digits) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0.0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e6 || a < 1e-4) return fmt::format("{:.{}g}", v, std::max(1, digits - 1));
  return fmt::format("{:.{}g}", v, digits);
}

Scale::Scale(double d0_, double d1_, double r0_, double r1_) : d0(d0_), d1(d1_), r0(r0_), r1(r1_) {
  if (!(d1 > d0) || !std::isfinite(d1 - d0)) {
    const double pad = std::isfinite(d0) && d0 != 0.0 ? std::fabs(d0) * 0.05 : 1.0;
    d0 = (std::isfinite(d0) ? d0 : 0.0) - pad;
    d1 = d0 + 2 * pad;
  }
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) {
    if (std::isfinite(lo)) ticks.push_back(lo);
    return ticks;
  }
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double t = first; t <= hi + step * 1e-9; t += step) ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  return ticks;
}

Canvas::Canvas(double width, double height, std::string_view aria_label)
    : width_(width), height_(height), label_(escape(aria_label)) {}

void Canvas::line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width,
                  std::string_view extra) {
  body_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{}"{}{}/>)",
                       x1, y1, x2, y2, stroke, stroke_width, extra.empty() ? "" : " ", extra);
  body_ += '\n';
}

void Canvas::rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra) {
  body_ += fmt::format(R"(<rect x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{:.1f}" fill="{}"{}{}/>)", x, y,
                       std::max(0.0, w), std::max(0.0, h), fill, extra.empty() ? "" : " ", extra);
  body_ += '\n';
}

void Canvas::circle(double cx, double cy, double r, std::string_view fill, std::string_view extra) {
  body_ += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{}" fill="{}"{}{}/>)", cx, cy, r, fill,
                       extra.empty() ? "" : " ", extra);
  body_ += '\n';
}

void Canvas::text(double x, double y, std::string_view s, std::string_view anchor, double size,
                  std::string_view extra) {
  body_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="{}" font-size="{}"{}{}>{}</text>)", x, y, anchor,
                       size, extra.empty() ? "" : " ", extra, escape(s));
  body_ += '\n';
}

void Canvas::polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                      double stroke_width, std::string_view extra) {
  if (points.empty()) return;
  std::string pts;
  pts.reserve(points.size() * 14);
  for (const auto& [x, y] : points) pts += fmt::format("{:.1f},{:.1f} ", x, y);
  body_ += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"{}{}/>)", pts, stroke,
                       stroke_width, extra.empty() ? "" : " ", extra);
  body_ += '\n';
}

void Canvas::raw(std::string_view markup) { body_ += markup; }

std::string Canvas::finish() const {
  return fmt::format(
      "<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"{2}\" font-family=\"sans-serif\" fill=\"#222\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n{3}</svg>\n",
      width_, height_, label_, body_);
}

void y_axis(Canvas& c, const Scale& scale, double x, double x_end, const std::vector<double>& ticks,
            std::string_view title) {
  const double top = std::min(scale.r0, scale.r1), bottom = std::max(scale.r0, scale.r1);
  for (double t : ticks) {
    const double y = scale(t);
    if (y < top - 0.5 || y > bottom + 0.5) continue;
    c.line(x, y, x_end, y, "#e3e3e3", 1);
    c.line(x - 4, y, x, y, "#555", 1);
    c.text(x - 7, y + 4, format_number(t), "end", 11, R"(fill="#444")");
  }
  c.line(x, top, x, bottom, "#555", 1);
  if (!title.empty())
    c.text(14, (top + bottom) / 2, title, "middle", 12,
           fmt::format(R"svg(transform="rotate(-90 14 {:.1f})" fill="#333")svg", (top + bottom) / 2));
}

void x_axis(Canvas& c, const Scale& scale, double y, const std::vector<double>& ticks, std::string_view title) {
  const double left = std::min(scale.r0, scale.r1), right = std::max(scale.r0, scale.r1);
  c.line(left, y, right, y, "#555", 1);
  for (double t : ticks) {
    const double x = scale(t);
    if (x < left - 0.5 || x > right + 0.5) continue;
    c.line(x, y, x, y + 4, "#555", 1);
    c.text(x, y + 16, format_number(t), "middle", 11, R"(fill="#444")");
  }
  if (!title.empty()) c.text((left + right) / 2, y + 34, title, "middle", 12, R"(fill="#333")");
}

double legend_entry(Canvas& c, double x, double y, Swatch kind, std::string_view color, std::string_view label) {
  switch (kind) {
    case Swatch::Box:
      c.rect(x, y - 6, 14, 12, color);
      break;
    case Swatch::Dot:
      c.circle(x + 7, y, 4, color);
      break;
    case Swatch::Line:
      c.line(x, y, x + 18, y, color, 2.5);
      break;
    case Swatch::Cross:
      c.line(x + 3, y - 4, x + 11, y + 4, color, 1.6);
      c.line(x + 3, y + 4, x + 11, y - 4, color, 1.6);
      break;
  }
  c.text(x + 22, y + 4, label, "start", 12);
  return x + 22 + 7.0 * static_cast<double>(label.size()) + 18;
}

}  // namespace tpeopt::engine::svg
