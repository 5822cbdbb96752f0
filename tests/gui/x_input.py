#!/usr/bin/env python3
"""x_input.py: real X input for the window tests (Xvfb), through the XTEST extension.

Scripts (--script) set ImGui's input directly; these events go through the X server and GLFW
the way a person's keyboard does, which is what a lost key tap or an idle window needs.

    x_input.py wait TITLE SECONDS      until a window named TITLE is mapped (exit 1 if not)
    x_input.py taps TITLE KEY N        N taps of KEY (an X keysym name: Right, Left...), each a
                                       press and its release sent together, 0.3 s apart
    x_input.py close TITLE             ask the window to close (WM_DELETE_WINDOW), as a window
                                       manager's close button does

Exit 77 when libX11 or libXtst cannot be loaded (CTest: skipped).
"""
import ctypes
import ctypes.util
import sys
import time


def load(name, soname):
    path = ctypes.util.find_library(name) or soname
    try:
        return ctypes.CDLL(path)
    except OSError:
        print(f"SKIP: cannot load {soname}")
        sys.exit(77)


x11 = load("X11", "libX11.so.6")
xtst = load("Xtst", "libXtst.so.6")
Window = ctypes.c_ulong
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
x11.XDefaultRootWindow.restype = Window
x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x11.XQueryTree.argtypes = [ctypes.c_void_p, Window, ctypes.POINTER(Window), ctypes.POINTER(Window),
                           ctypes.POINTER(ctypes.POINTER(Window)), ctypes.POINTER(ctypes.c_uint)]
x11.XFetchName.argtypes = [ctypes.c_void_p, Window, ctypes.POINTER(ctypes.c_char_p)]
x11.XStringToKeysym.restype = ctypes.c_ulong
x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
x11.XKeysymToKeycode.restype = ctypes.c_ubyte
x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
x11.XInternAtom.restype = ctypes.c_ulong
x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
x11.XSendEvent.argtypes = [ctypes.c_void_p, Window, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
x11.XSetInputFocus.argtypes = [ctypes.c_void_p, Window, ctypes.c_int, ctypes.c_ulong]
x11.XFlush.argtypes = [ctypes.c_void_p]
x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
xtst.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
xtst.XTestFakeMotionEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ulong]


class ClientMessage(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", Window), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]


class XEvent(ctypes.Union):  # XEvent is 24 longs; only the client message is filled in
    _fields_ = [("xclient", ClientMessage), ("pad", ctypes.c_long * 24)]


def find_window(dpy, title):
    """The first window named `title` among the root's children and grandchildren."""
    def children(w):
        root, parent = Window(), Window()
        kids = ctypes.POINTER(Window)()
        n = ctypes.c_uint()
        if not x11.XQueryTree(dpy, w, ctypes.byref(root), ctypes.byref(parent), ctypes.byref(kids), ctypes.byref(n)):
            return []
        return [kids[i] for i in range(n.value)]

    for top in children(x11.XDefaultRootWindow(dpy)):
        for w in [top] + children(top):
            name = ctypes.c_char_p()
            if x11.XFetchName(dpy, w, ctypes.byref(name)) and name.value == title.encode():
                return w
    return None


def main():
    dpy = x11.XOpenDisplay(None)
    if not dpy:
        print("FAIL: cannot open the X display")
        return 1
    cmd, title = sys.argv[1], sys.argv[2]
    if cmd == "wait":
        deadline = time.time() + float(sys.argv[3])
        while time.time() < deadline:
            if find_window(dpy, title):
                return 0
            time.sleep(0.2)
        print(f"FAIL: no window '{title}' after {sys.argv[3]} s")
        return 1
    w = find_window(dpy, title)
    if not w:
        print(f"FAIL: no window '{title}'")
        return 1
    if cmd == "taps":
        key, n = sys.argv[3], int(sys.argv[4])
        code = x11.XKeysymToKeycode(dpy, x11.XStringToKeysym(key.encode()))
        xtst.XTestFakeMotionEvent(dpy, -1, 200, 200, 0)  # the pointer over the window
        x11.XSetInputFocus(dpy, w, 1, 0)  # RevertToPointerRoot, CurrentTime
        x11.XSync(dpy, 0)
        for _ in range(n):
            # Press and release in one flush: both reach the window before its next frame.
            xtst.XTestFakeKeyEvent(dpy, code, 1, 0)
            xtst.XTestFakeKeyEvent(dpy, code, 0, 0)
            x11.XFlush(dpy)
            time.sleep(0.3)
        x11.XSync(dpy, 0)
        return 0
    if cmd == "close":
        ev = XEvent()
        ev.xclient.type = 33  # ClientMessage
        ev.xclient.window = w
        ev.xclient.message_type = x11.XInternAtom(dpy, b"WM_PROTOCOLS", 0)
        ev.xclient.format = 32
        ev.xclient.data[0] = x11.XInternAtom(dpy, b"WM_DELETE_WINDOW", 0)
        x11.XSendEvent(dpy, w, 0, 0, ctypes.byref(ev))
        x11.XSync(dpy, 0)
        return 0
    print(f"FAIL: unknown command {cmd}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
