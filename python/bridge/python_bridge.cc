// libflashscope_python.so: a plugin whose kernels are Python functions. It implements the kernel
// ABI (include/flashscope/kernel_abi.h) once, in C++, and hands every callback to the
// `flashscope._bridge` module (python/flashscope/_bridge.py), which imports the user's module,
// wraps flashscope's device buffers as torch tensors without copying, and calls the kernel on
// flashscope's stream. docs/python.md is the guide.
//
// The one export is flashscope_python_plugin_v1(host_abi_version, module_path, error): one
// fs_plugin per Python module, so two modules (the two sides of `flashscope ab`) can load in one
// worker. flashscope's plugin loader calls it for a plugin path ending in ".py".
#include <dlfcn.h>

#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "flashscope/kernel_abi.h"
#include "python/bridge/embedded_python.h"

namespace flashscope::python_bridge {
namespace {

// Owns one reference; the GIL must be held where it is created or destroyed.
class Ref {
 public:
  Ref(const PyApi& api, PyObject* o) : api_(&api), o_(o) {}
  ~Ref() {
    if (o_ != nullptr) api_->DecRef(o_);
  }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  PyObject* get() const { return o_; }
  PyObject* release() {
    PyObject* o = o_;
    o_ = nullptr;
    return o;
  }
  explicit operator bool() const { return o_ != nullptr; }

 private:
  const PyApi* api_;
  PyObject* o_;
};

struct KernelSlot {
  const PyApi* api = nullptr;
  PyObject* kernel = nullptr;  // a flashscope._bridge.Kernel, kept for the process's life
  PyObject* bridge = nullptr;  // the flashscope._bridge module
  std::string id, title, changed;
  std::string reason, error, note;  // what the last callback returned, valid until the next
};

struct LoadedModule {
  std::string name, version;
  std::deque<KernelSlot> slots;
  std::vector<fs_kernel> table;
  fs_plugin plugin{};
};

std::mutex modules_mutex;
std::deque<LoadedModule> modules;  // never unloaded, as the ABI requires of the table
thread_local std::string load_error;

std::string Str(const PyApi& api, PyObject* o) {
  Py_ssize_t size = 0;
  const char* utf8 = o != nullptr ? api.UnicodeAsUTF8AndSize(o, &size) : nullptr;
  if (utf8 == nullptr) {
    api.ErrClear();
    return "";
  }
  return std::string(utf8, static_cast<size_t>(size));
}

// The folder of this shared library: the `flashscope` package lives in <it>/python.
std::string BridgeDir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&BridgeDir), &info) == 0 || info.dli_fname == nullptr) {
    return ".";
  }
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// A new tuple of `n` items taken from `items` (each a new reference, stolen); null if one is.
PyObject* Tuple(const PyApi& api, std::initializer_list<PyObject*> items) {
  PyObject* t = api.TupleNew(static_cast<Py_ssize_t>(items.size()));
  Py_ssize_t i = 0;
  bool ok = t != nullptr;
  for (PyObject* item : items) {
    if (item == nullptr || !ok) {
      ok = false;
      if (item != nullptr) api.DecRef(item);
      continue;
    }
    api.TupleSetItem(t, i++, item);
  }
  if (!ok && t != nullptr) {
    api.DecRef(t);
    return nullptr;
  }
  return t;
}

// Calls flashscope._bridge.<function>(*args); a new reference, or null with the error set.
PyObject* CallBridge(const PyApi& api, PyObject* bridge, const char* function, PyObject* args) {
  Ref owned_args(api, args);
  if (args == nullptr) return nullptr;
  Ref f(api, api.GetAttrString(bridge, function));
  if (!f) return nullptr;
  return api.CallObject(f.get(), args);
}

// The module `flashscope._bridge`, imported once per process after pointing sys.path at the
// package shipped beside this library and at the interpreter's own sys.path.
PyObject* BridgeModule(const Interpreter& in, std::string* error) {
  static PyObject* bridge = nullptr;
  static std::string bridge_error;
  if (bridge != nullptr || !bridge_error.empty()) {
    *error = bridge_error;
    return bridge;
  }
  const PyApi& api = *in.api;
  const std::string package_dir = BridgeDir() + "/python";
  PyObject* sys_path = api.SysGetObject("path");  // borrowed
  Ref dir(api, api.UnicodeFromString(package_dir.c_str()));
  if (sys_path == nullptr || !dir || api.ListInsert(sys_path, 0, dir.get()) != 0) {
    bridge_error = TakeErrorText(api, "cannot extend the embedded interpreter's sys.path");
  } else if (PyObject* m = api.ImportModule("flashscope._bridge"); m == nullptr) {
    bridge_error =
        TakeErrorText(api, "cannot import flashscope._bridge from " + package_dir +
                               " (the `flashscope` package ships beside libflashscope_python.so)");
  } else {
    PyObject* args = Tuple(
        api, {api.UnicodeFromString(package_dir.c_str()),
              api.UnicodeFromString(in.sys_path_json.c_str()),
              api.UnicodeFromString(in.executable.c_str()),
              api.UnicodeFromString(in.version.c_str()), api.UnicodeFromString(in.library.c_str()),
              api.FloatFromDouble(in.query_s), api.FloatFromDouble(in.init_s)});
    PyObject* done = CallBridge(api, m, "configure", args);
    if (done == nullptr) {
      bridge_error = TakeErrorText(api, "flashscope._bridge.configure failed");
      api.DecRef(m);
    } else {
      api.DecRef(done);
      bridge = m;
    }
  }
  *error = bridge_error;
  return bridge;
}

