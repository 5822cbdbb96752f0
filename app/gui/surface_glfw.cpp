// The workbook in a GLFW window (OpenGL 3.3 core), as in ImGui's example_glfw_opengl3.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>

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
    GLFWwindow* window = glfwCreateWindow(options.width, options.height, "Kernel Ladder", nullptr, nullptr);
    if (!window) {
        *error = "cannot create an OpenGL 3.3 window";
        glfwTerminate();
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(options.vsync ? 1 : 0);  // vsync: 60 fps on a 60 Hz monitor
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    return std::make_unique<GlfwSurface>(window);
}

}  // namespace kl::gui
