// umsync/error.hpp: the exceptions umsync throws and the one helper that checks CUDA calls.
//
//   umsync::check(cudaMalloc(&p, n), "cudaMalloc");   // throws cuda_error naming the call
//   UMSYNC_CUDA_CHECK(cudaMalloc(&p, n));              // the same, call text taken for you
//
// Destructors never throw: a failing CUDA call there goes to the destructor error handler
// (by default a line on stderr), which a program may replace.
#pragma once

#include <umsync/config.hpp>

#include <concepts>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <new>
#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

// Messages are composed from parts (text, numbers, pointers, source locations) into fixed
// storage, as CCCL's cuda_error formats with snprintf: every umsync header includes this one, so
// whatever it includes is paid by every translation unit, and <string> and <stdexcept> alone were
// most of the common path's compile cost (docs/compile-cost.md).
namespace detail {

/// Anything that holds its characters contiguously: std::string, std::string_view, fixed_text.
template <class T>
// clang-format off
concept text_like = requires(T const& text) {
  { text.data() } -> std::convertible_to<char const*>;
  { text.size() } -> std::convertible_to<std::size_t>;
};
// clang-format on

/// A non-owning view of characters: what std::string_view is, without <string_view>'s cost.
class text_view {
 public:
  constexpr text_view() noexcept = default;
  constexpr text_view(char const* text) noexcept : data_(text == nullptr ? "" : text), size_(length_of(data_)) {}
  constexpr text_view(char const* text, std::size_t size) noexcept : data_(text), size_(size) {}
  template <text_like Text>
    requires(!std::same_as<Text, text_view>)
  constexpr text_view(Text const& text) noexcept : data_(text.data()), size_(text.size()) {}

  [[nodiscard]] constexpr char const* data() const noexcept { return data_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  [[nodiscard]] constexpr char operator[](std::size_t index) const noexcept { return data_[index]; }
  [[nodiscard]] constexpr char const* begin() const noexcept { return data_; }
  [[nodiscard]] constexpr char const* end() const noexcept { return data_ + size_; }

  /// The characters from `position`, at most `count` of them.
  [[nodiscard]] constexpr text_view substr(std::size_t position, std::size_t count = npos) const noexcept
  {
    position = position < size_ ? position : size_;
    std::size_t const rest = size_ - position;
    return text_view(data_ + position, count < rest ? count : rest);
  }
  /// Where `part` first occurs, or npos.
  [[nodiscard]] constexpr std::size_t find(text_view part) const noexcept
  {
    for (std::size_t i = 0; i + part.size_ <= size_; ++i) {
      if (substr(i, part.size_) == part) {
        return i;
      }
    }
    return npos;
  }
  /// Where `c` last occurs, or npos.
  [[nodiscard]] constexpr std::size_t rfind(char c) const noexcept
  {
    for (std::size_t i = size_; i > 0; --i) {
      if (data_[i - 1] == c) {
        return i - 1;
      }
    }
    return npos;
  }
  [[nodiscard]] constexpr bool starts_with(text_view prefix) const noexcept
  {
    return prefix.size_ <= size_ && substr(0, prefix.size_) == prefix;
  }
  [[nodiscard]] constexpr bool ends_with(text_view suffix) const noexcept
  {
    return suffix.size_ <= size_ && substr(size_ - suffix.size_) == suffix;
  }
  constexpr void remove_prefix(std::size_t count) noexcept
  {
    count = count < size_ ? count : size_;
    data_ += count;
    size_ -= count;
  }

  friend constexpr bool operator==(text_view a, text_view b) noexcept
  {
    if (a.size_ != b.size_) {
      return false;
    }
    for (std::size_t i = 0; i < a.size_; ++i) {
      if (a.data_[i] != b.data_[i]) {
        return false;
      }
    }
    return true;
  }

 private:
  static constexpr std::size_t length_of(char const* text) noexcept
  {
    std::size_t size = 0;
    while (text[size] != '\0') {
      ++size;
    }
    return size;
  }

  char const* data_ = "";
  std::size_t size_ = 0;
};

/// What a message can be composed of: text, a character, a number, a pointer (printed as an
/// address), a source location (printed as file:line).
template <class T>
concept message_part = std::convertible_to<T const&, text_view> || std::same_as<T, char> || std::same_as<T, bool> ||
    std::integral<T> || std::floating_point<T> || std::is_enum_v<T> || std::is_pointer_v<T> ||
    std::same_as<T, std::source_location>;

/// One part of a message with its type erased, so that composing is one function, compiled once
/// per translation unit, rather than one instantiation per combination of part types at every
/// throw site (which the host compiler would optimize each time). Sixteen bytes, made without
/// zeroing first: a throw site fills one array of them and makes one call.
struct part_value {
  enum class kind : unsigned char { text, signed_number, unsigned_number, floating, pointer, location };
  union {
    char const* text;  ///< kind::text; kind::location: the file (terminated)
    long long signed_number;
    unsigned long long unsigned_number;
    double floating;
    void const volatile* pointer;
  };
  unsigned size;  ///< kind::text: the characters (a message never needs 4 GiB); kind::location: the line
  kind type;

