#include "engine/fault_injection.hpp"

#include <cstdlib>
#include <string>

#include "common/error.hpp"

namespace tpeopt::engine {

namespace {

class FaultInjector final : public Executor {
 public:
  FaultInjector(Executor& inner, std::uint64_t fail_at) : inner_(inner), fail_at_(fail_at) {}
  std::string name() const override { return inner_.name(); }
  std::size_t max_in_flight() const override { return inner_.max_in_flight(); }
  bool oldest_ready() override { return inner_.oldest_ready(); }
  void submit(BatchRequest request) override { inner_.submit(std::move(request)); }
  BatchResult complete() override { return check(inner_.complete()); }
  BatchResult evaluate(const BatchRequest& request) override { return check(inner_.evaluate(request)); }

 private:
  BatchResult check(BatchResult r) const {
    if (r.batch_index == fail_at_)
      throw make_error("executor {}: injected failure at batch {} (TPEOPT_FAIL_AT_BATCH)", inner_.name(), fail_at_);
    return r;
  }
  Executor& inner_;
  std::uint64_t fail_at_;
};

}  // namespace

std::optional<std::uint64_t> injected_failure_batch() {
  const char* v = std::getenv("TPEOPT_FAIL_AT_BATCH");
  if (!v || !*v) return std::nullopt;
  try {
    return std::stoull(v);
  } catch (const std::exception&) {
    throw make_error("TPEOPT_FAIL_AT_BATCH: expected a batch number, got \"{}\"", v);
  }
}

std::unique_ptr<Executor> make_fault_injector(Executor& inner, std::uint64_t fail_at) {
  return std::make_unique<FaultInjector>(inner, fail_at);
}

}  // namespace tpeopt::engine
