#include "io/json_fields.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/ranges.h>

#include "common/error.hpp"
#include "io/config_errors.hpp"

namespace tpeopt::io {

std::string json_type_name(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

JsonFields::JsonFields(const Json& object, std::string path) : object_(object), path_(std::move(path)) {
  if (!object_.is_object())
    throw make_error("{}: expected an object, got {}", path_.empty() ? "config" : path_, json_type_name(object_));
}

std::string JsonFields::key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void JsonFields::reject_unknown(std::initializer_list<const char*> allowed, ConfigErrors* errors) const {
  reject_unknown(std::vector<std::string>(allowed.begin(), allowed.end()), errors);
}

void JsonFields::reject_unknown(const std::vector<std::string>& allowed, ConfigErrors* errors) const {
  for (const auto& [key, value] : object_.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string message = fmt::format("{}: unknown key (expected one of: {})", key_path(key), fmt::join(allowed, ", "));
    if (!errors) throw Error(message);
    errors->add(std::move(message));
  }
}

const Json& JsonFields::required(const std::string& key) const {
  if (!object_.contains(key)) throw make_error("{}: missing (required)", key_path(key));
  return object_.at(key);
}

std::string JsonFields::get_string(const std::string& key, std::optional<std::string> fallback) const {
  if (!has(key) && fallback) return *fallback;
  const Json& v = required(key);
  if (!v.is_string()) throw make_error("{}: expected a string, got {}", key_path(key), json_type_name(v));
  return v.get<std::string>();
}

double JsonFields::get_number(const std::string& key, std::optional<double> fallback) const {
  if (!has(key) && fallback) return *fallback;
  const Json& v = required(key);
  if (!v.is_number()) throw make_error("{}: expected a number, got {}", key_path(key), json_type_name(v));
  const double d = v.get<double>();
  if (!std::isfinite(d)) throw make_error("{}: expected a finite number", key_path(key));
  return d;
}

bool JsonFields::get_bool(const std::string& key, std::optional<bool> fallback) const {
  if (!has(key) && fallback) return *fallback;
  const Json& v = required(key);
  if (!v.is_boolean()) throw make_error("{}: expected true or false, got {}", key_path(key), json_type_name(v));
  return v.get<bool>();
}

std::int64_t JsonFields::get_int(const std::string& key, std::optional<std::int64_t> fallback, std::int64_t min,
                                 std::int64_t max) const {
  if (!has(key) && fallback) return *fallback;
  const Json& v = required(key);
  std::int64_t i = 0;
  if (v.is_number_integer() || v.is_number_unsigned()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      throw make_error("{}: {} is too large (at most {})", key_path(key), v.dump(), max);
    i = v.get<std::int64_t>();
  } else if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
             std::fabs(v.get<double>()) < 9e15) {
    i = static_cast<std::int64_t>(v.get<double>());
  } else {
    throw make_error("{}: expected an integer, got {}", key_path(key), v.is_number() ? v.dump() : json_type_name(v));
  }
  if (i < min || i > max) throw make_error("{}: expected an integer in [{}, {}], got {}", key_path(key), min, max, i);
  return i;
}

std::string JsonFields::get_choice(const std::string& key, std::initializer_list<const char*> choices,
                                   std::optional<std::string> fallback) const {
  const std::string s = get_string(key, std::move(fallback));
  for (const char* c : choices)
    if (s == c) return s;
  throw make_error("{}: \"{}\" is not one of: {}", key_path(key), s, fmt::join(choices, ", "));
}

}  // namespace tpeopt::io
