// The workbook in a GLFW window (OpenGL 3.3 core), as in ImGui's example_glfw_opengl3.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "gui/settings.h"
#include "gui/surface.h"

namespace kl::gui {
namespace {

void glfw_error_callback(int error, const char* description) {
    std::fprintf(stderr, "kernel-ladder: GLFW error %d: %s\n", error, description);
}

class GlfwSurface final : public Surface {
  public:
    explicit GlfwSurface(GLFWwindow* window) : window_(window) {}
    ~GlfwSurface() override {
        glfwDestroyWindow(window_);
        glfwTerminate();
    }
    bool should_close() override { return glfwWindowShouldClose(window_) != 0; }
    void poll_events() override { glfwPollEvents(); }
    bool minimized() override { return glfwGetWindowAttrib(window_, GLFW_ICONIFIED) != 0; }
    void new_imgui_frame() override { ImGui_ImplGlfw_NewFrame(); }
    void framebuffer_size(int* w, int* h) override { glfwGetFramebufferSize(window_, w, h); }
    void window_size(int* w, int* h) override { glfwGetWindowSize(window_, w, h); }
    float content_scale() override {
        float x = 1, y = 1;
        glfwGetWindowContentScale(window_, &x, &y);
        return std::max(1.0f, std::max(x, y));
    }
    void present() override { glfwSwapBuffers(window_); }
    unsigned read_buffer() override { return GL_BACK; }
    std::string renderer() override {
        const GLubyte* r = glGetString(GL_RENDERER);
        return r ? reinterpret_cast<const char*>(r) : "unknown";
    }
    void shutdown_imgui_backend() override { ImGui_ImplGlfw_Shutdown(); }

  private:
    GLFWwindow* window_;
};

// The size asked for, shrunk to what the primary monitor's work area can show: X refuses a
// window beyond its limits with an error that ends the program (--size 100000x100000, or a
// saved size from a larger display). GLFW_SCALE_TO_MONITOR multiplies the size by the
// monitor's content scale on X11, so the work area is divided by it first.
void fit_to_monitor(int* width, int* height) {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    int x = 0, y = 0, area_w = 0, area_h = 0;
    if (monitor) glfwGetMonitorWorkarea(monitor, &x, &y, &area_w, &area_h);
    float scale_x = 1, scale_y = 1;
    if (monitor) glfwGetMonitorContentScale(monitor, &scale_x, &scale_y);
    const float scale = std::max(1.0f, std::max(scale_x, scale_y));
    int max_w = area_w > 0 ? static_cast<int>(area_w / scale) : kMaxWindowSide;
    int max_h = area_h > 0 ? static_cast<int>(area_h / scale) : kMaxWindowSide;
    std::string note = fit_window_size(width, height, std::min(max_w, kMaxWindowSide), std::min(max_h, kMaxWindowSide),
                                       "the display's work area");
    if (!note.empty()) std::fprintf(stderr, "kernel-ladder: %s\n", note.c_str());
}

// After the context exists: a framebuffer beyond the GL limits (a display wider than the
// driver's largest viewport) is shrunk as well.
void fit_to_gl_limits(GLFWwindow* window) {
    GLint max_texture = 0, max_viewport[2] = {0, 0};
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_texture);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, max_viewport);
    int fb_w = 0, fb_h = 0, win_w = 0, win_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    glfwGetWindowSize(window, &win_w, &win_h);
    int max_w = std::min(max_texture, max_viewport[0]), max_h = std::min(max_texture, max_viewport[1]);
    if (max_w <= 0 || max_h <= 0 || fb_w <= 0 || fb_h <= 0 || (fb_w <= max_w && fb_h <= max_h)) return;
    // Window size over framebuffer size: the share of a screen coordinate in pixels.
    int w = static_cast<int>(win_w * std::min(1.0, double(max_w) / fb_w));
    int h = static_cast<int>(win_h * std::min(1.0, double(max_h) / fb_h));
    std::string note = fit_window_size(&win_w, &win_h, w, h, "the OpenGL limit");
    std::fprintf(stderr, "kernel-ladder: %s\n", note.c_str());
    glfwSetWindowSize(window, win_w, win_h);
}

}  // namespace

std::unique_ptr<Surface> open_window(const SurfaceOptions& options, std::string* error) {
    glfwSetErrorCallback(glfw_error_callback);
    if (!glfwInit()) {
        *error = "cannot open a window (no display? under CI use xvfb-run, or --headless)";
        return nullptr;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GL_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
    int width = options.width, height = options.height;
    fit_to_monitor(&width, &height);
    GLFWwindow* window = glfwCreateWindow(width, height, "Kernel Ladder", nullptr, nullptr);
    if (!window) {
        *error = "cannot create an OpenGL 3.3 window";
        glfwTerminate();
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    fit_to_gl_limits(window);
    glfwSwapInterval(options.vsync ? 1 : 0);  // vsync: 60 fps on a 60 Hz monitor
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    return std::make_unique<GlfwSurface>(window);
}

}  // namespace kl::gui