  constexpr part_value(text_view part) noexcept
      : text(part.data()),
        size(part.size() < 0xffffffffu ? static_cast<unsigned>(part.size()) : 0xffffffffu),
        type(kind::text)
  {}
  constexpr part_value(std::source_location const& part) noexcept
      : text(part.file_name()), size(static_cast<unsigned>(part.line())), type(kind::location)
  {}
  constexpr part_value(long long part) noexcept : signed_number(part), size(0), type(kind::signed_number) {}
  constexpr part_value(unsigned long long part) noexcept : unsigned_number(part), size(0), type(kind::unsigned_number)
  {}
  constexpr part_value(double part) noexcept : floating(part), size(0), type(kind::floating) {}
  constexpr part_value(void const volatile* part) noexcept : pointer(part), size(0), type(kind::pointer) {}
};

template <message_part Part>
[[nodiscard]] constexpr part_value part_value_of(Part const& part) noexcept
{
  if constexpr (std::same_as<Part, char>) {
    return part_value(text_view(&part, 1));
  } else if constexpr (std::same_as<Part, bool>) {
    return part_value(text_view(part ? "true" : "false"));
  } else if constexpr (std::convertible_to<Part const&, text_view>) {
    return part_value(text_view(part));
  } else if constexpr (std::is_enum_v<Part>) {
    return part_value_of(static_cast<std::underlying_type_t<Part>>(part));
  } else if constexpr (std::same_as<Part, std::source_location>) {
    return part_value(part);
  } else if constexpr (std::is_pointer_v<Part>) {
    return part_value(static_cast<void const volatile*>(part));
  } else if constexpr (std::floating_point<Part>) {
    return part_value(static_cast<double>(part));
  } else if constexpr (std::is_signed_v<Part>) {
    return part_value(static_cast<long long>(part));
  } else {
    return part_value(static_cast<unsigned long long>(part));
  }
}

/// The storage fixed_text<Capacity> appends through, whatever its capacity.
struct text_storage {
  char* text;
  std::size_t capacity;
  std::size_t& size;
  bool& truncated;
};

/// Appends `text`, cutting what does not fit and then ending the text in "...". Not inlined:
/// the one copy loop per translation unit.
void append_text(text_storage out, text_view text) noexcept;

/// Appends each of `parts` in order. Not inlined: the one body per translation unit.
void append_parts(text_storage out, part_value const* parts, std::size_t count) noexcept;

/// Characters in a buffer of `Capacity` bytes, always terminated. What does not fit is cut,
/// and the text then ends in "..." so that a reader sees it was cut.
template <std::size_t Capacity>
class fixed_text {
  static_assert(Capacity >= 8, "umsync: a fixed_text needs room for at least a few characters");

 public:
  fixed_text() noexcept { text_[0] = '\0'; }
  explicit fixed_text(text_view text) noexcept : fixed_text() { append(text); }

  [[nodiscard]] char const* c_str() const noexcept { return text_; }
  [[nodiscard]] char const* data() const noexcept { return text_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] text_view view() const noexcept { return text_view(text_, size_); }
  /// True when something appended did not fit.
  [[nodiscard]] bool truncated() const noexcept { return truncated_; }

  fixed_text& append(text_view text) noexcept
  {
    append_text(storage(), text);
    return *this;
  }

