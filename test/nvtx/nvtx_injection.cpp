// umsync_nvtx_injection: an NVTX tool that writes down the ranges a program opens, so that tests
// can read umsync's range names back without Nsight Systems.
//
//   NVTX_INJECTION64_PATH=/path/libumsync_nvtx_injection.so UMSYNC_NVTX_RECORD=ranges.txt ./program
//   cat ranges.txt    # push umsync: umsync transfer loader -> compute
//                     # pop umsync
//
// The nvtx3 headers compiled into the program load the library named by NVTX_INJECTION64_PATH at
// the first NVTX call and call its InitializeInjectionNvtx2 with a getter of their export
// tables; the callbacks table (NVTX_ETID_CALLBACKS) hands out each module's table of function
// pointers, and the pointers set here replace the headers' no-ops. One line per call, appended
// and flushed at once to the file UMSYNC_NVTX_RECORD names: "push <domain>: <name>", "pop
// <domain>", "start <domain>: <name>", "end <domain>", "mark <domain>: <name>"; the domain is
// "(default)" for the calls without one. Names come as ASCII or as strings registered with
// nvtxDomainRegisterStringA, whose handle here is the registered copy's address.
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

std::mutex file_mutex;
std::FILE* file = nullptr;
std::atomic<nvtxRangeId_t> next_range{1};

void write_line(std::string const& line)
{
  std::lock_guard<std::mutex> lock(file_mutex);
  if (file != nullptr) {
    std::fputs((line + "\n").c_str(), file);
    std::fflush(file);
  }
}

// A domain or registered string is a leaked std::string: its handle is its address, and it
// lives as long as the program, as NVTX handles do.
char const* text_of(nvtxDomainHandle_t domain)
{
  return domain == nullptr ? "(default)" : reinterpret_cast<std::string const*>(domain)->c_str();
}

std::string message_of(nvtxEventAttributes_t const* attributes)
{
  if (attributes == nullptr) {
    return "(no attributes)";
  }
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return attributes->message.ascii;
    case NVTX_MESSAGE_TYPE_REGISTERED: return *reinterpret_cast<std::string const*>(attributes->message.registered);
    default: return "(message type " + std::to_string(attributes->messageType) + ")";
  }
}

void event(char const* what, nvtxDomainHandle_t domain, std::string const& name)
{
  write_line(std::string(what) + " " + text_of(domain) + ": " + name);
}

nvtxDomainHandle_t domain_create(char const* name)
{
  return reinterpret_cast<nvtxDomainHandle_t>(new std::string(name));
}
nvtxStringHandle_t register_string(nvtxDomainHandle_t, char const* text)
{
  return reinterpret_cast<nvtxStringHandle_t>(new std::string(text));
}
void domain_destroy(nvtxDomainHandle_t) {}  // handles stay valid: a late range may still name one

int domain_push(nvtxDomainHandle_t domain, nvtxEventAttributes_t const* attributes)
{
  event("push", domain, message_of(attributes));
  return 0;
}
int domain_pop(nvtxDomainHandle_t domain)
{
  write_line(std::string("pop ") + text_of(domain));
  return 0;
}
nvtxRangeId_t domain_start(nvtxDomainHandle_t domain, nvtxEventAttributes_t const* attributes)
{
  event("start", domain, message_of(attributes));
  return next_range++;
}
void domain_end(nvtxDomainHandle_t domain, nvtxRangeId_t) { write_line(std::string("end ") + text_of(domain)); }
void domain_mark(nvtxDomainHandle_t domain, nvtxEventAttributes_t const* attributes)
{
  event("mark", domain, message_of(attributes));
}

int push_ex(nvtxEventAttributes_t const* attributes) { return domain_push(nullptr, attributes); }
int push_a(char const* text)
{
  event("push", nullptr, text);
  return 0;
}
int pop() { return domain_pop(nullptr); }
nvtxRangeId_t start_ex(nvtxEventAttributes_t const* attributes) { return domain_start(nullptr, attributes); }
nvtxRangeId_t start_a(char const* text)
{
  event("start", nullptr, text);
  return next_range++;
}
void end(nvtxRangeId_t id) { domain_end(nullptr, id); }
void mark_ex(nvtxEventAttributes_t const* attributes) { domain_mark(nullptr, attributes); }
void mark_a(char const* text) { event("mark", nullptr, text); }

/// Points slot `id` of `module`'s table at `function`; false when the table has no such slot.
template <class Function>
bool install(NvtxExportTableCallbacks const* callbacks, NvtxCallbackModule module, unsigned id, Function function)
{
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (callbacks->GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr || id >= size ||
      table[id] == nullptr) {
    return false;
  }
  *table[id] = reinterpret_cast<NvtxFunctionPointer>(function);
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
  auto const* callbacks = static_cast<NvtxExportTableCallbacks const*>(get_table(NVTX_ETID_CALLBACKS));
  char const* path = std::getenv("UMSYNC_NVTX_RECORD");
  if (callbacks == nullptr || path == nullptr) {
    return 0;  // nothing to record to: NVTX calls stay no-ops
  }
  file = std::fopen(path, "a");
  if (file == nullptr) {
    return 0;
  }
  write_line("init");
  bool ok = true;
  ok = install(callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, mark_ex) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, mark_a) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartEx, start_ex) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartA, start_a) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeEnd, end) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, push_ex) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, push_a) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, pop) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, domain_mark) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeStartEx, domain_start) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeEnd, domain_end) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, domain_push) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, domain_pop) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA, register_string) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, domain_create) && ok;
  ok = install(callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainDestroy, domain_destroy) && ok;
  if (!ok) {
    write_line("error: a callback table lacks a slot");
  }
  return 1;
}
