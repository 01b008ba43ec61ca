#include "io/file_checksum.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "common/error.hpp"

namespace tpeopt::io {

namespace {
constexpr std::uint64_t kPrime = 0x100000001b3ULL;
inline std::uint64_t mix(std::uint64_t h, std::uint64_t w) {
  h = (h ^ w) * kPrime;
  return h ^ (h >> 31);
}
}  // namespace

void FastChecksum::add(const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  length_ += n;
  while (n > 0 && n_pending_ > 0) {
    pending_[n_pending_++] = *p++;
    --n;
    if (n_pending_ == 8) {
      std::uint64_t w;
      std::memcpy(&w, pending_, 8);
      h_ = mix(h_, w);
      n_pending_ = 0;
    }
  }
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h_ = mix(h_, w);
  }
  while (n-- > 0) pending_[n_pending_++] = *p++;
}

std::uint64_t FastChecksum::value() const {
  std::uint64_t h = h_;
  for (unsigned i = 0; i < n_pending_; ++i) h = (h ^ pending_[i]) * kPrime;
  h = mix(h, length_);
  return h ^ (h >> 29);
}

std::string FastChecksum::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value()));
  return buf;
}

std::string file_checksum_hex(const std::filesystem::path& path, std::uint64_t* size) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw make_error("{}: cannot open: {}", path.string(), std::strerror(errno));
  std::vector<unsigned char> buf(1 << 20);
  FastChecksum c;
  std::uint64_t total = 0;
  while (true) {
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
    c.add(buf.data(), n);
    total += n;
    if (n < buf.size()) break;
  }
  if (std::ferror(f.get())) throw make_error("{}: read failed: {}", path.string(), std::strerror(errno));
  if (size) *size = total;
  return c.hex();
}

std::string read_input_file(const std::filesystem::path& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw make_error("{}: cannot open: {}", path.string(), std::strerror(errno));
  std::string out;
  std::vector<char> buf(1 << 20);
  while (true) {
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
    out.append(buf.data(), n);
    if (n < buf.size()) break;
  }
  if (std::ferror(f.get())) throw make_error("{}: read failed: {}", path.string(), std::strerror(errno));
  return out;
}

}  // namespace tpeopt::io
