// segments_env.hpp: "G" or "G,ROOM" from an environment variable.
#include "strategies/device/segments_env.hpp"

#include <cstdlib>
#include <string>

#include "common/error.hpp"

namespace tpeopt::gpu {
namespace {

/// A whole non-negative decimal number below 10^9, or -1.
int parse_count(const std::string& s) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(s);
}

}  // namespace

SegmentsSetting segments_from_env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return {};
  const std::string text(v);
  const std::size_t comma = text.find(',');
  const int g = parse_count(text.substr(0, comma));
  const int room = comma == std::string::npos ? 0 : parse_count(text.substr(comma + 1));
  if (g < 0 || room < 0) throw make_error("{}: expected G or G,ROOM (whole numbers, 0 = auto), got \"{}\"", name, text);
  return {g, room};
}

}  // namespace tpeopt::gpu
