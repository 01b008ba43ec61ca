#pragma once
// A durable file of checksummed records: what the run journal and the grid journal
// share. Layout:
//   8-byte file magic | u32 version | u32 header bytes | header | u64 Digest of header
//   then records: u32 record magic | u32 0 | u64 payload bytes | payload | u64 Digest of payload
// Appends are fsynced before they return. On reading, a torn or corrupt LAST record
// (a crash mid-write: a prefix of a record, or a tail of zeros from blocks allocated
// but never written) is dropped; a bad record followed by more data is an error
// naming its byte offset.
// Every field is written and read through common/binary_format.hpp, and so are the
// payloads the journals put in their records.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/binary_format.hpp"

namespace tpeopt::engine {

/// Identifies one kind of record file.
struct RecordFileFormat {
  binary::Magic magic;
  std::uint32_t version = 0;
  std::uint32_t record_magic = 0;
  const char* what = "journal";  ///< for messages: "journal", "grid journal"
};

struct RecordFileContents {
  std::string header;                  ///< the header bytes (checksum verified)
  std::vector<std::string> payloads;   ///< every intact record's payload, in file order
  std::vector<std::uint64_t> offsets;  ///< byte offset of each record
  bool dropped_torn_tail = false;      ///< a torn/corrupt last record was found and ignored
  std::uint64_t valid_bytes = 0;       ///< length of the valid prefix
};

/// Reads a record file. Throws tpeopt::Error naming the file (and byte offset) when it
/// is not of `format`, its header is corrupt, or a record other than the last is corrupt.
RecordFileContents read_record_file(const std::filesystem::path& path, const RecordFileFormat& format);

/// Appends records durably.
class RecordFileWriter {
 public:
  /// Creates a new file with `header` (the file must not exist); fsyncs it and its folder.
  static RecordFileWriter create(const std::filesystem::path& path, const RecordFileFormat& format,
                                 const std::string& header);
  /// Opens an existing file for appending after truncating it to `valid_bytes`.
  static RecordFileWriter open_for_append(const std::filesystem::path& path, const RecordFileFormat& format,
                                          std::uint64_t valid_bytes);

  RecordFileWriter(RecordFileWriter&& other) noexcept;
  RecordFileWriter& operator=(RecordFileWriter&&) = delete;
  ~RecordFileWriter();

  /// Writes one record and fsyncs. On failure (disk full, I/O error) the file is cut
  /// back to its previous length and Error is thrown naming the file and the cause.
  void append(const std::string& payload);

 private:
  RecordFileWriter(std::filesystem::path path, const RecordFileFormat& format, int fd)
      : path_(std::move(path)), format_(format), fd_(fd) {}
  std::filesystem::path path_;
  RecordFileFormat format_;
  int fd_ = -1;
};

}  // namespace tpeopt::engine
