// libFuzzer target: the study config loader must turn any input into either a valid
// config or a tpeopt::Error, never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "config/study_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto json = tpeopt::io::parse_json_text(text, "fuzz.json");
    const auto config = tpeopt::io::parse_study_config(json, "fuzz.json", ".");
    (void)config.resolved();
  } catch (const tpeopt::Error&) {}
  return 0;
}