PyObject* Long(const PyApi& api, long long v) { return api.LongFromLongLong(v); }
PyObject* Ptr(const PyApi& api, const void* p) { return api.LongFromVoidPtr(const_cast<void*>(p)); }

// The problem's fields as a tuple (flashscope._calls.problem_of reads them).
PyObject* ProblemTuple(const PyApi& api, const fs_problem* p) {
  const fs_attention_problem& a = p->attention;
  const fs_gemm_problem& g = p->gemm;
  return Tuple(api, {Long(api, p->family), Long(api, a.batch), Long(api, a.heads),
                     Long(api, a.seq_q), Long(api, a.seq_k), Long(api, a.head_dim),
                     Long(api, a.dtype), Long(api, a.causal), Long(api, a.want_lse), Long(api, g.m),
                     Long(api, g.n), Long(api, g.k), Long(api, g.dtype)});
}

// The buffers' pointers, the softmax scale and the stream as a tuple.
PyObject* BufferTuple(const PyApi& api, const fs_buffers* b, void* stream) {
  const fs_attention_buffers& a = b->attention;
  const fs_gemm_buffers& g = b->gemm;
  return Tuple(api, {Ptr(api, a.q), Ptr(api, a.k), Ptr(api, a.v), Ptr(api, a.o), Ptr(api, a.lse),
                     api.FloatFromDouble(a.softmax_scale), Ptr(api, g.a), Ptr(api, g.b),
                     Ptr(api, g.c), Ptr(api, stream)});
}

// (kernel, problem tuple[, buffer tuple]): the arguments of flashscope._calls' functions.
PyObject* Args(const KernelSlot& s, const fs_problem* p, const fs_buffers* b, void* stream) {
  const PyApi& api = *s.api;
  api.IncRef(s.kernel);
  if (b == nullptr) return Tuple(api, {s.kernel, ProblemTuple(api, p)});
  return Tuple(api, {s.kernel, ProblemTuple(api, p), BufferTuple(api, b, stream)});
}

const char* Supports(void* user, const fs_problem* problem) {
  auto& s = *static_cast<KernelSlot*>(user);
  GilGuard gil(*s.api);
  Ref reason(*s.api, CallBridge(*s.api, s.bridge, "supports", Args(s, problem, nullptr, nullptr)));
  if (!reason) {
    s.reason = TakeErrorText(*s.api, "supports() raised");
    return s.reason.c_str();
  }
  s.reason = Str(*s.api, reason.get());  // "" for None: supported
  return s.reason.c_str();
}

// launch() and prepare(): `function` of flashscope._bridge; its result in `result`.
int32_t Call(KernelSlot& s, const char* function, const fs_problem* p, const fs_buffers* b,
             void* stream, std::string* result) {
  GilGuard gil(*s.api);
  Ref out(*s.api, CallBridge(*s.api, s.bridge, function, Args(s, p, b, stream)));
  if (!out) {
    s.error = TakeErrorText(*s.api, s.id + " raised");
    return FS_LAUNCH_PLUGIN_ERROR;
  }
  if (result != nullptr) *result = Str(*s.api, out.get());
  return 0;
}

int32_t Launch(void* user, const fs_problem* p, const fs_buffers* b, void* stream) {
  return Call(*static_cast<KernelSlot*>(user), "launch", p, b, stream, nullptr);
}

int32_t Prepare(void* user, const fs_problem* p, const fs_buffers* b, void* stream,
                const char** note) {
  auto& s = *static_cast<KernelSlot*>(user);
  const int32_t rc = Call(s, "prepare", p, b, stream, &s.note);
  if (note != nullptr) *note = rc == 0 ? s.note.c_str() : nullptr;
  return rc;
}

const char* LastError(void* user) { return static_cast<KernelSlot*>(user)->error.c_str(); }

// An attribute of a described kernel: text, or an integer (-1 and the error set on failure).
std::string TextAttr(const PyApi& api, PyObject* o, const char* name) {
  Ref v(api, api.GetAttrString(o, name));
  return Str(api, v.get());
}
long long IntAttr(const PyApi& api, PyObject* o, const char* name) {
  Ref v(api, api.GetAttrString(o, name));
  return v ? api.LongAsLongLong(v.get()) : -1;
}

