#include "net/ipbench/protocol.h"

#include <algorithm>

#include <array>
#include <cstring>
#include <span>
#include <utility>

#include "kernel/async/executor.h"

namespace starling::net::ipbench {

void UtilisationProtocol::append(std::string_view s) noexcept {
  const std::size_t n = std::min(s.size(), sizeof(out_) - out_len_);
  std::memcpy(out_ + out_len_, s.data(), n);
  out_len_ += n;
}

void UtilisationProtocol::append_u64(std::uint64_t v) noexcept {
  char digits[20];
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) append(std::string_view(&digits[--n], 1));
}

UtilisationProtocol::Output UtilisationProtocol::error(std::string_view reason) noexcept {
  append("400 ERROR (");
  append(reason);
  append(")\n");
  state_ = State::kClosed;
  return {std::string_view(out_, out_len_), true, 0};
}

UtilisationProtocol::Output UtilisationProtocol::line(std::string_view text,
                                                      const Sample& now) noexcept {
  out_len_ = 0;
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  if (state_ == State::kClosed) return {{}, true, 0};
  if (text == "QUIT") {
    state_ = State::kClosed;
    return {{}, true, 0};
  }
  switch (state_) {
    case State::kHello:
      if (text != "HELLO") return error("expected HELLO");
      append("200 OK (Ready to go)\n");
      state_ = State::kLoad;
      break;
    case State::kLoad:
      if (text != "LOAD cpu_target_lukem") return error("expected LOAD cpu_target_lukem");
      append("200 OK\n");
      state_ = State::kSetup;
      break;
    case State::kSetup:
      if (text != "SETUP" && !text.starts_with("SETUP ")) return error("expected SETUP");
      append("200 OK\n");
      state_ = State::kStart;
      break;
    case State::kStart:
      if (text != "START") return error("expected START");
      start_ = now;
      state_ = State::kStop;
      break;
    case State::kStop: {
      if (text != "STOP") return error("expected STOP");
      const std::uint64_t idle = now.idle_cycles - start_.idle_cycles;
      const std::uint64_t total = now.total_cycles - start_.total_cycles;
      // Body first (in a scratch area at the end), then the header before it.
      char body[48];
      std::size_t saved = out_len_;
      append(",");
      append_u64(idle);
      append(",");
      append_u64(total);
      const std::size_t body_len = out_len_ - saved;
      std::memcpy(body, out_ + saved, body_len);
      out_len_ = 0;
      append("220 VALID DATA (Data to follow)\n");
      append("Content-length: ");
      append_u64(body_len);
      append("\n");
      append(std::string_view(body, body_len));
      state_ = State::kClosed;
      return {std::string_view(out_, out_len_), true, 0};
    }
    case State::kClosed:
      break;
  }
  return {std::string_view(out_, out_len_), false, 0};
}

UtilisationProtocol::Output UtilisationProtocol::feed(std::string_view bytes,
                                                      const Sample& now) noexcept {
  // Replies of several lines in one feed are concatenated in acc.
  static_assert(sizeof(out_) >= 256);
  char acc[512];
  std::size_t acc_len = 0;
  std::size_t i = 0;
  bool close = false;
  while (i < bytes.size() && !close) {
    const char ch = bytes[i++];
    if (ch != '\n') {
      if (line_len_ == kMaxLine) {
        out_len_ = 0;
        Output e = error("line too long");
        close = true;
        if (!e.reply.empty())
          std::memcpy(acc + acc_len, e.reply.data(),
                      std::min(e.reply.size(), sizeof(acc) - acc_len));
        acc_len += std::min(e.reply.size(), sizeof(acc) - acc_len);
        break;
      }
      line_[line_len_++] = ch;
      continue;
    }
    Output o = line(std::string_view(line_, line_len_), now);
    line_len_ = 0;
    const std::size_t n = std::min(o.reply.size(), sizeof(acc) - acc_len);
    if (n > 0) std::memcpy(acc + acc_len, o.reply.data(), n);
    acc_len += n;
    close = o.close;
  }
  if (acc_len > 0) std::memcpy(out_, acc, acc_len);
  out_len_ = acc_len;
  return {std::string_view(out_, out_len_), close, i};
}

Sample executor_sampler(void*) noexcept {
  async::Executor& e = async::Executor::current();
  return {e.idle_cycles(), e.total_cycles()};
}

}  // namespace starling::net::ipbench
