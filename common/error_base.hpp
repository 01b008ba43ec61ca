#pragma once
// Free of fmt so that nvcc-compiled files can include it (nvcc rejects fmt 9's
// consteval format strings); error.hpp adds make_error.
// Two tiers of errors (STYLE.md lesson 4):
//  - tpeopt::Error: a user-facing problem (bad config key, bad CSV cell, missing file,
//    device failure). Its message already says where; callers print it and exit non-zero.
//  - TPEOPT_ASSERT: a broken internal invariant; aborts with file and line.
#include <stdexcept>
#include <string>

namespace tpeopt {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

[[noreturn]] void assertion_failed(const char* expr, const char* file, int line, const std::string& what);

}  // namespace tpeopt

#define TPEOPT_ASSERT(cond, what)                                               \
  do {                                                                          \
    if (!(cond)) ::tpeopt::assertion_failed(#cond, __FILE__, __LINE__, (what)); \
  } while (0)
