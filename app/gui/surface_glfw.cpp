// The workbook in a GLFW window (OpenGL 3.3 core), as in ImGui's example_glfw_opengl3.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <set>
#include <utility>

#include "gui/settings.h"
#include "gui/surface.h"
#include "gui/wake.h"

namespace kl::gui {
namespace {

void glfw_error_callback(int error, const char* description) {
    std::fprintf(stderr, "kernel-ladder: GLFW error %d: %s\n", error, description);
}

// What the window's callbacks saw between two frames: a count of input events (the idle loop
// draws only when there is some) and the key events not yet given to ImGui. ImGui 1.86 keeps
// keys as a down/up state sampled once a frame (io.KeysDown), so a press and its release that
// both arrive before the next frame would cancel out; they are handed over one frame apart.
struct WindowInput {
    struct KeyEvent {
        int key, scancode, action, mods;
    };
    int events = 0;
    std::deque<KeyEvent> keys;
};

WindowInput& window_input(GLFWwindow* window) { return *static_cast<WindowInput*>(glfwGetWindowUserPointer(window)); }

// Counting callbacks: installed before ImGui's backend, which calls them before its own.
void count_input(GLFWwindow* w) { ++window_input(w).events; }
void on_mouse_button(GLFWwindow* w, int, int, int) { count_input(w); }
void on_scroll(GLFWwindow* w, double, double) { count_input(w); }
void on_char(GLFWwindow* w, unsigned int) { count_input(w); }
void on_focus(GLFWwindow* w, int) { count_input(w); }
void on_cursor_enter(GLFWwindow* w, int) { count_input(w); }
// Not installed by ImGui's backend (it reads the pointer and the size at each frame).
void on_cursor_pos(GLFWwindow* w, double, double) { count_input(w); }
void on_size(GLFWwindow* w, int, int) { count_input(w); }
void on_refresh(GLFWwindow* w) { count_input(w); }
// Replaces ImGui's key callback: keys wait in the queue until the next frame starts.
void on_key(GLFWwindow* w, int key, int scancode, int action, int mods) {
    count_input(w);
    window_input(w).keys.push_back({key, scancode, action, mods});
}

void wake_glfw() { glfwPostEmptyEvent(); }

class GlfwSurface final : public Surface {
  public:
    explicit GlfwSurface(GLFWwindow* window, std::unique_ptr<WindowInput> input)
        : window_(window), input_(std::move(input)) {}
    ~GlfwSurface() override {
        set_wake_hook(nullptr);
        glfwDestroyWindow(window_);
        glfwTerminate();
    }
    bool should_close() override { return glfwWindowShouldClose(window_) != 0; }
    void poll_events() override { glfwPollEvents(); }
    void wait_events(double timeout_s) override { glfwWaitEventsTimeout(timeout_s); }
    int take_input_events() override { return std::exchange(input_->events, 0); }
    bool input_pending() override { return !input_->keys.empty(); }
    bool minimized() override { return glfwGetWindowAttrib(window_, GLFW_ICONIFIED) != 0; }
    void new_imgui_frame() override {
        release_keys();
        ImGui_ImplGlfw_NewFrame();
    }
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
    // Gives ImGui the queued key events in order, each key changing at most once a frame: the
    // second change of a key (the release of a key pressed in this frame, or the press after a
    // release in it) and what follows wait for the next frame. A release and the next tap's press
    // given in one frame cancelled out as surely as a press and its release: ImGui saw the key
    // down in both frames and the tap was lost (key_taps.sh, under load, when frames outlast the
    // 0.3 s between taps).
    void release_keys() {
        std::set<int> changed;
        auto& q = input_->keys;
        while (!q.empty()) {
            const WindowInput::KeyEvent e = q.front();
            if (e.action != GLFW_REPEAT && !changed.insert(e.key).second) break;
            q.pop_front();
            ImGui_ImplGlfw_KeyCallback(window_, e.key, e.scancode, e.action, e.mods);
        }
    }

    GLFWwindow* window_;
    std::unique_ptr<WindowInput> input_;
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
    auto input = std::make_unique<WindowInput>();
    glfwSetWindowUserPointer(window, input.get());
    glfwSetMouseButtonCallback(window, on_mouse_button);
    glfwSetScrollCallback(window, on_scroll);
    glfwSetCharCallback(window, on_char);
    glfwSetWindowFocusCallback(window, on_focus);
    glfwSetCursorEnterCallback(window, on_cursor_enter);
    ImGui_ImplGlfw_InitForOpenGL(window, true);  // chains to the callbacks above
    glfwSetKeyCallback(window, on_key);          // ImGui's key callback is called from the queue
    glfwSetCursorPosCallback(window, on_cursor_pos);
    glfwSetWindowSizeCallback(window, on_size);
    glfwSetWindowRefreshCallback(window, on_refresh);
    set_wake_hook(wake_glfw);
    return std::make_unique<GlfwSurface>(window, std::move(input));
}

}  // namespace kl::gui
