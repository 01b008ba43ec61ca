#include "common/hardware_threads.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace tpeopt {

unsigned usable_hardware_threads() {
  cpu_set_t allowed;
  const unsigned n = sched_getaffinity(0, sizeof(allowed), &allowed) == 0 ? static_cast<unsigned>(CPU_COUNT(&allowed))
                                                                          : std::thread::hardware_concurrency();
  return std::max(1u, n);
}

}  // namespace tpeopt
