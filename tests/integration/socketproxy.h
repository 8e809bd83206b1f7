#pragma once
// A Unix-socket proxy in front of a test cluster, for losing a connection at an exact
// moment of the wire protocol. Clients connect to dir() with the same port; bytes pass
// through unchanged until the proxy is armed and a client sends a statement containing
// `COMMIT`. Then, once:
//   DropBeforeCommit: the COMMIT is never forwarded and both sides are closed: the
//                     server sees the client vanish mid-transaction and rolls back.
//   DropAfterCommit:  the COMMIT is forwarded, the server's answer is read and thrown
//                     away, and both sides are closed: the server committed, the client
//                     never learns it.
// Connections after that pass through normally.

#include <QTemporaryDir>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace reprint::test {

class SocketProxy {
public:
    enum class Mode { PassThrough, DropBeforeCommit, DropAfterCommit };

    SocketProxy(std::string upstreamDir, int port)
        : m_upstream(upstreamDir + "/.s.PGSQL." + std::to_string(port))
    {
        ::chmod(m_dir.path().toLocal8Bit().constData(), 0777);  // the server account never reads it, clients do
        const std::string path = dir() + "/.s.PGSQL." + std::to_string(port);
        m_listen = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
        if (::bind(m_listen, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(m_listen, 16) != 0) {
            ::close(m_listen);
            m_listen = -1;
            return;
        }
        m_thread = std::thread([this] { loop(); });
    }
    ~SocketProxy()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        for (const Pair &p : m_pairs) {
            ::close(p.client);
            ::close(p.server);
        }
        if (m_listen >= 0)
            ::close(m_listen);
    }
    SocketProxy(const SocketProxy &) = delete;
    SocketProxy &operator=(const SocketProxy &) = delete;

    bool listening() const { return m_listen >= 0; }
    std::string dir() const { return m_dir.path().toStdString(); }
    void arm(Mode mode) { m_mode = mode; }
    // True once an armed drop has happened.
    bool dropped() const { return m_dropped; }

private:
    struct Pair {
        int client = -1, server = -1;
    };

    static bool sendAll(int fd, const char *data, ssize_t n)
    {
        while (n > 0) {
            const ssize_t w = ::send(fd, data, static_cast<size_t>(n), MSG_NOSIGNAL);
            if (w <= 0)
                return false;
            data += w;
            n -= w;
        }
        return true;
    }

    int connectUpstream() const
    {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, m_upstream.c_str(), sizeof addr.sun_path - 1);
        if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
            ::close(fd);
            return -1;
        }
        return fd;
    }

    void loop()
    {
        char buf[65536];
        while (!m_stop) {
            std::vector<pollfd> fds{{m_listen, POLLIN, 0}};
            for (const Pair &p : m_pairs) {
                fds.push_back({p.client, POLLIN, 0});
                fds.push_back({p.server, POLLIN, 0});
            }
            if (::poll(fds.data(), fds.size(), 50) <= 0)
                continue;
            if (fds[0].revents & POLLIN) {
                const int client = ::accept(m_listen, nullptr, nullptr);
                const int server = client >= 0 ? connectUpstream() : -1;
                if (server >= 0)
                    m_pairs.push_back({client, server});
                else if (client >= 0)
                    ::close(client);
            }
            std::vector<bool> closed(m_pairs.size(), false);
            for (std::size_t i = 0; i < m_pairs.size() && 1 + 2 * i + 1 < fds.size(); ++i) {
                const Pair &p = m_pairs[i];
                if (fds[1 + 2 * i].revents & (POLLIN | POLLHUP | POLLERR)) {
                    const ssize_t n = ::recv(p.client, buf, sizeof buf, 0);
                    if (n <= 0) {
                        closed[i] = true;
                        continue;
                    }
                    const Mode mode = m_mode;
                    const bool commit = mode != Mode::PassThrough && !m_dropped
                                        && std::string(buf, static_cast<size_t>(n)).find("COMMIT") != std::string::npos;
                    if (commit && mode == Mode::DropBeforeCommit) {
                        m_dropped = true;
                        closed[i] = true;
                        continue;
                    }
                    if (!sendAll(p.server, buf, n)) {
                        closed[i] = true;
                        continue;
                    }
                    if (commit) {
                        // Wait for the server's answer to the COMMIT, and swallow it.
                        pollfd answer{p.server, POLLIN, 0};
                        if (::poll(&answer, 1, 10000) > 0)
                            (void)::recv(p.server, buf, sizeof buf, 0);
                        m_dropped = true;
                        closed[i] = true;
                        continue;
                    }
                }
                if (fds[2 + 2 * i].revents & (POLLIN | POLLHUP | POLLERR)) {
                    const ssize_t n = ::recv(p.server, buf, sizeof buf, 0);
                    if (n <= 0 || !sendAll(p.client, buf, n))
                        closed[i] = true;
                }
            }
            for (std::size_t i = m_pairs.size(); i-- > 0;)
                if (closed[i]) {
                    ::close(m_pairs[i].client);
                    ::close(m_pairs[i].server);
                    m_pairs.erase(m_pairs.begin() + static_cast<std::ptrdiff_t>(i));
                }
        }
    }

    QTemporaryDir m_dir;
    std::string m_upstream;
    int m_listen = -1;
    std::vector<Pair> m_pairs;
    std::atomic<Mode> m_mode{Mode::PassThrough};
    std::atomic<bool> m_dropped{false};
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

} // namespace reprint::test
