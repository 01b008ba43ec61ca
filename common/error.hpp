#pragma once
#include <utility>

#include <fmt/format.h>

#include "common/error_base.hpp"

namespace tpeopt {

/// Builds an Error with fmt formatting: `throw make_error("{}: bad value", key);`
template <typename... Args>
Error make_error(fmt::format_string<Args...> format, Args&&... args) {
  return Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace tpeopt
