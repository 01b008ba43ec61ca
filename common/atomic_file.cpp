#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/error.hpp"

namespace tpeopt {

AtomicFileWriter::AtomicFileWriter(std::filesystem::path path)
    : path_(std::move(path)), tmp_(path_.string() + ".tmp." + std::to_string(::getpid())) {
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw make_error("{}: cannot create the file (as {}): {}", path_.string(), tmp_.filename().string(),
                     std::strerror(errno));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

void AtomicFileWriter::fail(const char* what, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  throw make_error("{}: {}: {}", path_.string(), what, std::strerror(err));
}

void AtomicFileWriter::write(const void* data, std::size_t n) {
  const char* bytes = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < n) {
    const ssize_t k = ::write(fd_, bytes + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) fail("write failed", errno);
    done += static_cast<std::size_t>(k);
  }
}

void AtomicFileWriter::commit(bool durable) {
  if (durable && ::fsync(fd_) != 0) fail("fsync failed", errno);
  // close() can report a write error that the writes did not (NFS, quotas).
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) fail("write failed", errno);
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail("cannot replace the file", errno);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text, bool durable) {
  AtomicFileWriter file(path);
  file.write(text.data(), text.size());
  file.commit(durable);
}

}  // namespace tpeopt
