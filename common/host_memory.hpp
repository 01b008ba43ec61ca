#pragma once
// Memory checks before memory is spent (docs/user-guide.md, "Memory"): what the host has available,
// and bytes written for people.
#include <cstdint>
#include <optional>
#include <string>

namespace tpeopt {

/// Bytes of host memory available to a new allocation: MemAvailable of /proc/meminfo (the
/// kernel's estimate of what can be allocated without swapping). The environment variable
/// TPEOPT_AVAILABLE_MEMORY_MB, when set, replaces it (tests use it to check the refusals'
/// arithmetic). nullopt where neither is known.
std::optional<std::uint64_t> available_host_memory();

/// Where available_host_memory() took its number from, for messages.
std::string available_host_memory_source();

/// "1.5 GB", "12.0 MB", "900 bytes" (powers of 1024, one decimal).
std::string format_bytes(std::uint64_t bytes);

}  // namespace tpeopt
