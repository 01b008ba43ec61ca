#pragma once
// Fault injection for testing the failure paths end to end (a device that fails in the
// middle of a run, then `tpeopt resume DIR --executor cpu`): with the environment
// variable TPEOPT_FAIL_AT_BATCH=k set, the executor fails when batch k completes.
// Unset (the normal case) it costs nothing: make_fault_injector returns null.
#include <cstdint>
#include <memory>
#include <optional>

#include "engine/executor.hpp"

namespace tpeopt::engine {

/// The batch index named by TPEOPT_FAIL_AT_BATCH, if set.
std::optional<std::uint64_t> injected_failure_batch();

/// Wraps `inner` so that completing batch `fail_at` throws a tpeopt::Error.
std::unique_ptr<Executor> make_fault_injector(Executor& inner, std::uint64_t fail_at);

}  // namespace tpeopt::engine
