// The CPython interpreter inside a flashscope worker, loaded at run time.
//
// The bridge links to no libpython: it is built against this machine's Python headers with the
// limited API, and resolves the stable-ABI functions it calls by name (dlsym) from the libpython
// that the running environment names. So one bridge serves every CPython >= 3.10 with a shared
// libpython: built here against 3.11, it runs with the GPU machine's 3.12. Which Python:
//   - FLASHSCOPE_PYTHON: the interpreter (a path, or a name looked up on PATH); default python3.
//     It is asked once (a subprocess) for its version, its sys.executable, its sys.path and where
//     its shared libpython is (sysconfig LIBDIR / INSTSONAME, LDLIBRARY);
//   - FLASHSCOPE_PYTHON_LIB: the libpython file to load instead of the one the interpreter names
//     (for a Python whose sysconfig does not say; it must be the same major.minor version).
// The embedded interpreter then sees that interpreter's sys.path, so a virtual environment's
// packages (torch, triton) import as they do from its command line.
#pragma once

#include <string>

// Py_LIMITED_API (0x030A0000: CPython 3.10's stable ABI) is set by python/CMakeLists.txt.
#include <Python.h>

namespace flashscope::python_bridge {

// Stable-ABI functions, each resolved by its own name. The deprecated ones are the only way the
// limited API offers to name the executable and to fetch an exception in every version >= 3.10.
struct PyApi {
  decltype(&::Py_IsInitialized) IsInitialized;
  decltype(&::Py_InitializeEx) InitializeEx;
  decltype(&::Py_GetVersion) GetVersion;
  decltype(&::Py_DecodeLocale) DecodeLocale;
  decltype(&::PyEval_SaveThread) EvalSaveThread;
  decltype(&::PyGILState_Ensure) GILStateEnsure;
  decltype(&::PyGILState_Release) GILStateRelease;
  decltype(&::PyImport_ImportModule) ImportModule;
  decltype(&::PyObject_GetAttrString) GetAttrString;
  decltype(&::PyObject_CallObject) CallObject;
  decltype(&::PyObject_Size) Size;
  decltype(&::PySequence_GetItem) SequenceGetItem;
  decltype(&::PySys_GetObject) SysGetObject;
  decltype(&::PyList_Insert) ListInsert;
  decltype(&::PyTuple_New) TupleNew;
  decltype(&::PyTuple_SetItem) TupleSetItem;
  decltype(&::PyLong_FromLongLong) LongFromLongLong;
  decltype(&::PyLong_FromVoidPtr) LongFromVoidPtr;
  decltype(&::PyLong_AsLongLong) LongAsLongLong;
  decltype(&::PyFloat_FromDouble) FloatFromDouble;
  decltype(&::PyUnicode_FromString) UnicodeFromString;
  decltype(&::PyUnicode_AsUTF8AndSize) UnicodeAsUTF8AndSize;
  decltype(&::PyUnicode_Join) UnicodeJoin;
  decltype(&::PyErr_Occurred) ErrOccurred;
  decltype(&::PyErr_Fetch) ErrFetch;
  decltype(&::PyErr_NormalizeException) ErrNormalizeException;
  decltype(&::PyErr_Clear) ErrClear;
  decltype(&::PyException_SetTraceback) ExceptionSetTraceback;
  decltype(&::Py_IncRef) IncRef;
  decltype(&::Py_DecRef) DecRef;
  void (*SetProgramName)(const wchar_t*);  // optional: absent from a future Python
};

// What was loaded, and what it cost (stated once per worker process).
struct Interpreter {
  const PyApi* api = nullptr;  // null when loading failed
  std::string error;           // why, and what to set
  std::string executable;      // sys.executable of FLASHSCOPE_PYTHON
  std::string version;         // "3.12.3"
  std::string library;         // the libpython file loaded
  std::string sys_path_json;   // that interpreter's sys.path, as JSON
  double query_s = 0;          // asking the interpreter (a subprocess)
  double init_s = 0;           // dlopen + Py_InitializeEx
};

// Loads and initialises the interpreter on the first call, from any thread; every later call
// returns the same result. After it, the GIL is released: take it with GilGuard.
const Interpreter& EmbeddedInterpreter();

// Holds the GIL for its scope (PyGILState_Ensure / Release): the callbacks of fs_kernel may be
// called from any one thread at a time.
class GilGuard {
 public:
  explicit GilGuard(const PyApi& api) : api_(api), state_(api.GILStateEnsure()) {}
  ~GilGuard() { api_.GILStateRelease(state_); }
  GilGuard(const GilGuard&) = delete;
  GilGuard& operator=(const GilGuard&) = delete;

 private:
  const PyApi& api_;
  PyGILState_STATE state_;
};

// The pending Python exception as text (its traceback, as `traceback.format_exception` writes
// it), cleared; `context` leads the text. Call with the GIL held.
std::string TakeErrorText(const PyApi& api, const std::string& context);

}  // namespace flashscope::python_bridge
