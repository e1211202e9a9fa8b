// SPDX-License-Identifier: Apache-2.0
// scoped_env.hpp: an environment variable set (or unset) for the lifetime of an object, its old
// value, or its absence, put back after.
#pragma once

#include <stdlib.h>

#include <optional>
#include <string>

namespace nvfp4 {

class ScopedEnv {
 public:
  // value: what `name` holds meanwhile; nullopt: unset meanwhile.
  ScopedEnv(std::string name, const std::optional<std::string>& value) : m_name(std::move(name)) {
    if (const char* old = ::getenv(m_name.c_str())) m_old = old;
    if (value)
      ::setenv(m_name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(m_name.c_str());
  }
  ~ScopedEnv() {
    if (m_old)
      ::setenv(m_name.c_str(), m_old->c_str(), 1);
    else
      ::unsetenv(m_name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string m_name;
  std::optional<std::string> m_old;
};

}  // namespace nvfp4
