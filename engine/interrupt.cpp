#include "engine/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace tpeopt::engine {

namespace {

std::atomic<int> g_signals{0};
std::atomic<int> g_first{0};
struct sigaction g_old_int{}, g_old_term{};

extern "C" void on_signal(int sig) {
  int expected = 0;
  g_first.compare_exchange_strong(expected, sig);
  if (g_signals.fetch_add(1) >= 1) {
    static const char msg[] = "\ntpeopt: second interrupt: stopping now (the journal is consistent)\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(130);
  }
  static const char msg[] = "\ntpeopt: interrupt: finishing the batch being told, then stopping (again to stop now)\n";
  (void)!::write(2, msg, sizeof msg - 1);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signals = 0;
  g_first = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

bool InterruptGuard::requested() { return g_signals.load(std::memory_order_relaxed) > 0; }
int InterruptGuard::signal_number() { return g_first.load(); }

}  // namespace tpeopt::engine
