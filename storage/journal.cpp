#include "storage/journal.hpp"

#include "common/error.hpp"

namespace tpeopt::engine {

namespace {

constexpr RecordFileFormat kFormat{{'T', 'P', 'E', 'O', 'P', 'T', 'J', '1'},
                                   2,           // 2: word-wise record checksums (common/digest.hpp)
                                   0x48435442,  // "BTCH" little-endian
                                   "journal"};
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 40;

std::string encode_record(const BatchRequest& q, const BatchResult& r, const BatchTimings& t) {
  std::string payload;
  payload.reserve(64 + 8 * (q.values.size() + r.scores.size() * 2 + r.metrics.size()));
  binary::StringWriter w(payload);
  w.put(q.batch_index);
  w.put(q.first_trial);
  w.put(static_cast<std::uint64_t>(q.n_trials));
  w.put(static_cast<std::uint64_t>(q.n_axes));
  w.put(static_cast<std::uint64_t>(r.n_metrics));
  w.put_array(q.values);
  w.put_array(r.scores);
  w.put_array(r.violations);
  w.put_array(r.metrics);
  for (double ms : {t.ask_ms, t.exec_ms, t.tell_ms, t.overlap_ms, t.idle_ms, t.wall_ms}) w.put(ms);
  // Successive halving (docs/user-guide.md, "Successive halving"): an optional tail, so journals without it read as
  // before.
  if (!r.rung.empty()) {
    w.put(static_cast<std::int64_t>(r.n_rungs));
    w.put_array(r.rung);
  }
  return payload;
}

bool decode_record(const std::string& payload, JournalRecord& out) {
  binary::BytesReader c(payload);
  BatchRequest& q = out.batch.request;
  BatchResult& r = out.batch.result;
  std::uint64_t n = 0, a = 0, m = 0;
  if (!c.get(q.batch_index) || !c.get(q.first_trial) || !c.get(n) || !c.get(a) || !c.get(m)) return false;
  if (n > kMaxCount || a > kMaxCount || m > kMaxCount) return false;
  q.n_trials = n;
  q.n_axes = a;
  r.batch_index = q.batch_index;
  r.first_trial = q.first_trial;
  r.n_trials = n;
  r.n_metrics = m;
  if (!c.get_array(q.values, n * a) || !c.get_array(r.scores, n) || !c.get_array(r.violations, n) ||
      !c.get_array(r.metrics, n * m))
    return false;
  BatchTimings& t = out.timings;
  if (!c.get(t.ask_ms) || !c.get(t.exec_ms) || !c.get(t.tell_ms) || !c.get(t.overlap_ms) || !c.get(t.idle_ms) ||
      !c.get(t.wall_ms))
    return false;
  t.batch_index = q.batch_index;
  t.first_trial = q.first_trial;
  t.n_trials = n;
  t.replayed = true;
  if (!c.at_end()) {
    std::int64_t n_rungs = 0;
    if (!c.get(n_rungs) || n_rungs < 1 || n_rungs > 63) return false;
    r.n_rungs = static_cast<std::int32_t>(n_rungs);
    r.rung.resize(n);
    for (auto& x : r.rung)
      if (!c.get(x) || x < 0 || x >= n_rungs) return false;
  }
  return c.at_end();
}

}  // namespace

io::Json JournalHeader::to_json() const {
  return {{"config_digest", config_digest},
          {"data_checksums", data_checksums},
          {"n_axes", n_axes},
          {"n_metrics", n_metrics}};
}

JournalHeader JournalHeader::from_json(const io::Json& j, const std::string& where) {
  try {
    JournalHeader h;
    h.config_digest = j.at("config_digest").get<std::string>();
    h.data_checksums = j.at("data_checksums").get<std::vector<std::string>>();
    h.n_axes = j.at("n_axes").get<std::uint64_t>();
    h.n_metrics = j.at("n_metrics").get<std::uint64_t>();
    return h;
  } catch (const std::exception& e) {
    throw make_error("{}: the journal header is not valid ({})", where, e.what());
  }
}

JournalContents read_journal(const std::filesystem::path& path) {
  RecordFileContents file = read_record_file(path, kFormat);
  JournalContents out;
  out.header = JournalHeader::from_json(io::Json::parse(file.header, nullptr, false), path.string());
  out.dropped_torn_tail = file.dropped_torn_tail;
  out.valid_bytes = file.valid_bytes;
  for (std::size_t i = 0; i < file.payloads.size(); ++i) {
    JournalRecord record;
    if (!decode_record(file.payloads[i], record))
      throw make_error(
          "{}: record {} at byte offset {} has a valid checksum but not the layout of a batch; the "
          "journal was written by another tpeopt version",
          path.string(), i, file.offsets[i]);
    if (record.batch.request.batch_index != i)
      throw make_error("{}: record {} at byte offset {} holds batch {}; the journal is out of order", path.string(), i,
                       file.offsets[i], record.batch.request.batch_index);
    out.records.push_back(std::move(record));
  }
  return out;
}

JournalWriter JournalWriter::create(const std::filesystem::path& path, const JournalHeader& header) {
  return JournalWriter(RecordFileWriter::create(path, kFormat, header.to_json().dump()));
}

JournalWriter JournalWriter::open_for_append(const std::filesystem::path& path, std::uint64_t valid_bytes) {
  return JournalWriter(RecordFileWriter::open_for_append(path, kFormat, valid_bytes));
}

void JournalWriter::append(const BatchRequest& request, const BatchResult& result, const BatchTimings& timings) {
  file_.append(encode_record(request, result, timings));
}

}  // namespace tpeopt::engine
