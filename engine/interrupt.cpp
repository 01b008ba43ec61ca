#include "engine/interrupt.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>

namespace tpeopt::engine {

namespace {

std::atomic<int> g_signals{0};
std::atomic<int> g_first{0};
struct sigaction g_old_int {
}, g_old_term{};
// What a second signal writes before it exits: prepared outside the handler, which may
// only call async-signal-safe functions (write, _exit).
char g_second_message[4096];
std::size_t g_second_length = 0;

extern "C" void on_signal(int sig) {
  int expected = 0;
  g_first.compare_exchange_strong(expected, sig);
  if (g_signals.fetch_add(1) >= 1) {
    (void)!::write(2, g_second_message, g_second_length);
    ::_exit(130);
  }
  static const char msg[] = "\ntpeopt: interrupt: stopping after the batch being told (again to stop now)\n";
  (void)!::write(2, msg, sizeof msg - 1);
}

}  // namespace

InterruptGuard::InterruptGuard(const std::string& resume_hint) {
  g_signals = 0;
  g_first = 0;
  std::string text = "\ntpeopt: second interrupt: stopping now (the journal is consistent)\n";
  if (!resume_hint.empty()) text += resume_hint + "\n";
  g_second_length = std::min(text.size(), sizeof g_second_message);
  std::memcpy(g_second_message, text.data(), g_second_length);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  g_signals = 0;
  g_first = 0;
}

bool InterruptGuard::requested() { return g_signals.load(std::memory_order_relaxed) > 0; }
int InterruptGuard::signal_number() { return g_first.load(); }

}  // namespace tpeopt::engine
