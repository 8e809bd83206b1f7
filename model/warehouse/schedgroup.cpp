#include "schedgroup.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace reprint::warehouse {

namespace {

std::string procPath(pid_t pid, const char *file)
{
    return "/proc/" + std::to_string(pid) + "/" + file;
}

std::string firstLine(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// The parent's pid from /proc/<pid>/stat ("pid (comm) state ppid ..."; comm may hold
// spaces and parentheses, so the fields are read after the last ')').
pid_t parentOf(pid_t pid)
{
    const std::string stat = firstLine(procPath(pid, "stat"));
    const auto close = stat.rfind(')');
    if (close == std::string::npos)
        return 0;
    char state = 0;
    long parent = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &parent) != 2)
        return 0;
    return static_cast<pid_t>(parent);
}

bool isPostgres(pid_t pid)
{
    return firstLine(procPath(pid, "comm")) == "postgres";
}

} // namespace

std::optional<int> groupNiceness(pid_t pid)
{
    // "/autogroup-58728 nice 19"
    const std::string line = firstLine(procPath(pid, "autogroup"));
    const auto at = line.find(" nice ");
    if (at == std::string::npos)
        return std::nullopt;
    return std::atoi(line.c_str() + at + 6);
}

GroupChange setGroupNiceness(pid_t pid, int nice)
{
    const std::string path = procPath(pid, "autogroup");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return GroupChange::Refused;
    const std::string text = std::to_string(nice);
    const ssize_t written = ::write(fd, text.data(), text.size());
    const int error = errno;
    ::close(fd);
    if (written >= 0)
        return GroupChange::Done;
    return error == EAGAIN ? GroupChange::TryLater : GroupChange::Refused;
}

std::optional<int> serverGroupNiceness(pid_t backend)
{
    if (backend <= 0 || !isPostgres(backend))
        return std::nullopt;
    const pid_t server = parentOf(backend);
    if (server <= 1 || !isPostgres(server))
        return std::nullopt;
    const auto own = groupNiceness(backend);
    const auto wanted = groupNiceness(server);
    if (!own || !wanted || *wanted <= *own)
        return std::nullopt;
    return wanted;
}

} // namespace reprint::warehouse
