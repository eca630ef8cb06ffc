// The C memory and string functions the compiler emits calls to (struct
// copies, zeroing, array initialisers). No libc is linked into the kernel.
//
// [[clang::no_builtin]] stops clang from recognising these loops as memcpy /
// memset idioms and compiling them into calls to themselves, whatever the
// -ffreestanding / -fno-builtin flags of the day are.

#include <string.h>

#include <cstddef>
#include <cstdint>

#include "kernel/lib/copy.h"

namespace {

// Whole-word accesses to memory of any declared type: copy.h's may_alias
// word, which copy_forward() and fill() use too.
using Word = starling::lib::detail::CopyWord;
constexpr std::size_t kWordSize = starling::lib::detail::kCopyWord;

bool word_aligned(std::uintptr_t address) {
  return address % kWordSize == 0;
}

}  // namespace

extern "C" {

[[clang::no_builtin]] void* memcpy(void* __restrict destination, const void* __restrict source,
                                   std::size_t count) {
  starling::lib::copy_forward(static_cast<unsigned char*>(destination),
                              static_cast<const unsigned char*>(source), count);
  return destination;
}

[[clang::no_builtin]] void* memmove(void* destination, const void* source, std::size_t count) {
  auto* d = static_cast<unsigned char*>(destination);
  const auto* s = static_cast<const unsigned char*>(source);
  const auto d_address = reinterpret_cast<std::uintptr_t>(d);
  const auto s_address = reinterpret_cast<std::uintptr_t>(s);
  // Compared as integers: relational operators on pointers into different
  // objects are unspecified in C++.
  const bool aligned = word_aligned(d_address | s_address);
  if (d_address <= s_address) {
    // Forward is safe when the destination starts first: copy_forward reads
    // each source word before any store can reach it.
    starling::lib::copy_forward(d, s, count);
  } else {
    d += count;
    s += count;
    if (aligned) {
      // Peel the odd tail bytes so that the word loop starts on a word boundary.
      for (; !word_aligned(count); --count) {
        *--d = *--s;
      }
      for (; count != 0; count -= kWordSize) {
        d -= kWordSize;
        s -= kWordSize;
        *reinterpret_cast<Word*>(d) = *reinterpret_cast<const Word*>(s);
      }
    }
    for (; count != 0; --count) {
      *--d = *--s;
    }
  }
  return destination;
}

[[clang::no_builtin]] void* memset(void* destination, int value, std::size_t count) {
  starling::lib::fill(static_cast<unsigned char*>(destination), static_cast<unsigned char>(value),
                      count);
  return destination;
}

[[clang::no_builtin]] int memcmp(const void* lhs, const void* rhs, std::size_t count) {
  const auto* a = static_cast<const unsigned char*>(lhs);
  const auto* b = static_cast<const unsigned char*>(rhs);
  for (std::size_t i = 0; i < count; ++i) {
    if (a[i] != b[i]) {
      return a[i] < b[i] ? -1 : 1;
    }
  }
  return 0;
}

[[clang::no_builtin]] std::size_t strlen(const char* text) {
  std::size_t length = 0;
  while (text[length] != '\0') {
    ++length;
  }
  return length;
}

// libfdt measures string-list entries with it, never past the property.
[[clang::no_builtin]] std::size_t strnlen(const char* text, std::size_t limit) {
  std::size_t length = 0;
  while (length < limit && text[length] != '\0') {
    ++length;
  }
  return length;
}

// std::string_view::find and char_traits<char>::find land here.
[[clang::no_builtin]] void* memchr(const void* memory, int value, std::size_t count) {
  const auto* p = static_cast<const unsigned char*>(memory);
  const auto wanted = static_cast<unsigned char>(value);
  for (; count != 0; --count, ++p) {
    if (*p == wanted) return const_cast<unsigned char*>(p);
  }
  return nullptr;
}

// Mbed TLS's PEM and X.509 parsers use it.
[[clang::no_builtin]] char* strchr(const char* text, int value) {
  const auto wanted = static_cast<char>(value);
  for (;; ++text) {
    if (*text == wanted) return const_cast<char*>(text);
    if (*text == '\0') return nullptr;
  }
}

// libfdt's fdt_get_name() (a node's last path component, old blobs only).
[[clang::no_builtin]] char* strrchr(const char* text, int value) {
  const auto wanted = static_cast<char>(value);
  const char* last = nullptr;
  for (;; ++text) {
    if (*text == wanted) last = text;
    if (*text == '\0') return const_cast<char*>(last);
  }
}

// Mbed TLS's PEM parser looks for its BEGIN and END lines with it.
[[clang::no_builtin]] char* strstr(const char* text, const char* wanted) {
  if (*wanted == '\0') return const_cast<char*>(text);
  for (; *text != '\0'; ++text) {
    const char* t = text;
    const char* w = wanted;
    while (*t != '\0' && *t == *w) {
      ++t;
      ++w;
    }
    if (*w == '\0') return const_cast<char*>(text);
  }
  return nullptr;
}

[[clang::no_builtin]] int strcmp(const char* a, const char* b) {
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return static_cast<unsigned char>(*a) - static_cast<unsigned char>(*b);
}

}  // extern "C"
