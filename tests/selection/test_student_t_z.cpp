// The Student's t to standard normal mapping of the standardized DSR (selection/student_t_z.hpp)
// against SciPy's scipy.stats.t and scipy.stats.norm, and mpmath at 60 digits in the far tail
// (tests/selection/fixtures/SOURCE.md). Tolerance 1e-12 relative where both sides evaluate the
// tails in double precision (about 1e-15 relative each; the normal quantile divides a tail's
// relative error by about z^2); the far tail, where the double tail underflows, is Wallace's
// approximation, checked against its stated bound.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "selection/student_t_z.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"

namespace sel = tpeopt::selection;

namespace {

nlohmann::json fixtures() {
  return tpeopt::testing::read_json(tpeopt::testing::source_dir() + "/tests/selection/fixtures/t_to_z.json");
}

bool close(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

/// ln of the smallest normal double: below it the double tail underflows.
const double kLogTailLimit = std::log(std::numeric_limits<double>::min());

}  // namespace

TEST_CASE("z_of_t and t_of_z equal SciPy's Student's t and normal", "[cpu][selection]") {
  const auto data = fixtures();
  REQUIRE(data["z_of_t"].size() > 90);
  REQUIRE(data["t_of_z"].size() > 40);
  // Each case of `cases`: `from` mapped by `f` equals SciPy's `to` (to 1e-12 relative; 0 exactly).
  auto check = [&](const char* cases, const char* from, const char* to, double (*f)(double, double)) {
    for (const auto& c : data[cases]) {
      const double x = c[from].get<double>(), dof = c["dof"].get<double>(), want = c[to].get<double>();
      const double got = f(x, dof);
      INFO(cases << ": " << from << " " << x << " dof " << dof << " -> " << got << ", SciPy " << want);
      if (want == 0.0) CHECK(got == 0.0);
      else CHECK(close(got, want, 1e-12));
    }
  };
  check("z_of_t", "t", "z", sel::z_of_t);
  check("t_of_z", "z", "t", sel::t_of_z);
}

TEST_CASE("z_of_t in the far tail: exact while the tail is a double, Wallace's bound beyond", "[cpu][selection]") {
  const auto data = fixtures();
  std::size_t beyond = 0;
  for (const auto& c : data["z_of_t_far"]) {
    const double t = c["t"].get<double>(), dof = c["dof"].get<double>(), exact = c["z"].get<double>();
    const double got = sel::z_of_t(t, dof);
    INFO("t " << t << " dof " << dof << " z " << got << " 60 digits " << exact << " ln tail " << c["log_tail"]);
    REQUIRE(std::isfinite(got));
    // A z of 7 is a tail of 1e-12 and one of 30 a tail of 1e-198: from the upper tail, both
    // keep their digits (1 - F would be 1 and Z^-1(1) infinite).
    if (c["log_tail"].get<double>() > kLogTailLimit) {
      CHECK(close(got, exact, 1e-12));
    } else {
      ++beyond;
      CHECK(got >= exact);
      CHECK(got <= exact * 1.0025);
    }
    CHECK(sel::z_of_t(-t, dof) == -got);
  }
  CHECK(beyond >= 15);
  // Increasing in t across the junction where the double tail underflows (about t = 55.5 at
  // 1,000 degrees of freedom, 44.4 at 2,187, 37.6 at 100,000).
  for (const double dof : {80.0, 1000.0, 2187.0, 1e5}) {
    double previous = sel::z_of_t(30.0, dof);
    for (double t = 30.0; t < 70.0; t += 0.01) {
      const double z = sel::z_of_t(t, dof);
      INFO("dof " << dof << " t " << t);
      REQUIRE(z >= previous);
      previous = z;
    }
  }
}

TEST_CASE("z_of_t and t_of_z are inverse, odd, and refuse what has no answer", "[cpu][selection]") {
  for (const double dof : {1.0, 4.0, 16.0, 250.0, 1e6})
    for (const double t : {-9.0, -1.5, 0.2, 3.0, 6.09, 12.0}) {
      INFO("t " << t << " dof " << dof);
      CHECK(close(sel::t_of_z(sel::z_of_t(t, dof), dof), t, 1e-9));
      CHECK(sel::z_of_t(-t, dof) == -sel::z_of_t(t, dof));
    }
  // Heavier tails than the normal's: |z| < |t|, the more so the fewer degrees of freedom.
  CHECK(sel::z_of_t(3.0, 16.0) < sel::z_of_t(3.0, 100.0));
  CHECK(sel::z_of_t(3.0, 100.0) < 3.0);
  CHECK(sel::z_of_t(0.0, 5.0) == 0.0);
  CHECK(std::isnan(sel::z_of_t(NAN, 5.0)));
  CHECK(std::isnan(sel::z_of_t(1.0, 0.0)));
  CHECK(std::isnan(sel::t_of_z(1.0, -2.0)));
  CHECK(sel::z_of_t(INFINITY, 5.0) == INFINITY);
  CHECK(sel::z_of_t(-INFINITY, 5.0) == -INFINITY);
  CHECK(sel::t_of_z(40.0, 5.0) == INFINITY);
  CHECK(sel::t_of_z(-40.0, 5.0) == -INFINITY);
}
