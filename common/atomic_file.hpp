#pragma once
// Replacing a file so that readers (and a later resume) see the old or the new
// contents, never a mix: write a temporary file beside it, optionally fsync, rename.
#include <cstddef>
#include <filesystem>
#include <string_view>

namespace tpeopt {

/// A file written beside `path` (as `path`.tmp.PID, so that two processes replacing the same
/// file do not write into each other's) and renamed onto `path` by commit(). Destroyed
/// before commit(), for example by an exception on the way, it removes its temporary file
/// and leaves `path` as it was. Errors throw tpeopt::Error naming the file.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, std::size_t n);
  /// `durable`: fsync the data before the rename (for files a resume relies on).
  void commit(bool durable);

  const std::filesystem::path& path() const { return path_; }

 private:
  [[noreturn]] void fail(const char* what, int err);

  std::filesystem::path path_, tmp_;
  int fd_ = -1;
};

/// Writes `text` to `path` atomically (AtomicFileWriter).
void write_file_atomically(const std::filesystem::path& path, std::string_view text, bool durable);

}  // namespace tpeopt
