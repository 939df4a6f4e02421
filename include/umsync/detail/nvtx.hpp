// umsync/detail/nvtx.hpp: NVTX ranges named from the user's tag types, in builds with UMSYNC_NVTX.
//
//   namespace app { struct loader {}; struct compute {}; }
//   {
//     detail::nvtx_range<detail::nvtx_words::transfer, app::loader, app::compute> range;
//     ...                        // Nsight Systems: "umsync transfer app::loader -> app::compute"
//   }                            // in the NVTX domain "umsync"
//   detail::nvtx_opening<detail::nvtx_words::phase, forward> opening;  // a lifetime: pushed here
//   apply_phase();                          // if this throws, ~nvtx_opening pops the range
//   opening.keep();                         // else the owner pops it when the lifetime ends:
//   ...
//   detail::nvtx_pop();                     // "umsync phase forward" ends
//
// A range's name is "umsync <what> <tag>" or "umsync <what> <from> -> <to>", built at compile
// time from the tags (type_name_of: a tag's `static constexpr char const* name` when it has one,
// as phase plans print it, else its spelling as the compiler gives it, namespaces kept so that
// app::loader and io::loader stay apart). Each name is registered with NVTX once, so a range
// costs a push and a pop, no string work.
//
// Without UMSYNC_NVTX (the default) nothing here reaches an object file: nvtx_range is an empty
// type with a constexpr constructor, nvtx_push and nvtx_pop are constexpr and empty, and no
// name is instantiated. test/nvtx/ proves it (host.release_has_no_nvtx) and proves that the
// ranges reach an NVTX tool when it is defined (host.nvtx_build_has_ranges, host.nvtx).
// UMSYNC_NVTX must be the same for every translation unit of a program, as UMSYNC_DEBUG is: a
// phase or capture range is pushed in one inline function and popped in another.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/type_name.hpp>

#include <concepts>
#include <cstddef>

#if defined(UMSYNC_NVTX)
#  include <nvtx3/nvToolsExt.h>
#endif

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// True in builds with UMSYNC_NVTX defined.
inline constexpr bool nvtx_build =
#if defined(UMSYNC_NVTX)
    true;
#else
    false;
#endif

template <class T>
// clang-format off
concept tag_with_name = requires {
  { T::name } -> std::convertible_to<char const*>;
};
// clang-format on

/// A tag's name: its `static constexpr char const* name` when it has one, else pretty_type_name.
/// Readable only after nvtx_readable (anonymous namespaces, umsync's ABI namespace).
template <class T>
constexpr text_view raw_name_of() noexcept
{
  if constexpr (tag_with_name<T>) {
    return text_view(T::name);
  } else {
    return pretty_type_name<T>();
  }
}

/// Copies `text` to `out` (when not null) leaving out the scopes the user did not write: an
/// anonymous namespace ("{anonymous}::" from g++, "<unnamed>::" from nvcc's front end in constant
/// expressions, "_GLOBAL__N_<id>::" from its host output, "(anonymous namespace)::" from clang) and umsync's ABI namespace ("umsync::v0::" reads
/// "umsync::"), and the space clang writes before a '*' or '&'. Returns the count of characters
/// written.
constexpr std::size_t nvtx_readable(text_view text, char* out) noexcept
{
  constexpr text_view anonymous[] = {"{anonymous}::", "<unnamed>::", "(anonymous namespace)::"};
  constexpr text_view abi[] = {"umsync::v0::", "umsync::debug_v0::"};
  std::size_t written = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    text_view const rest = text.substr(i);
    bool skipped = false;
    for (text_view const scope : anonymous) {
      if (!skipped && rest.starts_with(scope)) {
        i += scope.size();
        skipped = true;
      }
    }
    if (!skipped && rest.starts_with("_GLOBAL__N_")) {
      std::size_t const scope_end = rest.find("::");
      if (scope_end != text_view::npos) {
        i += scope_end + 2;
        skipped = true;
      }
    }
    for (text_view const scope : abi) {
      if (!skipped && rest.starts_with(scope)) {
        for (char const c : text_view("umsync::")) {
          if (out != nullptr) {
            out[written] = c;
          }
          ++written;
        }
        i += scope.size();
        skipped = true;
      }
    }
    // clang writes "const int *", g++ "const int*": the space before a '*' or '&' is left out.
    if (!skipped && text[i] == ' ' && i + 1 < text.size() && (text[i + 1] == '*' || text[i + 1] == '&')) {
      ++i;
      skipped = true;
    }
    if (!skipped) {
      if (out != nullptr) {
        out[written] = text[i];
      }
      ++written;
      ++i;
    }
  }
  return written;
}

/// N characters built at compile time: what std::array<char, N> would hold, without <array>'s
/// cost in every translation unit that reaches this header (docs/compile-cost.md).
template <std::size_t N>
struct constant_chars {
  char characters[N];

  [[nodiscard]] constexpr char* data() noexcept { return characters; }
  [[nodiscard]] constexpr char const* data() const noexcept { return characters; }
  [[nodiscard]] static constexpr std::size_t size() noexcept { return N; }
  [[nodiscard]] constexpr char back() const noexcept { return characters[N - 1]; }
};