// Fills one table entry from a flashscope._bridge.Kernel (fields checked there already).
void Describe(const PyApi& api, KernelSlot& s, fs_kernel* k) {
  s.id = TextAttr(api, s.kernel, "id");
  s.title = TextAttr(api, s.kernel, "title");
  s.changed = TextAttr(api, s.kernel, "changed");
  *k = fs_kernel{};
  k->struct_size = sizeof(fs_kernel);
  k->flags = static_cast<uint32_t>(IntAttr(api, s.kernel, "flags"));
  k->id = s.id.c_str();
  k->title = s.title.c_str();
  k->changed = s.changed.c_str();
  k->family = static_cast<int32_t>(IntAttr(api, s.kernel, "family_code"));
  k->revision = static_cast<int32_t>(IntAttr(api, s.kernel, "revision"));
  k->min_sm = static_cast<int32_t>(IntAttr(api, s.kernel, "min_sm"));
  k->exact_sm = static_cast<int32_t>(IntAttr(api, s.kernel, "exact_sm"));
  k->tile = fs_tile{static_cast<int32_t>(IntAttr(api, s.kernel, "block_m")),
                    static_cast<int32_t>(IntAttr(api, s.kernel, "block_n")),
                    static_cast<int32_t>(IntAttr(api, s.kernel, "block_k")),
                    static_cast<int32_t>(IntAttr(api, s.kernel, "threads"))};
  k->user = &s;
  k->supports = &Supports;
  k->launch = &Launch;
  k->last_error = &LastError;
  k->prepare = &Prepare;
}

// Imports the module at `path` through flashscope._bridge.load and builds its table.
const fs_plugin* LoadModule(const char* path, std::string* error) {
  const Interpreter& in = EmbeddedInterpreter();
  if (in.api == nullptr) {
    *error = in.error;
    return nullptr;
  }
  const PyApi& api = *in.api;
  GilGuard gil(api);
  PyObject* bridge = BridgeModule(in, error);
  if (bridge == nullptr) return nullptr;
  Ref loaded(api, CallBridge(api, bridge, "load", Tuple(api, {api.UnicodeFromString(path)})));
  if (!loaded) {
    *error = TakeErrorText(api, std::string("Python module ") + path + " cannot be loaded");
    return nullptr;
  }
  if (std::string why = TextAttr(api, loaded.get(), "error"); !why.empty()) {
    while (!why.empty() && why.back() == '\n') why.pop_back();
    *error = std::string("Python module ") + path + " cannot be loaded: " + why;
    return nullptr;
  }
  Ref kernels(api, api.GetAttrString(loaded.get(), "kernels"));
  const Py_ssize_t count = kernels ? api.Size(kernels.get()) : -1;
  std::lock_guard<std::mutex> lock(modules_mutex);
  LoadedModule& m = modules.emplace_back();
  m.name = TextAttr(api, loaded.get(), "name");
  m.version = TextAttr(api, loaded.get(), "version");
  m.table.resize(static_cast<size_t>(count < 0 ? 0 : count));
  for (Py_ssize_t i = 0; i < count; ++i) {
    KernelSlot& s = m.slots.emplace_back();
    s.api = &api;
    s.bridge = bridge;
    s.kernel = api.SequenceGetItem(kernels.get(), i);  // kept: the table lives as long
    if (s.kernel != nullptr) Describe(api, s, &m.table[static_cast<size_t>(i)]);
  }
  if (count < 0 || api.ErrOccurred() != nullptr) {
    *error = TakeErrorText(
        api, std::string("Python module ") + path + ": its kernels could not be read");
    return nullptr;
  }
  m.plugin = fs_plugin{sizeof(fs_plugin), FLASHSCOPE_ABI_VERSION,      m.name.c_str(),
                       m.version.c_str(), static_cast<int32_t>(count), m.table.data()};
  return &m.plugin;
}

}  // namespace
}  // namespace flashscope::python_bridge

// A Python module's kernels as a plugin table, or NULL with `*error` saying why (valid until the
// next call on this thread). Called once per module; the interpreter starts on the first call.
extern "C" FLASHSCOPE_PLUGIN_EXPORT const fs_plugin* flashscope_python_plugin_v1(
    uint32_t host_abi_version, const char* module_path, const char** error) {
  using flashscope::python_bridge::load_error;
  load_error.clear();
  const fs_plugin* plugin = nullptr;
  if (host_abi_version != FLASHSCOPE_ABI_VERSION) {
    load_error = "libflashscope_python.so speaks plugin ABI version " +
                 std::to_string(FLASHSCOPE_ABI_VERSION) + ", flashscope " +
                 std::to_string(host_abi_version) + ": use the bridge built with this flashscope";
  } else if (module_path == nullptr || *module_path == '\0') {
    load_error = "no Python module path given";
  } else {
    plugin = flashscope::python_bridge::LoadModule(module_path, &load_error);
  }
  if (error != nullptr) *error = plugin == nullptr ? load_error.c_str() : nullptr;
  return plugin;
}
