#pragma once
// The run journal: append-only, one checksummed record per told batch, flushed to
// disk (fsync) before the batch counts as done. `tpeopt resume` replays it.
//
// A record file (storage/record_file.hpp) with magic "TPEOPTJ1", a JSON header that
// describes the study (config digest, data checksums, shape) and one 'BTCH' record per
// batch: its request (trial numbers, parameters), result and timings.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/batch_timings.hpp"
#include "engine/pipeline.hpp"
#include "io/json_fields.hpp"
#include "storage/record_file.hpp"

namespace tpeopt::engine {

/// What the journal promises about the study it belongs to.
struct JournalHeader {
  std::string config_digest;                ///< digest of the resolved config (executor excluded)
  std::vector<std::string> data_checksums;  ///< the strategy's data sources
  std::uint64_t n_axes = 0, n_metrics = 0;

  io::Json to_json() const;
  static JournalHeader from_json(const io::Json& j, const std::string& where);
};

/// One journaled batch: what the pipeline replays, plus its original timings.
struct JournalRecord {
  ReplayedBatch batch;
  BatchTimings timings;  ///< ms fields only (intervals are not kept)
};

struct JournalContents {
  JournalHeader header;
  std::vector<JournalRecord> records;
  bool dropped_torn_tail = false;  ///< a torn/corrupt last record was found and ignored
  std::uint64_t valid_bytes = 0;   ///< length of the valid prefix (the file is truncated to it on resume)
};

/// Reads a journal. Throws tpeopt::Error naming the file and byte offset when it is not
/// a journal, its header is corrupt, or a record other than the last is corrupt.
JournalContents read_journal(const std::filesystem::path& path);

/// Appends records durably. Used from the sampler thread only.
class JournalWriter {
 public:
  /// Creates a new journal with `header` (the file must not exist).
  static JournalWriter create(const std::filesystem::path& path, const JournalHeader& header);
  /// Opens an existing journal for appending after truncating it to `valid_bytes`
  /// (drops a torn tail left by a crash).
  static JournalWriter open_for_append(const std::filesystem::path& path, std::uint64_t valid_bytes);

  /// Writes one record and fsyncs; throws Error (disk full, I/O error) without
  /// leaving a record that a later read would accept.
  void append(const BatchRequest& request, const BatchResult& result, const BatchTimings& timings);

 private:
  explicit JournalWriter(RecordFileWriter file) : file_(std::move(file)) {}
  RecordFileWriter file_;
};

}  // namespace tpeopt::engine
