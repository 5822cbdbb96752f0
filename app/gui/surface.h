// Where the workbook's frames go: a GLFW window (the normal case) or an off-screen framebuffer
// on a headless EGL context (`--headless`: machines without a display, such as the GPU machine
// where the frame time during a sweep is measured on the real GPU, docs/gui.md).
// Both give an OpenGL 3.3 core context that ImGui's OpenGL3 backend renders into; the main loop
// does not know which one it has.
#pragma once
#include <memory>
#include <string>

namespace kl::gui {

struct SurfaceOptions {
    int width = 1600, height = 960;
    bool vsync = true;    // windows only: wait for the display's refresh in present()
    bool visible = true;  // windows only
};

class Surface {
  public:
    virtual ~Surface() = default;
    virtual bool should_close() = 0;
    virtual void poll_events() = 0;
    // Sleeps until an event arrives (or wake_ui(), gui/wake.h) or `timeout_s` passes, then
    // handles what came as poll_events() does. An idle window waits here instead of drawing.
    virtual void wait_events(double timeout_s) {
        (void)timeout_s;
        poll_events();
    }
    // The input events (keys, characters, pointer, wheel, resize, focus) handled since the last
    // call: whether the window has something new to draw.
    virtual int take_input_events() { return 0; }
    // Key events held back for the next frame (a press and its release that arrived between two
    // frames reach ImGui a frame apart, so that a short tap is never lost): draw again at once.
    virtual bool input_pending() { return false; }
    virtual bool minimized() = 0;
    // The platform half of ImGui's frame start: display size, time step, input.
    virtual void new_imgui_frame() = 0;
    virtual void framebuffer_size(int* width, int* height) = 0;
    virtual void window_size(int* width, int* height) = 0;
    virtual float content_scale() = 0;  // HiDPI factor (1 headless)
    // Shows the frame: swap buffers (window) or wait for the GPU to finish it (headless), so
    // that the time of this call is where rasterization shows up in either case.
    virtual void present() = 0;
    // The GL buffer holding the frame just rendered, for glReadBuffer (screenshots).
    virtual unsigned read_buffer() = 0;
    // "NVIDIA H100 80GB HBM3/PCIe/SSE2" or "llvmpipe (LLVM 15.0.6, 256 bits)": who rasterizes.
    virtual std::string renderer() = 0;
    virtual void shutdown_imgui_backend() = 0;
};

// Both return nullptr with *error set ("cannot open a window (no display? ...)") on failure.
// After success ImGui's platform backend is initialised (an ImGui context must exist).
std::unique_ptr<Surface> open_window(const SurfaceOptions& options, std::string* error);
std::unique_ptr<Surface> open_headless(const SurfaceOptions& options, std::string* error);

}  // namespace kl::gui
