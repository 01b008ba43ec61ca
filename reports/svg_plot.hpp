#pragma once
// A few hand-written SVG plotting primitives for `tpeopt report`: linear scales, "nice"
// tick values, axes with ticks and labels, escaping, and a string builder. No JS, no
// external fonts: the markup renders the same in any browser, offline.
#include <string>
#include <string_view>
#include <vector>

namespace tpeopt::engine::svg {

/// Escapes &, <, >, " and ' for HTML / SVG text and attributes.
std::string escape(std::string_view text);

/// Numbers for labels: up to `digits` significant digits, no trailing zeros, 1.2e+06 style when large.
std::string format_number(double v, int digits = 4);

/// Maps [d0, d1] (data) to [r0, r1] (pixels), linearly; a degenerate domain is widened.
struct Scale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  Scale(double d0_, double d1_, double r0_, double r1_);
  double operator()(double v) const { return r0 + (v - d0) * (r1 - r0) / (d1 - d0); }
};

/// About `target` round tick values (1, 2, 5 times a power of ten) covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

/// An SVG document under construction, `width` x `height` pixels.
class Canvas {
 public:
  Canvas(double width, double height, std::string_view aria_label);
  double width() const { return width_; }
  double height() const { return height_; }

  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width = 1,
            std::string_view extra = "");
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra = "");
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view extra = "");
  /// anchor: start | middle | end.
  void text(double x, double y, std::string_view s, std::string_view anchor = "start", double size = 12,
            std::string_view extra = "");
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, double stroke_width,
                std::string_view extra = "");
  /// Raw markup (already escaped).
  void raw(std::string_view markup);
  /// The complete `<svg>` element.
  std::string finish() const;

 private:
  double width_, height_;
  std::string body_;
  std::string label_;
};

/// A left axis at x = `x` for `scale` (vertical), with grid lines across to `x_end`.
void y_axis(Canvas& c, const Scale& scale, double x, double x_end, const std::vector<double>& ticks,
            std::string_view title);
/// A bottom axis at y = `y` for `scale` (horizontal), ticks drawn down from it.
void x_axis(Canvas& c, const Scale& scale, double y, const std::vector<double>& ticks, std::string_view title);

/// A legend entry: a swatch (rect, circle or line) and a label, at (x, y) = the swatch's left-middle.
/// Returns the x after the entry.
enum class Swatch { Box, Dot, Line, Cross };
double legend_entry(Canvas& c, double x, double y, Swatch kind, std::string_view color, std::string_view label);

}  // namespace tpeopt::engine::svg