  /// Appends the parts (see message_part), in order.
  template <message_part... Parts>
  fixed_text& append_parts(Parts const&... parts) noexcept
  {
    if constexpr (sizeof...(Parts) == 0) {
      return *this;
    } else {
      part_value const values[] = {part_value_of(parts)...};
      return append_values(values, sizeof...(Parts));
    }
  }
  fixed_text& append_values(part_value const* values, std::size_t count) noexcept
  {
    detail::append_parts(storage(), values, count);
    return *this;
  }

 private:
  text_storage storage() noexcept { return {text_, Capacity, size_, truncated_}; }

  char text_[Capacity];  // terminated at size_; what lies beyond is never read
  std::size_t size_ = 0;
  bool truncated_ = false;
};

/// The parts, in order, in a fixed_text<Capacity>.
template <std::size_t Capacity, message_part... Parts>
[[nodiscard]] fixed_text<Capacity> compose(Parts const&... parts) noexcept
{
  fixed_text<Capacity> text;
  text.append_parts(parts...);
  return text;
}

}  // namespace detail

/// The base of every exception umsync throws: `catch (umsync::error const&)` catches them all.
/// Each also derives from std::exception (std::bad_alloc for allocations), so code that catches
/// standard exceptions keeps working; not from std::runtime_error or std::logic_error, whose
/// <stdexcept> costs every translation unit more than the rest of umsync's base headers
/// (docs/compile-cost.md). Every message starts with exactly one "umsync: ".
class error {
 public:
  virtual ~error() = default;
  [[nodiscard]] virtual char const* what() const noexcept = 0;

 protected:
  error() = default;
  error(error const&) = default;
  error& operator=(error const&) = default;
};

namespace detail {

// A word shared between host threads, without <atomic>: umsync needs two in every translation
// unit (the destructor error handler below, the count of global captures), and <atomic> costs
// nvcc about as much to compile as the rest of umsync's base headers (docs/compile-cost.md).
// The GCC/Clang __atomic builtins, which the host compilers nvcc accepts on Linux implement.
/// A trivially copyable value read and written atomically, sequentially consistent.
template <class T>
class atomic_word {
 public:
  constexpr explicit atomic_word(T initial) noexcept : value_(initial) {}
  atomic_word(atomic_word const&) = delete;
  atomic_word& operator=(atomic_word const&) = delete;

  [[nodiscard]] T load() const noexcept { return __atomic_load_n(&value_, __ATOMIC_SEQ_CST); }
  T exchange(T desired) noexcept { return __atomic_exchange_n(&value_, desired, __ATOMIC_SEQ_CST); }
  T fetch_add(T delta) noexcept { return __atomic_fetch_add(&value_, delta, __ATOMIC_SEQ_CST); }
  T fetch_sub(T delta) noexcept { return __atomic_fetch_sub(&value_, delta, __ATOMIC_SEQ_CST); }

 private:
  T value_;
};

/// The storage of an exception's message: long enough for two source locations and a
/// paragraph of advice; longer text is cut and ends in "...".
inline constexpr std::size_t message_capacity = 1024;
using message_text = fixed_text<message_capacity>;

/// `parts` with exactly one "umsync: " in front, whether or not they start with one. Not
/// inlined: every throw site calls this one body.
void write_umsync_message(message_text& message, part_value const* parts, std::size_t count) noexcept;

/// An umsync::error on the standard exception `Standard`, its message composed from parts.
template <class Standard = std::exception>
class standard_error : public Standard, public error {
 public:
  template <message_part... Parts>
    requires(sizeof...(Parts) > 0)
  explicit standard_error(Parts const&... parts) noexcept
  {
    part_value const values[] = {part_value_of(parts)...};
    write_umsync_message(message_, values, sizeof...(Parts));
  }
  [[nodiscard]] char const* what() const noexcept override { return message_.c_str(); }

 private:
  message_text message_;
};

#if defined(UMSYNC_SEPARATE_COMPILATION)
// Their virtual functions and tables are compiled once, with the rest of the compiled part.
extern template class standard_error<std::exception>;
extern template class standard_error<std::bad_alloc>;
#endif

/// The name of a call, as an exception keeps it (cuda_error::call()).
using call_text = fixed_text<256>;

}  // namespace detail

/// A CUDA runtime (or driver) call failed. Holds the status, its name, the call and the
/// caller's location, so the message says what failed and where in the user's code.
class cuda_error : public detail::standard_error<> {
 public:
  cuda_error(cudaError_t status, detail::text_view call, std::source_location where = std::source_location::current());
  ~cuda_error() override;

