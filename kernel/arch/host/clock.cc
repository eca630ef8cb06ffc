// The HAL clock on the host board: CLOCK_MONOTONIC for time, the TSC for
// cycles, ppoll() for idle (see interrupts.h).
#include "kernel/hal/clock.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "kernel/arch/host/interrupts.h"
#include "kernel/hal/busy_tick.h"
#include "kernel/lib/result.h"

namespace starling {
namespace {

struct Watch {
  int fd = -1;
  async::InterruptSource* source = nullptr;
};

// Only the executor's thread touches these (watch_fd, idle).
Watch g_watches[host::kMaxWatchedFds];
std::uint64_t g_deadline = hal::kNoDeadline;
std::uint64_t g_idle_calls = 0;
bool g_interrupts_enabled = true;

// Written by raise_interrupt from any thread: makes a sleeping ppoll return.
int wake_fd() {
  static const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  return fd;
}

}  // namespace

namespace hal {

std::uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t cycles() {
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#else
  return now_ns();
#endif
}

// No per-process retired-instruction counter without perf_event_open (often
// forbidden in containers): 0, documented in hal/clock.h.
std::uint64_t instructions() {
  return 0;
}

void set_wakeup(std::uint64_t deadline_ns) {
  g_deadline = deadline_ns;
}

bool mask_interrupts() {
  const bool were_enabled = g_interrupts_enabled;
  g_interrupts_enabled = false;
  return were_enabled;
}

void restore_interrupts(bool were_enabled) {
  g_interrupts_enabled = were_enabled;
}

std::uint64_t idle() {
  ++g_idle_calls;
  pollfd fds[1 + host::kMaxWatchedFds];
  async::InterruptSource* sources[1 + host::kMaxWatchedFds] = {};
  nfds_t n = 0;
  fds[n++] = {wake_fd(), POLLIN, 0};
  for (const Watch& w : g_watches) {
    // A pending source is "masked": its fd stays readable until its task
    // drains it, which must not spin the loop.
    if (w.source == nullptr || w.source->pending()) continue;
    sources[n] = w.source;
    fds[n++] = {w.fd, POLLIN, 0};
  }
  timespec timeout;
  timespec* timeout_ptr = nullptr;
  if (g_deadline != kNoDeadline) {
    const std::uint64_t now = now_ns();
    const std::uint64_t wait = g_deadline > now ? g_deadline - now : 0;
    timeout.tv_sec = static_cast<time_t>(wait / 1'000'000'000u);
    timeout.tv_nsec = static_cast<long>(wait % 1'000'000'000u);
    timeout_ptr = &timeout;
  }
  // Interrupts are "enabled" while asleep: this is where handlers run.
  g_interrupts_enabled = true;
  const std::uint64_t before = cycles();
  const int ready = ppoll(fds, n, timeout_ptr, nullptr);
  const std::uint64_t asleep = cycles() - before;
  if (ready > 0) {
    if (fds[0].revents != 0) {
      std::uint64_t count;
      while (read(fds[0].fd, &count, sizeof count) == sizeof count) {
      }
    }
    for (nfds_t i = 1; i < n; ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) sources[i]->signal();
    }
  }
  g_interrupts_enabled = false;
  return asleep;
}

// No busy tick in a Linux process: a stalled task there is a busy thread
// that perf, gdb and valgrind already show.
Result<void> set_busy_tick(std::uint64_t period_ns, BusyTick /*tick*/) {
  if (period_ns == 0) return {};
  return Unexpected(Error::kUnsupported);
}

void print_backtrace(std::string_view /*prefix*/, const InterruptedAt& /*where*/) {}

}  // namespace hal

namespace host {

Result<void> watch_fd(int fd, async::InterruptSource& source) noexcept {
  Watch* free_slot = nullptr;
  for (Watch& w : g_watches) {
    if (w.source != nullptr && w.fd == fd) return Unexpected(Error::kBusy);
    if (w.source == nullptr && free_slot == nullptr) free_slot = &w;
  }
  if (free_slot == nullptr) return Unexpected(Error::kNoMemory);
  *free_slot = Watch{fd, &source};
  return {};
}

Result<void> unwatch_fd(int fd) noexcept {
  for (Watch& w : g_watches) {
    if (w.source != nullptr && w.fd == fd) {
      w = Watch{};
      return {};
    }
  }
  return Unexpected(Error::kNotFound);
}

void raise_interrupt(async::InterruptSource& source) noexcept {
  source.signal();
  const std::uint64_t one = 1;
  const int saved_errno = errno;
  (void)!write(wake_fd(), &one, sizeof one);
  errno = saved_errno;
}

std::uint64_t wakeup_deadline() noexcept {
  return g_deadline;
}
std::uint64_t idle_calls() noexcept {
  return g_idle_calls;
}
bool interrupts_masked() noexcept {
  return !g_interrupts_enabled;
}

}  // namespace host
}  // namespace starling
