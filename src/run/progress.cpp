// SPDX-License-Identifier: Apache-2.0
// progress.cpp: the progress line of a sweep (progress.hpp).
#include "run/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace nvfp4 {

namespace {
double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

int stderr_terminal_width() {
  if (!::isatty(STDERR_FILENO)) return 0;
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

Progress::Progress(std::ostream& os, int total_steps, bool shown, bool terminal, int width,
                   std::function<double()> now)
    : m_os(os), m_total(total_steps), m_shown(shown), m_terminal(terminal), m_width(width > 10 ? width : 100),
      m_now(now ? std::move(now) : steady_seconds), m_start(m_now()) {}

Progress::~Progress() { finish(); }

std::string Progress::clock_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string Progress::line_text(int index, std::string_view problem, std::string_view shape,
                                std::string_view variant) const {
  const double elapsed = m_now() - m_start;
  std::string left = "left ?";
  if (index > 0) left = "left ~" + clock_text(elapsed / index * (m_total - index));
  // Long group shapes: the first group and the count.
  std::string sh(shape);
  if (sh.size() > 40) {
    const size_t groups = static_cast<size_t>(std::count(sh.begin(), sh.end(), ',')) + 1;
    sh = fmt::format("{},...({} groups)", sh.substr(0, sh.find(',')), groups);
  }
  return fmt::format("[{}/{}] {} {} {}  elapsed {}  {}", index + 1, m_total, problem, sh, variant,
                     clock_text(elapsed), left);
}

void Progress::clear() {
  if (!m_terminal || m_line.empty()) return;
  m_os << "\r\033[K" << std::flush;
  m_line.clear();
}

void Progress::step(int index, std::string_view problem, std::string_view shape, std::string_view variant) {
  if (!m_shown) return;
  std::string text = line_text(index, problem, shape, variant);
  if (m_terminal) {
    if (static_cast<int>(text.size()) >= m_width) text.resize(static_cast<size_t>(m_width - 1));
    m_os << "\r\033[K" << text << std::flush;
    m_line = std::move(text);
    return;
  }
  const double t = m_now();
  if (t - m_last_plain < kPlainEverySeconds) return;
  m_last_plain = t;
  m_os << text << '\n' << std::flush;
}

void Progress::warn(const std::string& line) {
  const std::string shown = m_line;
  clear();
  m_os << line << '\n';
  if (!shown.empty()) {
    m_os << shown;
    m_line = shown;
  }
  m_os << std::flush;
}

void Progress::finish() { clear(); }

}  // namespace nvfp4
