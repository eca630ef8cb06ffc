#ifndef STARLING_KERNEL_LIB_RESULT_H_
#define STARLING_KERNEL_LIB_RESULT_H_

#include <new>
#include <type_traits>
#include <utility>

// Errors are values: a kernel built without exceptions reports failure by
// returning it. Result<T> is a small std::expected (C++23) for C++20.
namespace starling {

// Why an operation failed. One list for the whole kernel, so errors cross
// layers (a driver's kNoMemory reaches the application unchanged).
enum class Error {
  kNoMemory,   // an allocator or pool is exhausted
  kTimedOut,   // a deadline passed first
  kCancelled,  // the operation was cancelled (its owner gave up on it)
  kInvalidArgument,
  kMalformed,  // input failed validation (a device tree, a frame, a descriptor)
  kNotFound,
  kBusy,  // the resource is in use (a second waiter, a full ring)
  kUnsupported,
  kDeviceError,  // the hardware reported an error or stopped responding
};

// A short, stable name for logs and test messages.
constexpr const char* error_name(Error error) {
  switch (error) {
    case Error::kNoMemory:
      return "no memory";
    case Error::kTimedOut:
      return "timed out";
    case Error::kCancelled:
      return "cancelled";
    case Error::kInvalidArgument:
      return "invalid argument";
    case Error::kMalformed:
      return "malformed";
    case Error::kNotFound:
      return "not found";
    case Error::kBusy:
      return "busy";
    case Error::kUnsupported:
      return "unsupported";
    case Error::kDeviceError:
      return "device error";
  }
  return "unknown error";
}

// Marks an error return: `return Unexpected(Error::kNoMemory);`
struct Unexpected {
  constexpr explicit Unexpected(Error e) : error(e) {}
  Error error;
};

// Holds either a T or an Error. Accessing the wrong one is a bug the caller
// must avoid (check ok() first); there is no exception to throw.
template <typename T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  template <typename U = T,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::remove_cvref_t<U>, Result> &&
                                        !std::is_same_v<std::remove_cvref_t<U>, Unexpected>>>
  constexpr Result(U&& value) : has_value_(true) {  // NOLINT: implicit, like std::expected
    ::new (&storage_.value) T(std::forward<U>(value));
  }
  constexpr Result(Unexpected e) : has_value_(false) {  // NOLINT: implicit
    storage_.error = e.error;
  }

  Result(const Result& other) : has_value_(other.has_value_) {
    if (has_value_) {
      ::new (&storage_.value) T(other.storage_.value);
    } else {
      storage_.error = other.storage_.error;
    }
  }
  Result(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>)
      : has_value_(other.has_value_) {
    if (has_value_) {
      ::new (&storage_.value) T(std::move(other.storage_.value));
    } else {
      storage_.error = other.storage_.error;
    }
  }
  Result& operator=(Result other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    destroy();
    has_value_ = other.has_value_;
    if (has_value_) {
      ::new (&storage_.value) T(std::move(other.storage_.value));
    } else {
      storage_.error = other.storage_.error;
    }
    return *this;
  }
  ~Result() { destroy(); }

  constexpr bool ok() const { return has_value_; }
  constexpr explicit operator bool() const { return has_value_; }

  T& value() & { return storage_.value; }
  const T& value() const& { return storage_.value; }
  T&& value() && { return std::move(storage_.value); }
  T& operator*() & { return storage_.value; }
  const T& operator*() const& { return storage_.value; }
  T* operator->() { return &storage_.value; }
  const T* operator->() const { return &storage_.value; }

  constexpr Error error() const { return storage_.error; }

  template <typename U>
  T value_or(U&& fallback) const& {
    return has_value_ ? storage_.value : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void destroy() {
    if (has_value_) storage_.value.~T();
  }

  union Storage {
    Storage() {}
    ~Storage() {}
    T value;
    Error error;
  } storage_;
  bool has_value_;
};

// Success or an error, nothing else to carry.
template <>
class [[nodiscard]] Result<void> {
 public:
  constexpr Result() = default;
  constexpr Result(Unexpected e) : ok_(false), error_(e.error) {}  // NOLINT: implicit
  constexpr bool ok() const { return ok_; }
  constexpr explicit operator bool() const { return ok_; }
  constexpr Error error() const { return error_; }

 private:
  bool ok_ = true;
  Error error_ = Error::kInvalidArgument;
};

}  // namespace starling

#endif  // STARLING_KERNEL_LIB_RESULT_H_
