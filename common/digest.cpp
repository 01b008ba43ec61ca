#include "common/digest.hpp"

#include <fmt/format.h>

namespace tpeopt {

std::string Digest::hex() const { return fmt::format("{:016x}", state_); }

}  // namespace tpeopt
