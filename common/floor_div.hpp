#pragma once
// Integer division rounded toward minus infinity, for times before 1970 (C++'s / truncates).
#include <cstdint>

namespace tpeopt {

/// floor(a / b) for b > 0.
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace tpeopt
