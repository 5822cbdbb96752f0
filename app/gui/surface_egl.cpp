// The workbook without a display (`--headless`): an OpenGL 3.3 core context from EGL on a GPU
// device (EGL_EXT_platform_device; NVIDIA's driver offers one per GPU, Mesa a software one),
// rendering into a framebuffer object of the requested size. ImGui gets its display size and
// time step from here; input comes only from --script. present() waits for the GPU (glFinish),
// so the frame time counts the real rasterization, as glfwSwapBuffers does for a window.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: --script and the workbook speak GLFW's
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <utility>
#include <vector>

#include "gui/settings.h"
#include "gui/surface.h"

namespace kl::gui {
namespace {

std::string egl_error_text(const char* what) {
    char code[32];
    std::snprintf(code, sizeof code, "0x%04X", unsigned(eglGetError()));
    return std::string("headless EGL: ") + what + " failed (EGL error " + code + ")";
}

bool has_extension(const char* list, const char* name) {
    if (!list) return false;
    size_t n = std::strlen(name);
    for (const char* p = std::strstr(list, name); p; p = std::strstr(p + 1, name))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

// An initialised display on a GPU device: NVIDIA's (EGL_NV_device_cuda) first, then any other
// device, then Mesa's surfaceless platform. *which says what was picked, for the log.
EGLDisplay open_display(std::string* which, std::string* error) {
    auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto device_string = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
    auto platform_display =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!platform_display) {
        *error = "headless EGL: eglGetPlatformDisplayEXT is missing (no EGL vendor library installed?)";
        return EGL_NO_DISPLAY;
    }
    std::vector<EGLDeviceEXT> devices;
    if (query_devices) {
        EGLint count = 0;
        if (query_devices(0, nullptr, &count) && count > 0) {
            devices.resize(size_t(count));
            query_devices(count, devices.data(), &count);
            devices.resize(size_t(count));
        }
    }
    // NVIDIA devices to the front: on a machine with both, the frame must be drawn by the GPU.
    std::stable_partition(devices.begin(), devices.end(), [&](EGLDeviceEXT d) {
        return device_string && has_extension(device_string(d, EGL_EXTENSIONS), "EGL_NV_device_cuda");
    });
    for (size_t i = 0; i < devices.size(); ++i) {
        EGLDisplay display = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        EGLint major = 0, minor = 0;
        if (display != EGL_NO_DISPLAY && eglInitialize(display, &major, &minor)) {
            const char* ext = device_string ? device_string(devices[i], EGL_EXTENSIONS) : nullptr;
            *which = "EGL device " + std::to_string(i) + (has_extension(ext, "EGL_NV_device_cuda") ? " (NVIDIA)" : "");
            return display;
        }
    }
    EGLDisplay display = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display != EGL_NO_DISPLAY && eglInitialize(display, nullptr, nullptr)) {
        *which = "Mesa surfaceless platform";
        return display;
    }
    *error = devices.empty() ? "headless EGL: no EGL device found (no GPU driver's EGL library, and no Mesa)"
                             : egl_error_text("eglInitialize on every EGL device");
    return EGL_NO_DISPLAY;
}

class EglSurface final : public Surface {
  public:
    ~EglSurface() override {
        if (framebuffer_) glDeleteFramebuffers(1, &framebuffer_);
        if (colour_) glDeleteRenderbuffers(1, &colour_);
        if (display_ != EGL_NO_DISPLAY) {
            eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
            if (pbuffer_ != EGL_NO_SURFACE) eglDestroySurface(display_, pbuffer_);
            eglTerminate(display_);
        }
    }

