#include "python/bridge/embedded_python.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <vector>

extern char** environ;

namespace flashscope::python_bridge {
namespace {

// Asked of the interpreter: its shared libpython (first file that exists among the names
// sysconfig gives), sys.executable, its version, and sys.path as JSON, one per line.
constexpr char kQueryScript[] = R"PY(
import json, os, sys, sysconfig
v = sysconfig.get_config_var
names = [n for n in (v("INSTSONAME"), v("LDLIBRARY")) if n and ".so" in n]
dirs = [d for d in (v("LIBDIR"), os.path.join(v("LIBDIR") or "", v("MULTIARCH") or ""),
                    v("LIBPL"), os.path.join(sys.base_prefix, "lib")) if d]
found = [os.path.join(d, n) for d in dirs for n in names if os.path.isfile(os.path.join(d, n))]
print(found[0] if found else "")
print(sys.executable)
print("%d.%d.%d" % sys.version_info[:3])
print(json.dumps([p for p in sys.path if p]))
)PY";

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Runs `python -c kQueryScript`; its stdout, or an error naming the interpreter and the fix.
bool QueryInterpreter(const std::string& python, std::string* out, std::string* error) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    *error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<char*> argv = {const_cast<char*>(python.c_str()), const_cast<char*>("-c"),
                             const_cast<char*>(kQueryScript), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    *error = "cannot run the Python interpreter '" + python + "': " + std::strerror(rc) +
             " (set FLASHSCOPE_PYTHON to the python3 that has torch, e.g. "
             "FLASHSCOPE_PYTHON=/path/to/venv/bin/python3)";
    return false;
  }
  // The query prints little; reading stdout to its end before stderr cannot fill a pipe.
  *out = ReadAll(out_pipe[0]);
  const std::string err = ReadAll(err_pipe[0]);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *error = "the Python interpreter '" + python + "' failed when asked where its libpython is (" +
             (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                : "killed by signal " + std::to_string(WTERMSIG(status))) +
             "): " + err + " (set FLASHSCOPE_PYTHON to a working python3)";
    return false;
  }
  return true;
}

template <typename F>
bool Resolve(void* lib, const char* name, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  if (*out == nullptr) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *out != nullptr;
}

bool ResolveAll(void* lib, PyApi* a, std::string* missing) {
  bool ok = true;
#define FS_RESOLVE(field, name) ok = Resolve(lib, name, &a->field, missing) && ok
  FS_RESOLVE(IsInitialized, "Py_IsInitialized");
  FS_RESOLVE(InitializeEx, "Py_InitializeEx");
  FS_RESOLVE(GetVersion, "Py_GetVersion");
  FS_RESOLVE(DecodeLocale, "Py_DecodeLocale");
  FS_RESOLVE(EvalSaveThread, "PyEval_SaveThread");
  FS_RESOLVE(GILStateEnsure, "PyGILState_Ensure");
  FS_RESOLVE(GILStateRelease, "PyGILState_Release");
  FS_RESOLVE(ImportModule, "PyImport_ImportModule");
  FS_RESOLVE(GetAttrString, "PyObject_GetAttrString");
  FS_RESOLVE(CallObject, "PyObject_CallObject");
  FS_RESOLVE(Size, "PyObject_Size");
  FS_RESOLVE(SequenceGetItem, "PySequence_GetItem");
  FS_RESOLVE(SysGetObject, "PySys_GetObject");
  FS_RESOLVE(ListInsert, "PyList_Insert");
  FS_RESOLVE(TupleNew, "PyTuple_New");
  FS_RESOLVE(TupleSetItem, "PyTuple_SetItem");
  FS_RESOLVE(LongFromLongLong, "PyLong_FromLongLong");
  FS_RESOLVE(LongFromVoidPtr, "PyLong_FromVoidPtr");
  FS_RESOLVE(LongAsLongLong, "PyLong_AsLongLong");
  FS_RESOLVE(FloatFromDouble, "PyFloat_FromDouble");
  FS_RESOLVE(UnicodeFromString, "PyUnicode_FromString");
  FS_RESOLVE(UnicodeAsUTF8AndSize, "PyUnicode_AsUTF8AndSize");
  FS_RESOLVE(UnicodeJoin, "PyUnicode_Join");
  FS_RESOLVE(ErrOccurred, "PyErr_Occurred");
  FS_RESOLVE(ErrFetch, "PyErr_Fetch");
  FS_RESOLVE(ErrNormalizeException, "PyErr_NormalizeException");
  FS_RESOLVE(ErrClear, "PyErr_Clear");
  FS_RESOLVE(ExceptionSetTraceback, "PyException_SetTraceback");
  FS_RESOLVE(IncRef, "Py_IncRef");
  FS_RESOLVE(DecRef, "Py_DecRef");
#undef FS_RESOLVE
  a->SetProgramName = reinterpret_cast<void (*)(const wchar_t*)>(dlsym(lib, "Py_SetProgramName"));
  return ok;
}

// "3.12" of "3.12.3" (or of Py_GetVersion's "3.12.3 (main, ...) [GCC ...]").
std::string MajorMinor(const std::string& version) {
  const size_t first = version.find('.');
  if (first == std::string::npos) return version;
  const size_t second = version.find_first_not_of("0123456789", first + 1);
  return version.substr(0, second);
}

