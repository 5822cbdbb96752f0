#include "gpu/torch_bridge.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>

#include "base/child_exec.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "kl_torch_peers_source.h"

namespace kl {

namespace {

// The few entry points of the CPython C API the bridge uses, resolved by name from the libpython
// that the learner's python3 names (every one exists from 3.8 to 3.12; Py_SetProgramName is
// optional). Objects are opaque here.
struct PythonApi {
    void (*initialize)(int) = nullptr;                                     // Py_InitializeEx
    void (*set_program_name)(const wchar_t*) = nullptr;                    // Py_SetProgramName, optional
    void* (*save_thread)() = nullptr;                                      // PyEval_SaveThread
    int (*gil_ensure)() = nullptr;                                         // PyGILState_Ensure
    void (*gil_release)(int) = nullptr;                                    // PyGILState_Release
    void* (*run_string)(const char*, int, void*, void*, void*) = nullptr;  // PyRun_StringFlags
    void* (*add_module)(const char*) = nullptr;                            // PyImport_AddModule
    void* (*module_dict)(void*) = nullptr;                                 // PyModule_GetDict
    void* (*dict_item)(void*, const char*) = nullptr;                      // PyDict_GetItemString
    void* (*call_function)(void*, const char*, ...) = nullptr;             // PyObject_CallFunction
    const char* (*utf8)(void*) = nullptr;                                  // PyUnicode_AsUTF8
    void (*dec_ref)(void*) = nullptr;                                      // Py_DecRef
    void (*error_clear)() = nullptr;                                       // PyErr_Clear
    int* no_user_site = nullptr;                                           // Py_NoUserSiteDirectory
    int* no_bytecode = nullptr;                                            // Py_DontWriteBytecodeFlag
    int* ignore_environment = nullptr;                                     // Py_IgnoreEnvironmentFlag
};
constexpr int kPyFileInput = 257;  // Py_file_input

struct Bridge {
    TorchAvailability availability;
    PythonApi api;
    void* peer_call = nullptr;  // kl_peer_call, a borrowed reference held by __main__
};

template <typename F>
bool resolve(void* lib, const char* name, F& out) {
    out = reinterpret_cast<F>(dlsym(lib, name));
    return out != nullptr;
}

// What the learner's python3 says about itself, asked in isolated mode (as the Triton helper runs).
nlohmann::json describe_python(const std::string& python) {
    static const char* script =
        "import sys, sysconfig, json\n"
        "print(json.dumps({'executable': sys.executable, 'path': sys.path,\n"
        "  'libdir': sysconfig.get_config_var('LIBDIR') or '', 'soname': sysconfig.get_config_var('INSTSONAME') or "
        "'',\n"
        "  'shared': int(sysconfig.get_config_var('Py_ENABLE_SHARED') or 0),\n"
        "  'version': '%d.%d' % sys.version_info[:2]}))\n";
    ExecOptions options;
    options.max_output = 1 << 20;
    options.own_files_only = true;
    const ExecResult r = run_program({python, "-I", "-B", "-c", script}, "", 60, options);
    if (!r.started || r.timed_out || r.exit_code != 0)
        throw GpuError(python + " did not describe itself (" + (r.started ? r.err : r.failure) + ")");
    return parse_json_limited(r.out, python + "'s description");
}

bool resolve_api(void* lib, PythonApi& a) {
    resolve(lib, "Py_SetProgramName", a.set_program_name);  // optional (gone in 3.13)
    return resolve(lib, "Py_InitializeEx", a.initialize) && resolve(lib, "PyEval_SaveThread", a.save_thread) &&
           resolve(lib, "PyGILState_Ensure", a.gil_ensure) && resolve(lib, "PyGILState_Release", a.gil_release) &&
           resolve(lib, "PyRun_StringFlags", a.run_string) && resolve(lib, "PyImport_AddModule", a.add_module) &&
           resolve(lib, "PyModule_GetDict", a.module_dict) && resolve(lib, "PyDict_GetItemString", a.dict_item) &&
           resolve(lib, "PyObject_CallFunction", a.call_function) && resolve(lib, "PyUnicode_AsUTF8", a.utf8) &&
           resolve(lib, "Py_DecRef", a.dec_ref) && resolve(lib, "PyErr_Clear", a.error_clear) &&
           resolve(lib, "Py_NoUserSiteDirectory", a.no_user_site) &&
           resolve(lib, "Py_DontWriteBytecodeFlag", a.no_bytecode) &&
           resolve(lib, "Py_IgnoreEnvironmentFlag", a.ignore_environment);
}

// Runs `code` in __main__; returns its `_kl_status` (the code sets it, errors caught in Python).
std::string run_status(const PythonApi& a, const std::string& code) {
    void* main_dict = a.module_dict(a.add_module("__main__"));
    void* result = a.run_string(code.c_str(), kPyFileInput, main_dict, main_dict, nullptr);
    if (!result) {
        a.error_clear();
        return "error: the bridge's own Python did not run";
    }
    a.dec_ref(result);
    void* status = a.dict_item(main_dict, "_kl_status");
    const char* text = status ? a.utf8(status) : nullptr;
    return text ? text : "error: no status";
}

// The interpreter with python3's own prefix (from its executable, so a venv is found as python3
// finds it) and python3's isolated sys.path, then torch imported and the peer table loaded.
std::string start_interpreter(Bridge& b, const nlohmann::json& py) {
    PythonApi& a = b.api;
    *a.no_user_site = 1;
    *a.no_bytecode = 1;
    *a.ignore_environment = 1;
    static std::wstring program;  // Python keeps the pointer
    const std::string exe = py.value("executable", "");
    program.assign(exe.begin(), exe.end());
    if (!a.set_program_name) return "python3 " + py.value("version", std::string("?")) + " is too new to embed here";
    a.set_program_name(program.c_str());
    a.initialize(0);  // 0: no signal handlers of Python's in our process
    const std::string paths = py.at("path").dump();
    if (paths.find("'''") != std::string::npos) return "python3's search path has a folder name the bridge refuses";
    std::string status =
        run_status(a, "import sys, json\nsys.path[:] = json.loads(r'''" + paths +
                          "''')\nsys.dont_write_bytecode = True\n"
                          "try:\n    import torch\n"
                          "    if not torch.cuda.is_available(): raise RuntimeError('torch sees no GPU')\n"
                          "    _kl_status = 'ok ' + torch.__version__\n"
                          "except BaseException as e:\n"
                          "    _kl_status = 'error ' + type(e).__name__ + ': ' + "
                          "(str(e).splitlines() or [''])[0]\n");
    if (status.rfind("ok ", 0) != 0) return "PyTorch is not importable by " + exe + " (" + status.substr(6) + ")";
    b.availability.version = status.substr(3);
    const std::string table(kTorchPeersSource, kTorchPeersSourceSize);
    if (run_status(a, table + "\n_kl_status = 'ok'\n") != "ok") return "the PyTorch peer table did not load";
    b.peer_call = a.dict_item(a.module_dict(a.add_module("__main__")), "kl_peer_call");
    return b.peer_call ? "" : "the PyTorch peer table has no kl_peer_call";
}

Bridge& bridge() {
    static Bridge b;
    static std::once_flag once;
    std::call_once(once, [] {
        std::string why;
        try {
            // The Triton rungs' choice too: $KL_PYTHON, else python3 on PATH (docs/security.md).
            const char* chosen = std::getenv("KL_PYTHON");
            const std::string asked = chosen && *chosen ? chosen : "python3";
            const std::string python = find_on_path(asked);
            if (python.empty()) throw GpuError(asked + " is not on PATH");
            const nlohmann::json py = describe_python(python);
            void* lib = nullptr;
            why = load_libpython(py.value("soname", ""), py.value("libdir", ""), py.value("version", "3"), &lib);
            if (why.empty() && !resolve_api(lib, b.api)) why = "libpython lacks an entry point the bridge needs";
            if (why.empty()) {
                why = start_interpreter(b, py);
                b.api.save_thread();  // every call takes the GIL for itself (PyGILState)
            }
        } catch (const Error& e) { why = e.what(); }
        b.availability.available = why.empty();
        b.availability.reason = why.empty() ? "" : "PyTorch peers need python3 with torch: " + why;
    });
    return b;
}

std::string request_json(const std::string& name, const std::vector<KernelArg>& args) {
    nlohmann::json values = nlohmann::json::array();
    for (const KernelArg& a : args) {
        switch (a.kind) {
            case KernelArg::Kind::Pointer: values.push_back(reinterpret_cast<uintptr_t>(a.ptr)); break;
            case KernelArg::Kind::I32: values.push_back(a.i32); break;
            case KernelArg::Kind::I64: values.push_back(a.i64); break;
            case KernelArg::Kind::F32: values.push_back(a.f32); break;
            case KernelArg::Kind::F64: values.push_back(a.f64); break;
            case KernelArg::Kind::TensorMap: throw InputError("builtin " + name + " takes no tensor map");
        }
    }
    return nlohmann::json{{"name", name}, {"args", values}}.dump();
}

}  // namespace

std::string load_libpython(const std::string& soname, const std::string& libdir, const std::string& version,
                           void** handle) {
    *handle = nullptr;
    if (soname.empty() || soname.find('/') != std::string::npos || soname.rfind("libpython", 0) != 0)
        return "python3 " + version + " names no shared libpython (is it linked statically?)";
    std::string first_error;  // the folder's attempt says more than the bare name's (a library found but unloadable)
    if (!libdir.empty()) {
        *handle = dlopen((libdir + "/" + soname).c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (const char* e = *handle ? nullptr : dlerror()) first_error = e;
    }
    if (!*handle) *handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (*handle) return "";
    const char* e = dlerror();
    std::string why = !first_error.empty() ? first_error : e ? e : "";
    if (why.empty() || why.find("No such file") != std::string::npos)
        return "python3 " + version + " has no shared library " + soname + " (install libpython" + version + ")";
    // Found but not loadable (a library of another build earlier on LD_LIBRARY_PATH, say).
    for (char& c : why)
        if (c == '\n') c = ' ';
    return "python3 " + version + "'s " + soname + " did not load: " + why;
}

bool is_torch_peer_name(const std::string& name) { return name.rfind("torch.", 0) == 0; }

std::vector<std::string> torch_peer_names_in(const std::string& python_table) {
    // The table is the one literal `_TABLE = {` ... `}` of kl_torch_peers.py; each entry is one line
    // `    "torch.<peer>": (<argument count>, <builder>),`. A key line of another shape is a table
    // this parser does not know: nothing is guessed, the list stops being trusted (an exception).
    static const std::string opening = "\n_TABLE = {\n";
    const size_t open = python_table.find(opening);
    if (open == std::string::npos) throw InputError("the PyTorch peer table has no `_TABLE = {` line");
    std::vector<std::string> names;
    size_t line_start = open + opening.size();
    while (line_start < python_table.size()) {
        size_t line_end = python_table.find('\n', line_start);
        if (line_end == std::string::npos) line_end = python_table.size();
        const std::string line = python_table.substr(line_start, line_end - line_start);
        line_start = line_end + 1;
        if (line.rfind("}", 0) == 0) return names;
        if (line.rfind("    \"", 0) != 0) continue;  // a continuation of the entry above
        const size_t key_end = line.find("\": (", 5);
        const std::string name = key_end == std::string::npos ? "" : line.substr(5, key_end - 5);
        const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
        });
        if (!plain || !is_torch_peer_name(name))
            throw InputError("the PyTorch peer table has an entry this program cannot read: " + line);
        names.push_back(name);
    }
    throw InputError("the PyTorch peer table's `_TABLE = {` is never closed");
}

