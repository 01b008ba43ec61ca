#include "common/host_memory.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace tpeopt {

namespace {

std::optional<std::uint64_t> memory_from_environment() {
  if (const char* mb = std::getenv("TPEOPT_AVAILABLE_MEMORY_MB"); mb && *mb) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(mb, &end, 10);
    if (end && *end == '\0') return static_cast<std::uint64_t>(v) << 20;
  }
  return std::nullopt;
}

}  // namespace

std::string available_host_memory_source() {
  return memory_from_environment() ? "TPEOPT_AVAILABLE_MEMORY_MB" : "MemAvailable in /proc/meminfo";
}

std::optional<std::uint64_t> available_host_memory() {
  if (const auto v = memory_from_environment()) return v;
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value * 1024;  // the file counts kB
  }
  return std::nullopt;
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* const kUnits[] = {"KB", "MB", "GB", "TB", "PB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  return fmt::format("{:.1f} {}", v, kUnits[u]);
}

}  // namespace tpeopt