    bool open(const SurfaceOptions& options, std::string* error) {
        width_ = options.width;
        height_ = options.height;
        display_ = open_display(&which_, error);
        if (display_ == EGL_NO_DISPLAY) return false;
        if (!eglBindAPI(EGL_OPENGL_API)) return fail(egl_error_text("eglBindAPI(OpenGL)"), error);
        const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                         EGL_PBUFFER_BIT,
                                         EGL_RENDERABLE_TYPE,
                                         EGL_OPENGL_BIT,
                                         EGL_RED_SIZE,
                                         8,
                                         EGL_GREEN_SIZE,
                                         8,
                                         EGL_BLUE_SIZE,
                                         8,
                                         EGL_ALPHA_SIZE,
                                         8,
                                         EGL_NONE};
        EGLConfig config = nullptr;
        EGLint configs = 0;
        if (!eglChooseConfig(display_, config_attribs, &config, 1, &configs) || configs < 1)
            return fail(egl_error_text("eglChooseConfig (RGBA8, OpenGL, pbuffer)"), error);
        const EGLint context_attribs[] = {
            EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
        context_ = eglCreateContext(display_, config, EGL_NO_CONTEXT, context_attribs);
        if (context_ == EGL_NO_CONTEXT) return fail(egl_error_text("eglCreateContext (OpenGL 3.3 core)"), error);
        // The frame goes to our framebuffer object, so no surface is needed where the driver
        // allows that; otherwise a 1x1 pbuffer just to make the context current.
        if (!has_extension(eglQueryString(display_, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context")) {
            const EGLint pbuffer_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
            pbuffer_ = eglCreatePbufferSurface(display_, config, pbuffer_attribs);
            if (pbuffer_ == EGL_NO_SURFACE) return fail(egl_error_text("eglCreatePbufferSurface"), error);
        }
        if (!eglMakeCurrent(display_, pbuffer_, pbuffer_, context_))
            return fail(egl_error_text("eglMakeCurrent"), error);

        fit_to_gl_limits();
        glGenRenderbuffers(1, &colour_);
        glBindRenderbuffer(GL_RENDERBUFFER, colour_);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width_, height_);
        glGenFramebuffers(1, &framebuffer_);
        glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_);
        if (GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER); status != GL_FRAMEBUFFER_COMPLETE) {
            char code[16];
            std::snprintf(code, sizeof code, "0x%04X", status);
            return fail(std::string("headless EGL: framebuffer ") + std::to_string(width_) + "x" +
                            std::to_string(height_) + " incomplete (status " + code + ")",
                        error);
        }
        ImGuiIO& io = ImGui::GetIO();
        io.BackendPlatformName = "kernel-ladder headless EGL";
        // The same key map as ImGui's GLFW backend, so scripted keys mean the same here.
        const std::pair<ImGuiKey_, int> keys[] = {{ImGuiKey_Tab, GLFW_KEY_TAB},
                                                  {ImGuiKey_LeftArrow, GLFW_KEY_LEFT},
                                                  {ImGuiKey_RightArrow, GLFW_KEY_RIGHT},
                                                  {ImGuiKey_UpArrow, GLFW_KEY_UP},
                                                  {ImGuiKey_DownArrow, GLFW_KEY_DOWN},
                                                  {ImGuiKey_PageUp, GLFW_KEY_PAGE_UP},
                                                  {ImGuiKey_PageDown, GLFW_KEY_PAGE_DOWN},
                                                  {ImGuiKey_Home, GLFW_KEY_HOME},
                                                  {ImGuiKey_End, GLFW_KEY_END},
                                                  {ImGuiKey_Insert, GLFW_KEY_INSERT},
                                                  {ImGuiKey_Delete, GLFW_KEY_DELETE},
                                                  {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE},
                                                  {ImGuiKey_Space, GLFW_KEY_SPACE},
                                                  {ImGuiKey_Enter, GLFW_KEY_ENTER},
                                                  {ImGuiKey_Escape, GLFW_KEY_ESCAPE},
                                                  {ImGuiKey_KeyPadEnter, GLFW_KEY_KP_ENTER},
                                                  {ImGuiKey_A, GLFW_KEY_A},
                                                  {ImGuiKey_C, GLFW_KEY_C},
                                                  {ImGuiKey_V, GLFW_KEY_V},
                                                  {ImGuiKey_X, GLFW_KEY_X},
                                                  {ImGuiKey_Y, GLFW_KEY_Y},
                                                  {ImGuiKey_Z, GLFW_KEY_Z}};
        for (const auto& [imgui_key, glfw_key] : keys) io.KeyMap[imgui_key] = glfw_key;
        last_frame_ = std::chrono::steady_clock::now();
        return true;
    }

    bool should_close() override { return false; }  // the loop ends through the workbook
    void poll_events() override {}
    bool minimized() override { return false; }
    void new_imgui_frame() override {
        ImGuiIO& io = ImGui::GetIO();
        auto now = std::chrono::steady_clock::now();
        io.DeltaTime = std::max(1e-4f, std::chrono::duration<float>(now - last_frame_).count());
        last_frame_ = now;
        io.DisplaySize = ImVec2(float(width_), float(height_));
        io.DisplayFramebufferScale = ImVec2(1, 1);
        io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no pointer; --script may place one
    }
    void framebuffer_size(int* w, int* h) override { *w = width_, *h = height_; }
    void window_size(int* w, int* h) override { *w = width_, *h = height_; }
    float content_scale() override { return 1.0f; }
    void present() override { glFinish(); }
    unsigned read_buffer() override { return GL_COLOR_ATTACHMENT0; }
    std::string renderer() override {
        const GLubyte* r = glGetString(GL_RENDERER);
        return std::string(r ? reinterpret_cast<const char*>(r) : "unknown") + " (" + which_ + ")";
    }
    void shutdown_imgui_backend() override {}

  private:
    // A framebuffer beyond the driver's limits (--size 100000x100000) would be incomplete; it is
    // shrunk to them (and to kMaxWindowSide: a 1 GiB frame read back per screenshot), with a note.
    void fit_to_gl_limits() {
        GLint max_renderbuffer = 0, max_viewport[2] = {0, 0};
        glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_renderbuffer);
        glGetIntegerv(GL_MAX_VIEWPORT_DIMS, max_viewport);
        int max_w = kMaxWindowSide, max_h = kMaxWindowSide;
        if (max_renderbuffer > 0) max_w = std::min(max_w, max_renderbuffer), max_h = std::min(max_h, max_renderbuffer);
        if (max_viewport[0] > 0) max_w = std::min(max_w, max_viewport[0]);
        if (max_viewport[1] > 0) max_h = std::min(max_h, max_viewport[1]);
        std::string note = fit_window_size(&width_, &height_, max_w, max_h, "the OpenGL limit");
        if (!note.empty()) std::fprintf(stderr, "kernel-ladder: %s\n", note.c_str());
    }
    bool fail(const std::string& message, std::string* error) {
        *error = message;
        return false;
    }
    EGLDisplay display_ = EGL_NO_DISPLAY;
    EGLContext context_ = EGL_NO_CONTEXT;
    EGLSurface pbuffer_ = EGL_NO_SURFACE;
    GLuint framebuffer_ = 0, colour_ = 0;
    int width_ = 0, height_ = 0;
    std::string which_;
    std::chrono::steady_clock::time_point last_frame_;
};

}  // namespace

std::unique_ptr<Surface> open_headless(const SurfaceOptions& options, std::string* error) {
    auto surface = std::make_unique<EglSurface>();
    if (!surface->open(options, error)) return nullptr;
    return surface;
}

}  // namespace kl::gui
