#include "storage/record_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/error.hpp"

namespace tpeopt::engine {

namespace {

constexpr std::uint64_t kMaxPayload = std::uint64_t{1} << 40;

std::uint64_t checksum(const std::string& bytes) { return binary::digest_of(bytes); }

/// A binary::Reader source over a file stream: a read fails when the file has fewer bytes.
class StreamSource {
 public:
  explicit StreamSource(std::ifstream& in) : in_(&in) {}
  bool read(void* out, std::size_t n) {
    in_->read(static_cast<char*>(out), static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(in_->gcount()) == n;
  }

 private:
  std::ifstream* in_;
};

void write_all(int fd, const std::string& bytes, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw make_error("{}: write failed: {}", path.string(), std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

void sync_or_throw(int fd, const std::filesystem::path& path) {
  if (::fsync(fd) != 0) throw make_error("{}: fsync failed: {}", path.string(), std::strerror(errno));
}

void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

RecordFileContents read_record_file(const std::filesystem::path& path, const RecordFileFormat& format) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw make_error("{}: cannot open the {}", path.string(), format.what);
  const std::string where = path.string();
  binary::Reader<StreamSource> r{StreamSource(in)};
  const auto file_size = std::filesystem::file_size(path);

  RecordFileContents out;
  std::uint32_t version = 0, head_len = 0;
  std::uint64_t head_sum = 0;
  if (!r.get_magic(format.magic)) throw make_error("{}: not a tpeopt {} (bad magic at byte 0)", where, format.what);
  const bool sized = r.get(version) && r.get(head_len);
  if (!sized || version != format.version)
    throw make_error("{}: unsupported {} version {} (this tpeopt reads version {})", where, format.what, version,
                     format.version);
  if (head_len > (1u << 24) || !r.get_string(out.header, head_len) || !r.get(head_sum) ||
      checksum(out.header) != head_sum)
    throw make_error("{}: the {} header is torn or corrupt (bytes 0..{}); the run cannot be resumed", where,
                     format.what, 16 + head_len + 8);
  std::uint64_t offset = 16 + head_len + 8;
  out.valid_bytes = offset;

  // What a crash mid-append leaves: a prefix of a record, or zeros.
  auto rest_is_torn = [&](std::uint64_t from) {
    std::ifstream tail(path, std::ios::binary);
    tail.seekg(static_cast<std::streamoff>(from));
    char c;
    bool zeros = true;
    while (zeros && tail.get(c)) zeros = c == 0;
    if (zeros) return true;
    std::uint32_t magic32 = 0, reserved = 0;
    std::uint64_t len = 0;
    std::ifstream head_in(path, std::ios::binary);
    head_in.seekg(static_cast<std::streamoff>(from));
    binary::Reader<StreamSource> head{StreamSource(head_in)};
    if (!head.get(magic32)) return true;  // fewer than 4 bytes
    if (magic32 != format.record_magic) return false;
    if (!head.get(reserved) || !head.get(len)) return true;
    return from + 16 + len + 8 >= file_size;
  };

  for (std::uint64_t index = 0; offset < file_size; ++index) {
    std::uint32_t magic32 = 0, reserved = 0;
    std::uint64_t len = 0, sum = 0;
    std::string payload;
    in.seekg(static_cast<std::streamoff>(offset));
    const bool framed = r.get(magic32) && r.get(reserved) && r.get(len) && magic32 == format.record_magic &&
                        len <= kMaxPayload && offset + 16 + len + 8 <= file_size;
    const bool ok = framed && r.get_string(payload, len) && r.get(sum) && checksum(payload) == sum;
    if (!ok) {
      const bool last = framed ? offset + 16 + len + 8 == file_size : rest_is_torn(offset);
      if (last) {
        out.dropped_torn_tail = true;
        break;
      }
      throw make_error(
          "{}: record {} at byte offset {} is corrupt and is not the last one; the {} cannot be trusted "
          "(restore it from a backup or start a new run)",
          where, index, offset, format.what);
    }
    out.payloads.push_back(std::move(payload));
    out.offsets.push_back(offset);
    offset += 16 + len + 8;
    out.valid_bytes = offset;
  }
  return out;
}

RecordFileWriter RecordFileWriter::create(const std::filesystem::path& path, const RecordFileFormat& format,
                                          const std::string& header) {
  // A file without its whole header would refuse every resume, and a process killed between
  // creating the file and writing the header would leave one: the header is written under a
  // temporary name and the file linked to its own name only then (link, like O_EXCL, refuses a
  // name that exists).
  const std::filesystem::path staged = path.string() + ".new";
  const int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw make_error("{}: cannot create the {}: {}", path.string(), format.what, std::strerror(errno));
  RecordFileWriter w(path, format, fd);
  std::string bytes;
  binary::StringWriter b(bytes);
  b.put_magic(format.magic);
  b.put(format.version);
  b.put(static_cast<std::uint32_t>(header.size()));
  b.put_bytes(header.data(), header.size());
  b.put(checksum(header));
  try {
    write_all(fd, bytes, path);
    sync_or_throw(fd, path);
    if (::link(staged.c_str(), path.c_str()) != 0)
      throw make_error("{}: cannot create the {}: {}", path.string(), format.what, std::strerror(errno));
  } catch (...) {
    ::unlink(staged.c_str());
    throw;
  }
  ::unlink(staged.c_str());
  sync_directory(path.parent_path());
  return w;
}

RecordFileWriter RecordFileWriter::open_for_append(const std::filesystem::path& path, const RecordFileFormat& format,
                                                   std::uint64_t valid_bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    throw make_error("{}: cannot open the {} for writing: {}", path.string(), format.what, std::strerror(errno));
  RecordFileWriter w(path, format, fd);
  if (::ftruncate(fd, static_cast<off_t>(valid_bytes)) != 0 || ::lseek(fd, 0, SEEK_END) < 0)
    throw make_error("{}: cannot drop the torn tail: {}", path.string(), std::strerror(errno));
  sync_or_throw(fd, path);
  return w;
}

RecordFileWriter::RecordFileWriter(RecordFileWriter&& other) noexcept
    : path_(std::move(other.path_)), format_(other.format_), fd_(other.fd_) {
  other.fd_ = -1;
}

RecordFileWriter::~RecordFileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordFileWriter::append(const std::string& payload) {
  std::string record;
  record.reserve(payload.size() + 24);
  binary::StringWriter b(record);
  b.put(format_.record_magic);
  b.put(std::uint32_t{0});
  b.put(static_cast<std::uint64_t>(payload.size()));
  b.put_bytes(payload.data(), payload.size());
  b.put(checksum(payload));
  const off_t before = ::lseek(fd_, 0, SEEK_END);
  try {
    write_all(fd_, record, path_);
    sync_or_throw(fd_, path_);
  } catch (...) {
    // Leave no partial record behind (a later read would drop it anyway).
    if (before >= 0 && ::ftruncate(fd_, before) == 0) ::fsync(fd_);
    throw;
  }
}

}  // namespace tpeopt::engine
