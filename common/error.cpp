#include "common/error.hpp"

#include <cstdio>
#include <cstdlib>

namespace tpeopt {

void assertion_failed(const char* expr, const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "tpeopt: internal error at %s:%d: %s (%s)\n", file, line, what.c_str(), expr);
  std::abort();
}

}  // namespace tpeopt
