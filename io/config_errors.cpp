#include "io/config_errors.hpp"

namespace tpeopt::io {

std::string ConfigErrors::message(const std::string& source) const {
  const std::string prefix = source.empty() ? "" : source + ": ";
  if (messages_.size() == 1) return prefix + messages_.front();
  std::string out = prefix + std::to_string(messages_.size()) + " errors:";
  for (const auto& m : messages_) {
    // A message of several lines (one that names a command to run) keeps its lines indented.
    out += "\n  ";
    for (char c : m) {
      out += c;
      if (c == '\n') out += "    ";
    }
  }
  return out;
}

void ConfigErrors::throw_if_any(const std::string& source) const {
  if (!messages_.empty()) throw Error(message(source));
}

}  // namespace tpeopt::io