const std::vector<std::string>& torch_peer_names() {
    // Read from the embedded table itself, so that the program's list and the peers it can call
    // never disagree, and without Python: a machine without torch still knows which rungs are peers.
    static const std::vector<std::string> names =
        torch_peer_names_in(std::string(kTorchPeersSource, kTorchPeersSourceSize));
    return names;
}

const TorchAvailability& torch_peer_availability() { return bridge().availability; }

std::string torch_peer_refusal(const Rung& rung) {
    const bool peer = std::any_of(rung.launches.begin(), rung.launches.end(),
                                  [](const LaunchSpec& l) { return is_torch_peer_name(l.builtin); });
    return peer && !torch_peer_availability().available ? torch_peer_availability().reason : "";
}

void run_torch_peer(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& target) {
    const auto& names = torch_peer_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
        throw InputError("unknown PyTorch peer '" + name + "'");
    Bridge& b = bridge();
    if (!b.availability.available) throw GpuError(b.availability.reason);
    const std::string request = request_json(name, args);
    const PythonApi& a = b.api;
    const int gil = a.gil_ensure();
    void* result = a.call_function(b.peer_call, "sKi", request.c_str(),
                                   static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(target.stream)),
                                   target.checking ? 1 : 0);
    std::string error = "kl_peer_call raised";
    if (result) {
        const char* text = a.utf8(result);
        error = text ? text : "kl_peer_call returned no text";
        a.dec_ref(result);
    } else {
        a.error_clear();
    }
    a.gil_release(gil);
    if (!error.empty()) throw GpuError("PyTorch peer " + name + ": " + error);
}

}  // namespace kl
