#include "engine/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/digest.hpp"
#include "common/error.hpp"

namespace tpeopt::engine {

namespace {

constexpr char kFileMagic[8] = {'T', 'P', 'E', 'O', 'P', 'T', 'J', '1'};
constexpr std::uint32_t kVersion = 2;  // 2: word-wise record checksums (common/digest.hpp)
constexpr std::uint32_t kBatchMagic = 0x48435442;  // "BTCH" little-endian
constexpr std::uint64_t kMaxPayload = std::uint64_t{1} << 40;

std::uint64_t checksum(const std::string& bytes) {
  Digest d;
  d.add_bytes(bytes.data(), bytes.size());
  return d.value();
}

template <typename T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_doubles(std::string& out, const std::vector<double>& v) {
  if (v.empty()) return;
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

/// Reads fixed-size fields from a payload, failing cleanly when it is short.
class Cursor {
 public:
  explicit Cursor(const std::string& s) : s_(s) {}
  template <typename T>
  bool get(T& v) {
    if (pos_ + sizeof v > s_.size()) return false;
    std::memcpy(&v, s_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool get_doubles(std::vector<double>& v, std::uint64_t n) {
    if (n > (s_.size() - pos_) / sizeof(double)) return false;
    if (n == 0) {  // memcpy with an empty vector's null data() is undefined
      v.clear();
      return true;
    }
    v.resize(n);
    std::memcpy(v.data(), s_.data() + pos_, n * sizeof(double));
    pos_ += n * sizeof(double);
    return true;
  }
  bool at_end() const { return pos_ == s_.size(); }

 private:
  const std::string& s_;
  std::size_t pos_ = 0;
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

std::string encode_record(const BatchRequest& q, const BatchResult& r, const BatchTimings& t) {
  std::string payload;
  payload.reserve(64 + 8 * (q.values.size() + r.scores.size() * 2 + r.metrics.size()));
  put(payload, q.batch_index);
  put(payload, q.first_trial);
  put(payload, static_cast<std::uint64_t>(q.n_trials));
  put(payload, static_cast<std::uint64_t>(q.n_axes));
  put(payload, static_cast<std::uint64_t>(r.n_metrics));
  put_doubles(payload, q.values);
  put_doubles(payload, r.scores);
  put_doubles(payload, r.violations);
  put_doubles(payload, r.metrics);
  for (double ms : {t.ask_ms, t.exec_ms, t.tell_ms, t.overlap_ms, t.idle_ms, t.wall_ms}) put(payload, ms);
  std::string record;
  put(record, kBatchMagic);
  put(record, std::uint32_t{0});
  put(record, static_cast<std::uint64_t>(payload.size()));
  record += payload;
  put(record, checksum(payload));
  return record;
}

bool decode_record(const std::string& payload, JournalRecord& out) {
  Cursor c(payload);
  BatchRequest& q = out.batch.request;
  BatchResult& r = out.batch.result;
  std::uint64_t n = 0, a = 0, m = 0;
  if (!c.get(q.batch_index) || !c.get(q.first_trial) || !c.get(n) || !c.get(a) || !c.get(m)) return false;
  if (n > kMaxPayload || a > kMaxPayload || m > kMaxPayload) return false;
  q.n_trials = n;
  q.n_axes = a;
  r.batch_index = q.batch_index;
  r.first_trial = q.first_trial;
  r.n_trials = n;
  r.n_metrics = m;
  if (!c.get_doubles(q.values, n * a) || !c.get_doubles(r.scores, n) || !c.get_doubles(r.violations, n) ||
      !c.get_doubles(r.metrics, n * m))
    return false;
  BatchTimings& t = out.timings;
  if (!c.get(t.ask_ms) || !c.get(t.exec_ms) || !c.get(t.tell_ms) || !c.get(t.overlap_ms) || !c.get(t.idle_ms) ||
      !c.get(t.wall_ms))
    return false;
  t.batch_index = q.batch_index;
  t.first_trial = q.first_trial;
  t.n_trials = n;
  t.replayed = true;
  return c.at_end();
}

}  // namespace

io::Json JournalHeader::to_json() const {
  return {{"config_digest", config_digest}, {"data_checksums", data_checksums}, {"n_axes", n_axes},
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw make_error("{}: cannot open the journal", path.string());
  const std::string where = path.string();
  auto read_bytes = [&](std::string& s, std::uint64_t n) {
    s.resize(n);
    in.read(s.data(), static_cast<std::streamsize>(n));
    return static_cast<std::uint64_t>(in.gcount()) == n;
  };
  const auto file_size = std::filesystem::file_size(path);

  JournalContents out;
  std::string magic, head;
  std::uint32_t version = 0, head_len = 0;
  std::uint64_t head_sum = 0;
  if (!read_bytes(magic, 8) || std::memcmp(magic.data(), kFileMagic, 8) != 0)
    throw make_error("{}: not a tpeopt journal (bad magic at byte 0)", where);
  in.read(reinterpret_cast<char*>(&version), sizeof version);
  in.read(reinterpret_cast<char*>(&head_len), sizeof head_len);
  if (!in || version != kVersion)
    throw make_error("{}: unsupported journal version {} (this tpeopt reads version {})", where, version, kVersion);
  if (head_len > (1u << 24) || !read_bytes(head, head_len) || !in.read(reinterpret_cast<char*>(&head_sum), 8) ||
      checksum(head) != head_sum)
    throw make_error("{}: the journal header is torn or corrupt (bytes 0..{}); the run cannot be resumed", where,
                     16 + head_len + 8);
  out.header = JournalHeader::from_json(io::Json::parse(head, nullptr, false), where);
  std::uint64_t offset = 16 + head_len + 8;
  out.valid_bytes = offset;

  // A crash mid-append leaves a prefix of a record, or a tail of zeros (blocks
  // allocated but never written): both are dropped. Anything else that fails to
  // check is corruption and stops the resume with its byte offset.
  auto rest_is_torn = [&](std::uint64_t from) {
    std::ifstream tail(path, std::ios::binary);
    tail.seekg(static_cast<std::streamoff>(from));
    char c;
    bool zeros = true;
    while (zeros && tail.get(c)) zeros = c == 0;
    if (zeros) return true;
    // A prefix of a record: the right magic and a length that runs past the end.
    std::uint32_t magic32 = 0;
    std::uint64_t len = 0;
    std::ifstream head_in(path, std::ios::binary);
    head_in.seekg(static_cast<std::streamoff>(from));
    if (!head_in.read(reinterpret_cast<char*>(&magic32), 4)) return true;  // fewer than 4 bytes
    if (magic32 != kBatchMagic) return false;
    head_in.seekg(4, std::ios::cur);
    if (!head_in.read(reinterpret_cast<char*>(&len), 8)) return true;
    return from + 16 + len + 8 >= file_size;
  };

  for (std::uint64_t index = 0; offset < file_size; ++index) {
    std::uint32_t magic32 = 0, reserved = 0;
    std::uint64_t len = 0, sum = 0;
    std::string payload;
    JournalRecord record;
    in.seekg(static_cast<std::streamoff>(offset));
    const bool framed = in.read(reinterpret_cast<char*>(&magic32), 4) && in.read(reinterpret_cast<char*>(&reserved), 4) &&
                        in.read(reinterpret_cast<char*>(&len), 8) && magic32 == kBatchMagic && len <= kMaxPayload &&
                        offset + 16 + len + 8 <= file_size;
    const bool ok = framed && read_bytes(payload, len) && in.read(reinterpret_cast<char*>(&sum), 8) &&
                    checksum(payload) == sum && decode_record(payload, record);
    if (!ok) {
      const bool last = framed ? offset + 16 + len + 8 == file_size : rest_is_torn(offset);
      if (last) {
        out.dropped_torn_tail = true;
        break;
      }
      throw make_error(
          "{}: record {} at byte offset {} is corrupt and is not the last one; the journal cannot be trusted "
          "(restore it from a backup or start a new run)",
          where, index, offset);
    }
    if (record.batch.request.batch_index != index)
      throw make_error("{}: record {} at byte offset {} holds batch {}; the journal is out of order", where, index,
                       offset, record.batch.request.batch_index);
    out.records.push_back(std::move(record));
    offset += 16 + len + 8;
    out.valid_bytes = offset;
  }
  return out;
}

JournalWriter JournalWriter::create(const std::filesystem::path& path, const JournalHeader& header) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw make_error("{}: cannot create the journal: {}", path.string(), std::strerror(errno));
  JournalWriter w(path, fd);
  const std::string head = header.to_json().dump();
  std::string bytes(kFileMagic, 8);
  put(bytes, kVersion);
  put(bytes, static_cast<std::uint32_t>(head.size()));
  bytes += head;
  put(bytes, checksum(head));
  write_all(fd, bytes, path);
  sync_or_throw(fd, path);
  sync_directory(path.parent_path());
  return w;
}

JournalWriter JournalWriter::open_for_append(const std::filesystem::path& path, std::uint64_t valid_bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw make_error("{}: cannot open the journal for writing: {}", path.string(), std::strerror(errno));
  JournalWriter w(path, fd);
  if (::ftruncate(fd, static_cast<off_t>(valid_bytes)) != 0 || ::lseek(fd, 0, SEEK_END) < 0)
    throw make_error("{}: cannot drop the torn tail: {}", path.string(), std::strerror(errno));
  sync_or_throw(fd, path);
  return w;
}

JournalWriter::JournalWriter(JournalWriter&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::append(const BatchRequest& request, const BatchResult& result, const BatchTimings& timings) {
  const off_t before = ::lseek(fd_, 0, SEEK_END);
  try {
    write_all(fd_, encode_record(request, result, timings), path_);
    sync_or_throw(fd_, path_);
  } catch (...) {
    // Leave no partial record behind (a later read would drop it anyway).
    if (before >= 0 && ::ftruncate(fd_, before) == 0) ::fsync(fd_);
    throw;
  }
}

}  // namespace tpeopt::engine
