// [cpu]: "all cores" is the CPUs a process may run on (common/hardware_threads.hpp): a
// container's or taskset's affinity limit, not the host's count, for the worker pools
// (threads = 0) as for the ask workers beside a GPU.
#include <catch2/catch.hpp>

#include <sched.h>

#include "common/hardware_threads.hpp"
#include "common/worker_pool.hpp"

using namespace tpeopt;

TEST_CASE("usable hardware threads and a pool of all cores follow the CPU affinity", "[cpu]") {
  cpu_set_t original;
  REQUIRE(sched_getaffinity(0, sizeof(original), &original) == 0);
  CHECK(usable_hardware_threads() == static_cast<unsigned>(CPU_COUNT(&original)));
  CHECK(WorkerPool(0).size() == usable_hardware_threads());
  int first = 0;
  while (!CPU_ISSET(first, &original)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);  // this thread only; restored below
  const unsigned limited = usable_hardware_threads();
  const unsigned pool = WorkerPool(0).size();
  REQUIRE(sched_setaffinity(0, sizeof(original), &original) == 0);
  CHECK(limited == 1);
  CHECK(pool == 1);
}