/// T's readable name (nvtx_readable of raw_name_of), built at compile time.
template <class T>
struct readable_name {
  static constexpr constant_chars<nvtx_readable(raw_name_of<T>(), nullptr) + 1> text = [] {
    constant_chars<nvtx_readable(raw_name_of<T>(), nullptr) + 1> name{};
    nvtx_readable(raw_name_of<T>(), name.data());
    return name;
  }();
};

/// T's readable name, for messages.
template <class T>
constexpr text_view type_name_of() noexcept
{
  return text_view(readable_name<T>::text.data(), readable_name<T>::text.size() - 1);
}

/// What a umsync range stands for: the word after "umsync " in its name.
namespace nvtx_words {
struct phase {
  static constexpr text_view text = "phase";
};
struct transfer {
  static constexpr text_view text = "transfer";
};
struct share {
  static constexpr text_view text = "share";
};
struct edge {
  static constexpr text_view text = "edge";
};
struct record {
  static constexpr text_view text = "record";
};
struct wait {
  static constexpr text_view text = "wait";
};
struct capture {
  static constexpr text_view text = "capture";
};
}  // namespace nvtx_words

/// "umsync <What::text> <Tag>" for one tag, "umsync <What::text> <From> -> <To>" for two, as a
/// null-terminated array built at compile time (`text`).
template <class What, class... Tags>
struct nvtx_name {
  static constexpr std::size_t write(char* out) noexcept
  {
    std::size_t size = nvtx_readable("umsync ", out);
    size += nvtx_readable(What::text, out == nullptr ? nullptr : out + size);
    std::size_t index = 0;
    ((size += nvtx_readable(index++ == 0 ? " " : " -> ", out == nullptr ? nullptr : out + size),
      size += nvtx_readable(raw_name_of<Tags>(), out == nullptr ? nullptr : out + size)),
     ...);
    return size;
  }

  static constexpr constant_chars<write(nullptr) + 1> text = [] {
    constant_chars<write(nullptr) + 1> name{};
    write(name.data());
    return name;
  }();

  static constexpr text_view view() noexcept { return text_view(text.data(), text.size() - 1); }
};

#if defined(UMSYNC_NVTX)

/// umsync's NVTX domain, created at the first range.
inline nvtxDomainHandle_t nvtx_domain()
{
  static nvtxDomainHandle_t const domain = nvtxDomainCreateA("umsync");
  return domain;
}

/// `Name::text` registered with the domain once, so that a range passes a handle, not a string.
template <class Name>
nvtxStringHandle_t nvtx_registered()
{
  static nvtxStringHandle_t const handle = nvtxDomainRegisterStringA(nvtx_domain(), Name::text.data());
  return handle;
}

/// Opens the range `Name::text` on this thread; nvtx_pop closes the innermost one.
template <class Name>
void nvtx_push()
{
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = nvtx_registered<Name>();
  nvtxDomainRangePushEx(nvtx_domain(), &attributes);
}

/// Opens a range whose name is known at run time only (nvtx_scope, umsync/nvtx.hpp).
inline void nvtx_push(char const* text)
{
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = text;
  nvtxDomainRangePushEx(nvtx_domain(), &attributes);
}

inline void nvtx_pop() { nvtxDomainRangePop(nvtx_domain()); }

#else

// Off: empty and constexpr, so that a call compiles to nothing and names nothing.
template <class Name>
constexpr void nvtx_push() noexcept
{}
constexpr void nvtx_push(char const*) noexcept {}
constexpr void nvtx_pop() noexcept {}

#endif

/// A range for the enclosing block, named nvtx_name<What, Tags...>; an empty type without
/// UMSYNC_NVTX.
template <class What, class... Tags>
class [[nodiscard]] nvtx_range {
 public:
#if defined(UMSYNC_NVTX)
  nvtx_range() { nvtx_push<nvtx_name<What, Tags...>>(); }
  ~nvtx_range() { nvtx_pop(); }
#else
  constexpr nvtx_range() noexcept = default;
#endif
  nvtx_range(nvtx_range const&) = delete;
  nvtx_range& operator=(nvtx_range const&) = delete;
};

/// The start of a range that outlives the call opening it (a phase scope, a capture): pushed
/// at construction, popped by the owner later once keep() is called; popped here if the
/// opening call throws before keep(). An empty type without UMSYNC_NVTX.
template <class What, class... Tags>
class [[nodiscard]] nvtx_opening {
 public:
#if defined(UMSYNC_NVTX)
  nvtx_opening() { nvtx_push<nvtx_name<What, Tags...>>(); }
  ~nvtx_opening()
  {
    if (!kept_) {
      nvtx_pop();
    }
  }
  void keep() noexcept { kept_ = true; }
#else
  constexpr nvtx_opening() noexcept = default;
  constexpr void keep() noexcept {}
#endif
  nvtx_opening(nvtx_opening const&) = delete;
  nvtx_opening& operator=(nvtx_opening const&) = delete;

#if defined(UMSYNC_NVTX)
 private:
  bool kept_ = false;
#endif
};

}  // namespace detail
UMSYNC_NAMESPACE_END
