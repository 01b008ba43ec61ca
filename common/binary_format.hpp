#pragma once
// The fields of tpeopt's binary files (docs/design.md, "Data and run-directory formats"):
// fixed-width little-endian integers and IEEE doubles and floats, arrays of them,
// length-prefixed strings, 8-byte magics, and the checksum that ends a sealed file. The
// formats written by hand (the candles cache, the candle set cache, the prepared trade-log cache,
// the record file under both journals) write and read every field through these, so each
// says only its layout.
//
// A Writer appends to a sink, a small copyable object with write(const void*, std::size_t):
// a std::string (StringSink) or a file being written. A Reader takes fields from a source, a
// small copyable object with read(void*, std::size_t) -> bool that fails without reading
// past its end: a byte string (BytesSource) or a file. Readers return false when the bytes
// run out, so each format decides what a short file means (an error naming the file, or a
// torn last record).
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/digest.hpp"

static_assert(std::endian::native == std::endian::little,
              "tpeopt's binary files are little-endian and written as the machine holds its numbers");

namespace tpeopt::binary {

/// A field: an integer or a floating-point number, written as its bytes in memory.
template <typename T>
concept Field = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

/// An 8-byte file magic ("TPEOCNDL", ...).
using Magic = std::array<char, 8>;

/// The Digest (common/digest.hpp) of bytes: the checksum the record file's header and
/// records and the candle caches end with.
inline std::uint64_t digest_of(const void* data, std::size_t n) {
  Digest d;
  d.add_bytes(data, n);
  return d.value();
}
inline std::uint64_t digest_of(std::string_view bytes) { return digest_of(bytes.data(), bytes.size()); }

/// Appends to a std::string.
class StringSink {
 public:
  explicit StringSink(std::string& out) : out_(&out) {}
  void write(const void* data, std::size_t n) { out_->append(static_cast<const char*>(data), n); }
  const std::string& bytes() const { return *out_; }

 private:
  std::string* out_;
};

/// Appends fields to `Sink`.
template <typename Sink>
class Writer {
 public:
  explicit Writer(Sink sink) : sink_(std::move(sink)) {}
  Sink& sink() { return sink_; }

  void put_bytes(const void* data, std::size_t n) {
    if (n > 0) sink_.write(data, n);
  }
  template <Field T>
  void put(T v) {
    put_bytes(&v, sizeof v);
  }
  /// The values one after another (nothing for an empty array).
  template <Field T>
  void put_array(const std::vector<T>& v) {
    put_bytes(v.data(), v.size() * sizeof(T));
  }
  void put_magic(const Magic& magic) { put_bytes(magic.data(), magic.size()); }
  /// A u32 byte count, then the bytes.
  void put_string(std::string_view s) {
    put(static_cast<std::uint32_t>(s.size()));
    put_bytes(s.data(), s.size());
  }

 private:
  Sink sink_;
};

/// Fields appended to a std::string.
class StringWriter : public Writer<StringSink> {
 public:
  explicit StringWriter(std::string& out) : Writer<StringSink>(StringSink(out)) {}
  /// Appends the digest_of() of everything in the string so far: a sealed byte string.
  void seal() { put(digest_of(sink().bytes())); }
};

/// Reads a byte string in memory.
class BytesSource {
 public:
  explicit BytesSource(std::string_view bytes) : bytes_(bytes) {}
  bool read(void* out, std::size_t n) {
    if (n > bytes_.size() - pos_) return false;
    if (n > 0) std::memcpy(out, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

/// Takes fields from `Source`; every get returns false (and leaves its output unspecified)
/// when the source has too few bytes left.
template <typename Source>
class Reader {
 public:
  explicit Reader(Source source) : source_(std::move(source)) {}
  Source& source() { return source_; }
  const Source& source() const { return source_; }

  bool get_bytes(void* out, std::size_t n) { return source_.read(out, n); }
  template <Field T>
  bool get(T& v) {
    return get_bytes(&v, sizeof v);
  }
  /// n values into v (resized to n; cleared when n is 0). Refuses an n the source cannot
  /// hold before allocating, when the source knows how much it holds.
  template <Field T>
  bool get_array(std::vector<T>& v, std::uint64_t n) {
    if constexpr (requires(const Source& s) { s.remaining(); }) {
      if (n > source_.remaining() / sizeof(T)) return false;
    }
    v.resize(static_cast<std::size_t>(n));
    return get_bytes(v.data(), v.size() * sizeof(T));
  }
  /// Exactly n bytes as a string.
  bool get_string(std::string& s, std::size_t n) {
    if constexpr (requires(const Source& src) { src.remaining(); }) {
      if (n > source_.remaining()) return false;
    }
    s.resize(n);
    return get_bytes(s.data(), n);
  }
  /// A u32 byte count, then the bytes (Writer::put_string).
  bool get_string(std::string& s) {
    std::uint32_t n = 0;
    return get(n) && get_string(s, n);
  }
  /// True when the next 8 bytes are `magic`.
  bool get_magic(const Magic& magic) {
    Magic m{};
    return get_bytes(m.data(), m.size()) && m == magic;
  }

 private:
  Source source_;
};

/// Fields read from a byte string in memory.
class BytesReader : public Reader<BytesSource> {
 public:
  explicit BytesReader(std::string_view bytes) : Reader<BytesSource>(BytesSource(bytes)) {}
  std::size_t pos() const { return source().pos(); }
  std::size_t remaining() const { return source().remaining(); }
  bool at_end() const { return source().remaining() == 0; }
};

/// True when `bytes` ends with the digest_of() of what comes before (StringWriter::seal).
inline bool is_sealed(std::string_view bytes) {
  if (bytes.size() < 8) return false;
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, sizeof stored);
  return stored == digest_of(bytes.substr(0, bytes.size() - 8));
}

}  // namespace tpeopt::binary