  [[nodiscard]] cudaError_t code() const noexcept { return status_; }
  /// The status's enumerator name, e.g. "cudaErrorInvalidDevice".
  [[nodiscard]] char const* name() const noexcept { return cudaGetErrorName(status_); }
  /// The call as the caller named it, e.g. "cudaMalloc(&p, n)".
  [[nodiscard]] char const* call() const noexcept { return call_.c_str(); }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  cudaError_t status_;
  detail::call_text call_;
  std::source_location where_;
};

/// An allocation could not be satisfied. Says how many bytes were asked for, from what, and
/// where; `detail` carries what the allocator knows (a pool's reserved and used bytes).
class bad_alloc : public detail::standard_error<std::bad_alloc> {
 public:
  bad_alloc(std::size_t requested_bytes, detail::text_view allocator, detail::text_view detail = {},
            std::source_location where = std::source_location::current());
  ~bad_alloc() override;

  [[nodiscard]] std::size_t requested_bytes() const noexcept { return requested_bytes_; }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  std::size_t requested_bytes_;
  std::source_location where_;
};

/// A use the types could not rule out but the run-time checks caught: an unordered access
/// across streams, a moved-from handle, a foreign stream. A bug in the calling program, not a
/// failure of the device.
class usage_error : public detail::standard_error<> {
 public:
  using standard_error::standard_error;
  ~usage_error() override;
};

/// A size or count that cannot be honoured: an allocation whose byte count overflows size_t,
/// a copy into a destination smaller than its source.
class length_error : public detail::standard_error<> {
 public:
  using standard_error::standard_error;
  ~length_error() override;
};

/// An index or range outside the object it names.
class out_of_range : public detail::standard_error<> {
 public:
  using standard_error::standard_error;
  ~out_of_range() override;
};

/// An argument no call could accept: a malformed token, a chunk size of zero.
class invalid_argument : public detail::standard_error<> {
 public:
  using standard_error::standard_error;
  ~invalid_argument() override;
};

/// Two uses of the same memory on different streams with nothing ordering them: the
/// UMSYNC_DEBUG checker's finding. Names both streams and both call sites.
class ordering_error : public usage_error {
 public:
  struct site {
    void const* stream = nullptr;  ///< the cudaStream_t, as an address; null: the host itself
    char const* operation = "";    ///< "read", "write" or "free" (a string literal)
    std::source_location where;
  };

  ordering_error(site const& earlier, site const& later);
  ~ordering_error() override;

  [[nodiscard]] site const& earlier() const noexcept { return earlier_; }
  [[nodiscard]] site const& later() const noexcept { return later_; }

 private:
  static detail::fixed_text<48> party(void const* stream) noexcept;

  site earlier_;
  site later_;
};

/// A capture-unsafe operation was about to run while a capture was in progress. A bug in the
/// calling program (it derives from usage_error); the capture was left untouched. Declared here,
/// with the rest of the family, so that stream_view.hpp and event.hpp can refuse a host
/// synchronization in a capture without including capture/ (capture/capture_error.hpp is its
/// documented header). `why` is composed from parts, as every umsync message is.
class capture_error : public usage_error {
 public:
  template <detail::message_part... Why>
  capture_error(detail::text_view operation, Why const&... why)
      : capture_error(composed{}, operation, {detail::part_value_of(why)...})
  {}

  /// The CUDA call that was refused, e.g. "cudaMemPrefetchAsync".
  [[nodiscard]] char const* operation() const noexcept { return operation_.c_str(); }
  ~capture_error() override;

 private:
  struct composed {};
  // The one body that composes the message, whatever the parts of `why` were.
  capture_error(composed, detail::text_view operation, std::initializer_list<detail::part_value> why);

