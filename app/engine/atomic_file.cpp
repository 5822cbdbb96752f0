#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "errors.h"

namespace kl {

void write_file_atomically(const std::string& path, const std::string& content) {
    std::string tmp = path + ".tmp-XXXXXX";
    int fd = mkstemp(tmp.data());
    if (fd < 0) throw InputError("cannot write " + path + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < content.size()) {
        ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            int e = errno;
            ::close(fd);
            std::remove(tmp.c_str());
            throw InputError("cannot write " + path + ": " + std::strerror(e));
        }
        done += static_cast<size_t>(n);
    }
    fchmod(fd, 0644);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        int e = errno;
        std::remove(tmp.c_str());
        throw InputError("cannot write " + path + ": " + std::strerror(e));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        std::remove(tmp.c_str());
        throw InputError("cannot write " + path + ": " + std::strerror(e));
    }
}

std::string read_file(const std::string& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses anything that is
    // not a regular file (FIFOs, devices such as /dev/zero, folders), whose reads never end.
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw InputError("cannot read " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw InputError("cannot read " + path + ": not a regular file");
    }
    if (st.st_size > kMaxReadBytes) {
        ::close(fd);
        throw InputError("cannot read " + path + ": " + std::to_string(st.st_size) + " bytes is more than the " +
                         std::to_string(kMaxReadBytes >> 20) + " MiB limit");
    }
    std::string out;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            ::close(fd);
            throw InputError("cannot read " + path + ": " + std::strerror(e));
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
        if (out.size() > static_cast<size_t>(kMaxReadBytes)) {  // the file grew while being read
            ::close(fd);
            throw InputError("cannot read " + path + ": more than the size limit");
        }
    }
    ::close(fd);
    return out;
}

}  // namespace kl
