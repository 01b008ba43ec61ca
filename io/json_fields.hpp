#pragma once
// Typed, validated access to one JSON object of a config, naming the key path in
// every error ("search.batch: expected a positive integer, got -3").
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tpeopt::io {

class ConfigErrors;

using Json = nlohmann::ordered_json;  // keeps keys in the order written (params order matters)

class JsonFields {
 public:
  /// `path` is the key path of `object` ("" for the root); throws if it is not an object.
  JsonFields(const Json& object, std::string path);

  const std::string& path() const { return path_; }
  /// "path.key" (or "key" at the root).
  std::string key_path(const std::string& key) const;
  bool has(const std::string& key) const { return object_.contains(key); }
  const Json& at(const std::string& key) const { return object_.at(key); }

  /// Throws naming the first key not in `allowed`; with `errors`, records every such key
  /// there instead (and returns).
  void reject_unknown(std::initializer_list<const char*> allowed, ConfigErrors* errors = nullptr) const;
  void reject_unknown(const std::vector<std::string>& allowed, ConfigErrors* errors = nullptr) const;

  std::string get_string(const std::string& key, std::optional<std::string> fallback = std::nullopt) const;
  double get_number(const std::string& key, std::optional<double> fallback = std::nullopt) const;
  bool get_bool(const std::string& key, std::optional<bool> fallback = std::nullopt) const;
  /// An integer in [min, max].
  std::int64_t get_int(const std::string& key, std::optional<std::int64_t> fallback, std::int64_t min,
                       std::int64_t max) const;
  /// One of `choices`.
  std::string get_choice(const std::string& key, std::initializer_list<const char*> choices,
                         std::optional<std::string> fallback = std::nullopt) const;

 private:
  const Json& required(const std::string& key) const;
  const Json& object_;
  std::string path_;
};

/// Human name of a JSON value's type, for error messages.
std::string json_type_name(const Json& value);

}  // namespace tpeopt::io