  detail::call_text operation_;
};

namespace detail {

/// check()'s failure path, out of line: each checked call then costs a compare and a call.
[[noreturn, gnu::cold]] void throw_cuda_error(cudaError_t status, text_view call, std::source_location const& where);

}  // namespace detail

/// Throws cuda_error when `status` is not cudaSuccess. The runtime's last-error slot is
/// cleared first, so a later launch check does not see this failure again.
inline void check(cudaError_t status, detail::text_view call,
                  std::source_location where = std::source_location::current())
{
  if (status != cudaSuccess) [[unlikely]] {
    detail::throw_cuda_error(status, call, where);
  }
}

/// Called with the failure when something inside a destructor fails (a CUDA call, an unordered
/// free found by the UMSYNC_DEBUG checker). Must not throw.
using destructor_error_handler = void (*)(error const&) noexcept;

namespace detail {

void print_destructor_error(error const& failure) noexcept;

inline atomic_word<destructor_error_handler>& destructor_handler_slot() noexcept
{
  static atomic_word<destructor_error_handler> slot{&print_destructor_error};
  return slot;
}

/// For destructors and other noexcept paths: hands `failure` to the handler instead of throwing.
inline void report_in_destructor(error const& failure) noexcept { destructor_handler_slot().load()(failure); }

/// The next function's failure path, out of line.
[[gnu::cold]] void report_failed_call_in_destructor(cudaError_t status, text_view call,
                                                    std::source_location const& where) noexcept;

/// The same for a failed CUDA call.
inline void report_in_destructor(cudaError_t status, text_view call,
                                 std::source_location where = std::source_location::current()) noexcept
{
  if (status != cudaSuccess) [[unlikely]] {
    report_failed_call_in_destructor(status, call, where);
  }
}

}  // namespace detail

/// Installs `handler` for failures inside destructors and returns the previous one.
/// nullptr restores the default (print to stderr).
inline destructor_error_handler set_destructor_error_handler(destructor_error_handler handler) noexcept
{
  return detail::destructor_handler_slot().exchange(handler != nullptr ? handler : &detail::print_destructor_error);
}

// The compiled part of this header (config.hpp: inline here, or compiled once with
// UMSYNC_SEPARATE_COMPILATION).
#if UMSYNC_DETAIL_COMPILED_BODIES
namespace detail {

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void append_text(text_storage out, text_view text) noexcept
{
  if (out.truncated) {
    return;
  }
  std::size_t const room = out.capacity - 1 - out.size;
  std::size_t const taken = text.size() <= room ? text.size() : room;
  for (std::size_t i = 0; i < taken; ++i) {
    out.text[out.size + i] = text.data()[i];
  }
  out.size += taken;
  if (taken < text.size()) {
    out.truncated = true;
    for (std::size_t i = out.capacity - 4; i < out.capacity - 1; ++i) {
      out.text[i] = '.';
    }
    out.size = out.capacity - 1;
  }
  out.text[out.size] = '\0';
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void append_parts(text_storage out, part_value const* parts,
                                                           std::size_t count) noexcept
{
  for (std::size_t i = 0; i < count; ++i) {
    part_value const& part = parts[i];
    char digits[48];
    int written = 0;
    switch (part.type) {
      case part_value::kind::text: append_text(out, text_view(part.text, part.size)); continue;
      case part_value::kind::location:
        append_text(out, text_view(part.text));
        written = std::snprintf(digits, sizeof digits, ":%u", part.size);
        break;
      case part_value::kind::signed_number:
        written = std::snprintf(digits, sizeof digits, "%lld", part.signed_number);
        break;
      case part_value::kind::unsigned_number:
        written = std::snprintf(digits, sizeof digits, "%llu", part.unsigned_number);
        break;
      case part_value::kind::floating: written = std::snprintf(digits, sizeof digits, "%g", part.floating); break;
      case part_value::kind::pointer:
        written = std::snprintf(digits, sizeof digits, "%p", const_cast<void const*>(part.pointer));
        break;
    }
    append_text(out, text_view(digits, written > 0 ? static_cast<std::size_t>(written) : 0));
  }
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void write_umsync_message(message_text& message, part_value const* parts,
                                                                   std::size_t count) noexcept
{
  message_text body;
  body.append_values(parts, count);
  text_view text = body.view();
  constexpr text_view prefix = "umsync: ";
  while (text.starts_with(prefix)) {
    text.remove_prefix(prefix.size());
  }
  message.append(prefix).append(text);
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void throw_cuda_error(cudaError_t status, text_view call,
                                                               std::source_location const& where)
{
  static_cast<void>(cudaGetLastError());
  throw cuda_error(status, call, where);
}

UMSYNC_DETAIL_COMPILED void print_destructor_error(error const& failure) noexcept
{
  std::fprintf(stderr, "%s (in a destructor; not thrown)\n", failure.what());
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void report_failed_call_in_destructor(
    cudaError_t status, text_view call, std::source_location const& where) noexcept
{
  static_cast<void>(cudaGetLastError());
  report_in_destructor(cuda_error(status, call, where));  // composed in fixed storage: cannot throw
}

#  if defined(UMSYNC_SEPARATE_COMPILATION)
template class standard_error<std::exception>;
template class standard_error<std::bad_alloc>;
#  endif

}  // namespace detail

UMSYNC_DETAIL_COMPILED cuda_error::cuda_error(cudaError_t status, detail::text_view call, std::source_location where)
    : standard_error(call, " failed with ", cudaGetErrorName(status), " (", cudaGetErrorString(status), ") at ", where),
      status_(status),
      call_(call),
      where_(where)
{}

UMSYNC_DETAIL_COMPILED bad_alloc::bad_alloc(std::size_t requested_bytes, detail::text_view allocator,
                                            detail::text_view detail, std::source_location where)
    : standard_error(allocator, " could not allocate ", requested_bytes, " bytes", detail.empty() ? "" : " (", detail,
                     detail.empty() ? "" : ")", " at ", where),
      requested_bytes_(requested_bytes),
      where_(where)
{}

UMSYNC_DETAIL_COMPILED ordering_error::ordering_error(site const& earlier, site const& later)
    : usage_error("unordered access: ", later.operation, " on ", party(later.stream), " at ", later.where,
                  " is not ordered after the ", earlier.operation, " on ", party(earlier.stream), " at ", earlier.where,
                  "; add an event edge (umsync::stream_edge) between them, or make the host wait through umsync "
                  "(a stream's or event's synchronize(), umsync::synchronize_device()): the checker does not see a "
                  "raw cudaDeviceSynchronize() or cudaStreamSynchronize()"),
      earlier_(earlier),
      later_(later)
{}

UMSYNC_DETAIL_COMPILED detail::fixed_text<48> ordering_error::party(void const* stream) noexcept
{
  // A null stream is the host itself.
  return stream == nullptr ? detail::fixed_text<48>("the host") : detail::compose<48>("stream ", stream);
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED capture_error::capture_error(composed, detail::text_view operation,
                                                                      std::initializer_list<detail::part_value> why)
    : usage_error(operation, " while a stream capture is in progress: ",
                  detail::message_text().append_values(why.begin(), why.size()),
                  "; it would fail with cudaErrorStreamCaptureUnsupported and invalidate the capture. "
                  "Call it before the capture begins or after capture_scope::end()"),
      operation_(operation)
{}

// Out of line, so that with UMSYNC_SEPARATE_COMPILATION each class's virtual table is compiled once.
UMSYNC_DETAIL_COMPILED cuda_error::~cuda_error() = default;
UMSYNC_DETAIL_COMPILED bad_alloc::~bad_alloc() = default;
UMSYNC_DETAIL_COMPILED usage_error::~usage_error() = default;
UMSYNC_DETAIL_COMPILED length_error::~length_error() = default;
UMSYNC_DETAIL_COMPILED out_of_range::~out_of_range() = default;
UMSYNC_DETAIL_COMPILED invalid_argument::~invalid_argument() = default;
UMSYNC_DETAIL_COMPILED ordering_error::~ordering_error() = default;
UMSYNC_DETAIL_COMPILED capture_error::~capture_error() = default;

#endif  // UMSYNC_DETAIL_COMPILED_BODIES

UMSYNC_NAMESPACE_END

/// Checks a CUDA runtime call and throws umsync::cuda_error with the call's text and line.
/// The only macro in umsync's API: it exists to capture the call as written.
#define UMSYNC_CUDA_CHECK(...) ::umsync::check((__VA_ARGS__), #__VA_ARGS__)
