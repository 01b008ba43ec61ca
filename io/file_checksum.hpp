#pragma once
// Checksums of input files (a prepared data cache records them and is keyed by them).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tpeopt::io {

/// A 64-bit checksum of bytes: FNV-1a over 64-bit little-endian words (then the tail
/// bytes and the length), fast enough for gigabytes of CSV. Not cryptographic.
class FastChecksum {
 public:
  void add(const void* data, std::size_t n);
  std::uint64_t value() const;
  std::string hex() const;

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
  std::uint64_t length_ = 0;
  unsigned char pending_[8] = {};
  unsigned n_pending_ = 0;
};

/// The checksum of a file's bytes (16 hex digits); throws Error naming the path.
std::string file_checksum_hex(const std::filesystem::path& path, std::uint64_t* size = nullptr);

/// The whole file as a string; throws Error naming the path when it cannot be read.
std::string read_input_file(const std::filesystem::path& path);

}  // namespace tpeopt::io
