#pragma once
// The errors of one config file, collected so that a single message reports them all: a
// user fixes a file in one pass instead of one run per mistake. The config loader
// (config/study_config.cpp) and each strategy's parser (StrategyEntry::parse) record into one
// collector; parts of a config that do not depend on each other are checked each in its
// own `check`, so an error in one does not hide the errors of the others.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error_base.hpp"

namespace tpeopt::io {

class ConfigErrors {
 public:
  /// Records one error: "key: what is wrong" (the key path first, as every config error).
  void add(std::string message) { messages_.push_back(std::move(message)); }

  /// Runs `part`; the Error it throws (or a JSON type error) is recorded instead of thrown.
  /// Returns whether `part` ran to its end.
  template <typename Part>
  bool check(Part&& part) {
    try {
      std::forward<Part>(part)();
      return true;
    } catch (const Error& e) {
      add(e.what());
    } catch (const nlohmann::json::exception& e) {
      add(std::string("invalid config: ") + e.what());
    }
    return false;
  }

  bool empty() const { return messages_.empty(); }
  std::size_t size() const { return messages_.size(); }
  const std::vector<std::string>& messages() const { return messages_; }

  /// The errors as one message naming `source`: "source: key: what" for one error;
  /// "source: N errors:" then one indented line per error, in the order found, for several
  /// (without "source: " when `source` is empty).
  std::string message(const std::string& source) const;
  /// Throws Error(message(source)) when any error was recorded.
  void throw_if_any(const std::string& source) const;

 private:
  std::vector<std::string> messages_;
};

}  // namespace tpeopt::io