bool ParseQuery(const std::string& out, Interpreter* in) {
  std::istringstream lines(out);
  std::string library;
  if (!std::getline(lines, library) || !std::getline(lines, in->executable) ||
      !std::getline(lines, in->version) || !std::getline(lines, in->sys_path_json)) {
    in->error = "the Python interpreter printed an unexpected answer: " + out;
    return false;
  }
  in->library = library;
  return true;
}

// Finds, loads and starts the interpreter; fills `in` (error on failure).
void Load(Interpreter* in) {
  const std::string python =
      Env("FLASHSCOPE_PYTHON").empty() ? "python3" : Env("FLASHSCOPE_PYTHON");
  auto t0 = std::chrono::steady_clock::now();
  std::string out;
  if (!QueryInterpreter(python, &out, &in->error) || !ParseQuery(out, in)) return;
  in->query_s = SecondsSince(t0);
  const std::string override_lib = Env("FLASHSCOPE_PYTHON_LIB");
  if (!override_lib.empty()) in->library = override_lib;
  if (in->library.empty()) {
    in->error = "Python " + in->version + " (" + in->executable +
                ") has no shared libpython that sysconfig names (it was built without "
                "--enable-shared): set FLASHSCOPE_PYTHON_LIB=/path/to/libpython" +
                MajorMinor(in->version) +
                ".so.1.0, or FLASHSCOPE_PYTHON to a python3 built with a shared libpython "
                "(Debian: the libpython3.X package; pyenv: PYTHON_CONFIGURE_OPTS=--enable-shared)";
    return;
  }
  t0 = std::chrono::steady_clock::now();
  // RTLD_GLOBAL: extension modules (torch's _C, triton's libtriton) are not linked to libpython
  // and find its symbols in the process's global scope.
  void* lib = dlopen(in->library.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) {
    in->error = "cannot load libpython " + in->library + ": " + dlerror() +
                " (set FLASHSCOPE_PYTHON_LIB to the shared libpython of " + in->executable + ")";
    return;
  }
  static PyApi api;
  std::string missing;
  if (!ResolveAll(lib, &api, &missing)) {
    in->error = in->library + " lacks CPython functions the bridge needs (" + missing +
                "): it is not a CPython >= 3.10 libpython";
    return;
  }
  const std::string loaded = MajorMinor(api.GetVersion());
  if (loaded != MajorMinor(in->version)) {
    in->error = "libpython " + in->library + " is Python " + loaded + " but " + in->executable +
                " is Python " + in->version +
                ": FLASHSCOPE_PYTHON_LIB and FLASHSCOPE_PYTHON must name the same version";
    return;
  }
  if (!api.IsInitialized()) {
    // The executable's path lets CPython find its standard library and a virtual environment's
    // pyvenv.cfg exactly as when that executable runs; without it a relocated Python may not
    // find `encodings` and abort the process.
    if (api.SetProgramName != nullptr) {
      static wchar_t* program = api.DecodeLocale(in->executable.c_str(), nullptr);
      if (program != nullptr) api.SetProgramName(program);
    }
    api.InitializeEx(0);   // 0: flashscope's signal handlers stay
    api.EvalSaveThread();  // callbacks take the GIL with GilGuard
  }
  in->init_s = SecondsSince(t0);
  in->api = &api;
}

}  // namespace

const Interpreter& EmbeddedInterpreter() {
  static Interpreter interpreter;
  static std::once_flag once;
  std::call_once(once, [] { Load(&interpreter); });
  return interpreter;
}

std::string TakeErrorText(const PyApi& api, const std::string& context) {
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  api.ErrFetch(&type, &value, &traceback);
  if (type == nullptr) return context + ": failed without a Python exception";
  api.ErrNormalizeException(&type, &value, &traceback);
  if (traceback != nullptr) api.ExceptionSetTraceback(value, traceback);
  // format_exception(exc) (3.10+) reads the traceback from the exception itself.
  PyObject* module = api.ImportModule("traceback");
  PyObject* format = module ? api.GetAttrString(module, "format_exception") : nullptr;
  PyObject* args = api.TupleNew(1);
  api.IncRef(value);
  api.TupleSetItem(args, 0, value);  // steals the reference
  PyObject* lines = format ? api.CallObject(format, args) : nullptr;
  PyObject* empty = api.UnicodeFromString("");
  PyObject* joined = lines ? api.UnicodeJoin(empty, lines) : nullptr;
  Py_ssize_t size = 0;
  const char* utf8 = joined ? api.UnicodeAsUTF8AndSize(joined, &size) : nullptr;
  std::string traceback_text = utf8 != nullptr ? std::string(utf8, static_cast<size_t>(size))
                                               : "(the traceback could not be formatted)";
  for (PyObject* o : {joined, empty, lines, args, format, module, type, value, traceback}) {
    if (o != nullptr) api.DecRef(o);
  }
  api.ErrClear();  // anything formatting raised
  while (!traceback_text.empty() && traceback_text.back() == '\n') traceback_text.pop_back();
  // The exception's own line ("ValueError: boom") first: a terminal that shows the message on
  // one line (line breaks escaped) still reads what went wrong before where.
  const size_t last = traceback_text.rfind('\n');
  const std::string summary =
      last == std::string::npos ? traceback_text : traceback_text.substr(last + 1);
  return context + ": " + summary + "\n" + traceback_text;
}

}  // namespace flashscope::python_bridge
