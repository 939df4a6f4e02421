// umsync/pdl.hpp: programmatic dependent launch (PDL), made safe by type.
//
//   __global__ void consume(umsync::pending<float const> in, umsync::pending<float> out, int n)
//   {
//     // ... a preamble that touches no pending memory ...
//     umsync::trigger_dependent_launch();                        // optional: let the next kernel start
//     umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
//     float const* x = in.after(done);                           // opens only with the proof
//     float* y = out.after(done);
//     ...
//   }
//
//   umsync::launch_dependent(s, {.grid = 132, .block = 256}, consume, produced, result, n);
//
// A kernel launched with PDL (umsync::launch_dependent, launch.hpp) may start before the kernel
// before it on its stream has finished. Until it executes griddepcontrol.wait
// (cudaGridDependencySynchronize), what that kernel writes is not visible and what it reads may
// still be read: touching such memory earlier is a race (NVIDIA/cccl #3131, #5297). So memory a
// dependent kernel shares with earlier work arrives as pending<T>, which has no way to reach its
// elements except after(prerequisites_complete), and the only way to get a
// prerequisites_complete is to wait. Memory the kernel knows no earlier work touches arrives as
// independent<T>, usable at once. launch_dependent refuses plain pointer parameters, so every
// buffer is declared one or the other (docs/pdl.md).
//
// Both types are trivially copyable kernel parameters of one pointer's size: no cost over T*
// (test/sass/pdl_sass.cu compares the SASS). In a kernel launched without PDL the wait returns
// at once (the previous kernel has completed), so the same kernel serves both launches.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>

#include <cstddef>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// Proof that this thread has waited for the kernel's prerequisite grids: every earlier kernel on
/// the stream has completed and its memory operations are visible (PTX ISA, griddepcontrol).
/// Only wait_for_prerequisite_grids() makes one.
class prerequisites_complete {
 public:
  /// Declared only so that forging a proof (`prerequisites_complete{}`) fails with the rule's message.
  template <class Forged = void>
  __host__ __device__ prerequisites_complete() noexcept
  {
    static_assert(detail::dependent_false<Forged>,
                  "umsync: a prerequisites_complete proof comes only from umsync::wait_for_prerequisite_grids(); it "
                  "cannot be made, so pending memory opens only after the wait");
  }

 private:
  struct waited {};
  __host__ __device__ constexpr explicit prerequisites_complete(waited) noexcept {}
  friend __device__ prerequisites_complete wait_for_prerequisite_grids() noexcept;
};

/// Waits until the grids this kernel depends on have completed and their writes are visible
/// (griddepcontrol.wait). Returns at once in a kernel not launched with PDL. Compiled for an
/// architecture below sm_90 the wait is empty: launch_dependent refuses such binaries.
[[nodiscard(
    "umsync: the proof of the wait opens pending memory (pending<T>::after)")]] __device__ inline prerequisites_complete
wait_for_prerequisite_grids() noexcept
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  return prerequisites_complete(prerequisites_complete::waited{});
}

/// Lets the next PDL kernel on the stream start once every block of this grid has called it or
/// exited (griddepcontrol.launch_dependents). It publishes nothing: the dependent still waits for
/// this grid's completion before it reads what this grid writes.
__device__ inline void trigger_dependent_launch() noexcept
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

namespace detail {

/// Builds the kernel parameters pending<T> and independent<T> in launch() (launch.hpp).
struct pdl_parameter_access;

/// A pointer that only pdl_parameter_access can fill; common to pending and independent.
template <class T>
class pdl_pointer {
 public:
  using element_type = T;
  pdl_pointer() = default;

 protected:
  T* pointer_ = nullptr;
  friend struct pdl_parameter_access;
};

}  // namespace detail

/// Memory that earlier work on the stream may still write or read, as a dependent kernel's
/// parameter: opened by after(wait_for_prerequisite_grids()). T const: the kernel only reads it.
template <class T>
class pending : public detail::pdl_pointer<T> {
 public:
  /// The elements, after the wait that `done` proves.
  [[nodiscard]] __device__ T* after(prerequisites_complete const& done) const noexcept
  {
    static_cast<void>(done);
    return this->pointer_;
  }

  // Every other way to the elements is refused with the rule's message.
  template <class Index>
  __device__ T& operator[](Index) const noexcept
  {
    static_assert(detail::dependent_false<Index>,
                  "umsync: pending memory of a dependent kernel is touched before the wait; earlier work on the "
                  "stream may still use it: open it with after(umsync::wait_for_prerequisite_grids())");
    return *this->pointer_;
  }
  template <class U = T>
  __device__ U& operator*() const noexcept
  {
    static_assert(detail::dependent_false<U>,
                  "umsync: pending memory of a dependent kernel is touched before the wait; earlier work on the "
                  "stream may still use it: open it with after(umsync::wait_for_prerequisite_grids())");
    return *this->pointer_;
  }
  template <class U>
  __device__ operator U*() const noexcept
  {
    static_assert(detail::dependent_false<U>,
                  "umsync: pending memory of a dependent kernel is touched before the wait; earlier work on the "
                  "stream may still use it: open it with after(umsync::wait_for_prerequisite_grids())");
    return this->pointer_;
  }
};

/// Memory no earlier work on the stream touches (the kernel's own scratch, inputs the host wrote
/// before the previous kernel began), usable before the wait. Declaring memory independent that
/// earlier work does use is the one claim the types take on trust (docs/pdl.md).
template <class T>
class independent : public detail::pdl_pointer<T> {
 public:
  [[nodiscard]] __device__ T* get() const noexcept { return this->pointer_; }
  __device__ T& operator[](std::size_t index) const noexcept { return this->pointer_[index]; }
};

namespace detail {

template <class Param>
struct pdl_parameter : std::false_type {};
template <class T>
struct pdl_parameter<pending<T>> : std::true_type {
  using pointer = T*;
};
template <class T>
struct pdl_parameter<independent<T>> : std::true_type {
  using pointer = T*;
};

struct pdl_parameter_access {
  template <class Param>
  static Param make(typename pdl_parameter<Param>::pointer pointer) noexcept
  {
    Param parameter;
    parameter.pointer_ = pointer;
    return parameter;
  }
  /// pending<V> and independent<V> of a type that carries memory by value (pdl_value_memory).
  template <class Param>
  static Param make_value(typename pdl_parameter<Param>::held_type const& value) noexcept
  {
    return Param(value);
  }
};

/// True for kernel parameter types that reach memory by value rather than through a pointer (a
/// tensor map, sync/tensor_map.hpp, which specializes this): launch_dependent refuses them bare,
/// as it refuses plain pointers, and takes them as pending<P> or independent<P>.
template <class Param>
inline constexpr bool pdl_value_memory = false;

/// True for pending<P> and independent<P> of such a type: the kernel argument is the value itself.
template <class Param, class = void>
inline constexpr bool pdl_parameter_by_value = false;
template <class Param>
inline constexpr bool pdl_parameter_by_value<Param, std::void_t<typename pdl_parameter<Param>::held_type>> = true;

static_assert(std::is_trivially_copyable_v<pending<float>> && sizeof(pending<float>) == sizeof(float*));
static_assert(std::is_trivially_copyable_v<independent<float>> && sizeof(independent<float>) == sizeof(float*));

}  // namespace detail

UMSYNC_NAMESPACE_END
