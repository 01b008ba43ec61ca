// [cpu]: the forced cut of a segmented twin from the environment (segments_env.hpp): "G" and
// "G,ROOM" in whole numbers, unset or empty meaning auto, anything else an error that names
// the variable and quotes its value. Here because the parser is built with the device glue
// (CUDA builds only); it needs no GPU, so CTest runs it with the CPU tests.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "strategies/device/segments_env.hpp"

using namespace tpeopt;

namespace {

constexpr const char* kVariable = "TPEOPT_TEST_SEGMENTS_ENV";

gpu::SegmentsSetting parsed(const char* value) {
  if (value) ::setenv(kVariable, value, 1);
  else ::unsetenv(kVariable);
  return gpu::segments_from_env(kVariable);
}

}  // namespace

TEST_CASE("segments from the environment: G or G,ROOM, else an error naming the variable", "[cpu][segments]") {
  for (const char* unset : {static_cast<const char*>(nullptr), ""}) {
    const auto s = parsed(unset);
    CHECK(s.segments == 0);
    CHECK(s.room == 0);
  }
  auto s = parsed("12");
  CHECK(s.segments == 12);
  CHECK(s.room == 0);
  s = parsed("7,3");
  CHECK(s.segments == 7);
  CHECK(s.room == 3);
  s = parsed("0,0");
  CHECK(s.segments == 0);
  CHECK(s.room == 0);
  for (const char* bad : {"x", "-1", "3,", ",3", "1,2,3", "1.5", " 4", "1234567890"}) {
    CAPTURE(bad);
    try {
      parsed(bad);
      FAIL("no error");
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find(kVariable) != std::string::npos);
      CHECK(what.find(std::string("\"") + bad + "\"") != std::string::npos);
    }
  }
  ::unsetenv(kVariable);
}
