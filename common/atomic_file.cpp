#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"

namespace tpeopt {

void write_file_atomically(const std::filesystem::path& p, std::string_view text, bool durable) {
  const std::filesystem::path tmp = p.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw make_error("{}: cannot create the file: {}", tmp.string(), std::strerror(errno));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw make_error("{}: write failed: {}", p.string(), std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (durable && ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw make_error("{}: fsync failed: {}", p.string(), std::strerror(err));
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), p.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw make_error("{}: cannot replace the file: {}", p.string(), std::strerror(err));
  }
}

}  // namespace tpeopt
