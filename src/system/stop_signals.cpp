#include "system/stop_signals.hpp"

#include <csignal>

namespace nqc {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }
constexpr int kSignals[3] = {SIGTERM, SIGINT, SIGUSR1};

}  // namespace

const std::atomic<bool>& stop_requested() { return g_stop; }

void catch_stop_signals() {
  for (const int sig : kSignals) std::signal(sig, on_stop_signal);
}

StopSignalsScope::StopSignalsScope() {
  for (int i = 0; i < 3; ++i) before_[i] = std::signal(kSignals[i], on_stop_signal);
}

StopSignalsScope::~StopSignalsScope() {
  for (int i = 0; i < 3; ++i) std::signal(kSignals[i], before_[i]);
}

}  // namespace nqc
