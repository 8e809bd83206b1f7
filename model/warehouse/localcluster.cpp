#include "localcluster.h"
#include "schedgroup.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <grp.h>
#include <locale.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace reprint::warehouse {

namespace {

constexpr const char *kMarker = ".reprint-cluster";

struct Account {
    uid_t uid = 0;
    gid_t gid = 0;
    std::string name;
    std::string home = "/";
    bool switchUser = false;  // we are root: the child must become this account
};

std::optional<Account> lookupAccount(const char *name, std::optional<uid_t> uid)
{
    long size = sysconf(_SC_GETPW_R_SIZE_MAX);
    std::vector<char> buf(static_cast<std::size_t>(size > 0 ? size : 16384));
    passwd pw{};
    passwd *found = nullptr;
    const int rc = name ? getpwnam_r(name, &pw, buf.data(), buf.size(), &found)
                        : getpwuid_r(*uid, &pw, buf.data(), buf.size(), &found);
    if (rc != 0 || !found)
        return std::nullopt;
    Account a;
    a.uid = pw.pw_uid;
    a.gid = pw.pw_gid;
    a.name = pw.pw_name;
    a.home = pw.pw_dir && *pw.pw_dir ? pw.pw_dir : "/";
    return a;
}

std::string absolutePath(const std::string &dir)
{
    std::error_code ec;
    fs::path p = fs::absolute(fs::path(dir), ec);
    if (ec)
        p = fs::path(dir);
    p = p.lexically_normal();
    std::string s = p.string();
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

bool fileExists(const std::string &path)
{
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0;
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool writeFile(const std::string &path, const std::string &text, std::string *why)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
        *why = "could not write " + path + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

std::string tail(const std::string &text, int lines)
{
    std::size_t pos = text.size();
    while (pos > 0 && (text[pos - 1] == '\n'))
        --pos;
    const std::size_t end = pos;
    for (int n = 0; pos > 0; --pos) {
        if (text[pos - 1] == '\n' && ++n == lines)
            break;
    }
    return text.substr(pos, end - pos);
}

std::string trimmed(std::string s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
    return s.substr(i);
}

// The directory's marker: "superuser=NAME" lines written at initdb.
std::string markerValue(const std::string &dir, const std::string &key)
{
    std::istringstream in(readFile(dir + "/" + kMarker));
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key + "=", 0) == 0)
            return trimmed(line.substr(key.size() + 1));
    }
    return {};
}

Result<Account> accountFor(const std::string &dir)
{
    if (geteuid() != 0) {
        Account a;
        if (auto found = lookupAccount(nullptr, geteuid()))
            a = *found;
        a.uid = geteuid();
        a.gid = getegid();
        if (a.name.empty())
            a.name = "reprint";
        return a;
    }
    struct stat st{};
    if (::stat((dir + "/data").c_str(), &st) == 0 && st.st_uid != 0) {
        if (auto found = lookupAccount(nullptr, st.st_uid)) {
            found->switchUser = true;
            return *found;
        }
        return Error::make(ErrorKind::Usage,
                           "the cluster in " + dir + " belongs to uid " + std::to_string(st.st_uid)
                               + ", which has no account on this machine",
                           "Remove the directory or pick another one.");
    }
    for (const char *name : {"postgres", "nobody"}) {
        if (auto found = lookupAccount(name, std::nullopt); found && found->uid != 0) {
            found->switchUser = true;
            return *found;
        }
    }
    return Error::make(ErrorKind::Usage, "running as root, and neither a 'postgres' nor a 'nobody' account exists",
                       "PostgreSQL refuses to run as root: create a 'postgres' system user, or run as a normal user.");
}

std::vector<gid_t> groupsOf(const Account &a)
{
    int n = 32;
    std::vector<gid_t> groups(static_cast<std::size_t>(n));
    if (getgrouplist(a.name.c_str(), a.gid, groups.data(), &n) < 0) {
        groups.resize(static_cast<std::size_t>(n));
        if (getgrouplist(a.name.c_str(), a.gid, groups.data(), &n) < 0)
            n = 0;
    }
    groups.resize(static_cast<std::size_t>(std::max(n, 0)));
    if (std::find(groups.begin(), groups.end(), a.gid) == groups.end())
        groups.push_back(a.gid);
    return groups;
}

bool searchable(const struct stat &st, const Account &a, const std::vector<gid_t> &groups)
{
    if (a.uid == 0)
        return true;
    if (st.st_uid == a.uid)
        return st.st_mode & S_IXUSR;
    if (std::find(groups.begin(), groups.end(), st.st_gid) != groups.end())
        return st.st_mode & S_IXGRP;
    return st.st_mode & S_IXOTH;
}

std::string reachabilityOf(const std::string &dir, const Account &a)
{
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::path(dir), ec);
    if (ec)
        p = fs::path(dir);
    const std::vector<gid_t> groups = groupsOf(a);
    fs::path walked;
    for (const fs::path &part : p) {
        walked /= part;
        struct stat st{};
        if (::stat(walked.c_str(), &st) != 0)
            break;  // created later, by us, with our own modes
        if (!S_ISDIR(st.st_mode))
            return walked.string() + " is not a directory";
        if (!searchable(st, a, groups)) {
            char mode[8];
            std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
            return "the server runs as '" + a.name + "', which cannot enter " + walked.string() + " (mode " + mode
                + "). Pick a directory that account can reach (for example under /var/tmp or the build tree), "
                  "or allow it with: chmod o+x " + walked.string();
        }
    }
    return {};
}

struct ProgramResult {
    int exitCode = -1;  // -1 when killed by a signal
    std::string output; // stdout and stderr together
};

// The NULL-terminated array of C strings execve takes, pointing into `strings`.
std::vector<char *> execArray(const std::vector<std::string> &strings)
{
    std::vector<char *> out;
    for (const std::string &s : strings)
        out.push_back(const_cast<char *>(s.c_str()));
    out.push_back(nullptr);
    return out;
}

// The child's side of runProgram, from fork to exec. Only async-signal-safe calls (and
// setpriority, a plain system call): on a failure it writes {stage, errno} to `statusWrite`
// (1 switching user, 2 entering cwd, 3 exec) and exits 127.
[[noreturn]] void becomeProgram(char *const args[], char *const envp[], const Account &account, const std::string &cwd,
                                int devNull, int outWrite, int statusWrite, int niceness)
{
    auto fail = [&](int stage) {
        const int report[2] = {stage, errno};
        [[maybe_unused]] ssize_t n = ::write(statusWrite, report, sizeof report);
        _exit(127);
    };
    if (devNull >= 0)
        ::dup2(devNull, 0);
    ::dup2(outWrite, 1);
    ::dup2(outWrite, 2);
    // Everything else we hold (libpq sockets, other pipes) must not leak into a
    // server that outlives us; status[1] closes itself at exec.
    if (statusWrite > 3)
        ::close_range(3, static_cast<unsigned>(statusWrite - 1), 0);
    ::close_range(static_cast<unsigned>(std::max(statusWrite + 1, 3)), ~0U, 0);
    if (account.switchUser) {
        if (::setgroups(1, &account.gid) != 0)
            fail(1);
        if (::setgid(account.gid) != 0)
            fail(1);
        if (::setuid(account.uid) != 0)
            fail(1);
    }
    if (::chdir(cwd.c_str()) != 0)
        fail(2);
    if (niceness > 0)
        ::setpriority(PRIO_PROCESS, 0, niceness);  // lowering one's own priority cannot be refused
    ::execve(args[0], args, envp);
    fail(3);
    _exit(127);  // not reached: fail() exits
}

// Everything written to `fd` until its end; closes it.
std::string readToEnd(int fd)
{
    std::string output;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0)
            output.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR)
            break;
    }
    ::close(fd);
    return output;
}

// Runs argv[0] (an absolute path) with `env`, in `cwd`, as `account`, at `niceness` (what
// it starts inherits it), and collects its output. Only async-signal-safe calls happen
// between fork and exec.
Result<ProgramResult> runProgram(const std::vector<std::string> &argv, const Account &account, const std::string &cwd,
                                 const std::vector<std::string> &env, int niceness = 0)
{
    std::vector<char *> args = execArray(argv);
    std::vector<char *> envp = execArray(env);

    int out[2];
    int status[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return Error::make(ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno));
    if (pipe2(status, O_CLOEXEC) != 0) {
        const int err = errno;
        ::close(out[0]);
        ::close(out[1]);
        return Error::make(ErrorKind::Internal, std::string("pipe: ") + std::strerror(err));
    }
    const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

    const pid_t pid = fork();
    if (pid < 0) {
        const int err = errno;
        for (int fd : {out[0], out[1], status[0], status[1], devNull})
            if (fd >= 0)
                ::close(fd);
        return Error::make(ErrorKind::Internal, std::string("fork: ") + std::strerror(err));
    }
    if (pid == 0)
        becomeProgram(args.data(), envp.data(), account, cwd, devNull, out[1], status[1], niceness);
    ::close(out[1]);
    ::close(status[1]);
    if (devNull >= 0)
        ::close(devNull);

    int report[2] = {0, 0};
    ssize_t got = 0;
    while ((got = ::read(status[0], report, sizeof report)) < 0 && errno == EINTR) {
    }
    ::close(status[0]);

    std::string output = readToEnd(out[0]);

    int wstatus = 0;
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    if (got == static_cast<ssize_t>(sizeof report)) {
        const char *stage = report[0] == 1 ? "could not switch to the account '" : report[0] == 2 ? "could not enter " : "could not run ";
        std::string what = report[0] == 1 ? account.name + "'" : report[0] == 2 ? cwd : argv[0];
        return Error::make(ErrorKind::Internal, stage + what + ": " + std::strerror(report[1]));
    }
    ProgramResult r;
    r.exitCode = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    r.output = std::move(output);
    return r;
}

std::vector<std::string> childEnvironment(const Account &a, const std::string &bindir)
{
    std::vector<std::string> env = {
        "PATH=" + bindir + ":/usr/local/bin:/usr/bin:/bin",
        "HOME=" + a.home,
        "USER=" + a.name,
        "LOGNAME=" + a.name,
        "LC_ALL=C",
        "LANG=C",
    };
    if (const char *tz = std::getenv("TZ"))
        env.push_back(std::string("TZ=") + tz);
    return env;
}

// chown -R without following symlinks or crossing into other file systems.
bool chownTree(const std::string &dir, const Account &a, std::string *why)
{
    auto own = [&](const fs::path &p) {
        struct stat st{};
        if (::lstat(p.c_str(), &st) != 0)
            return true;
        if (st.st_uid == a.uid && st.st_gid == a.gid)
            return true;
        if (::lchown(p.c_str(), a.uid, a.gid) != 0) {
            *why = "could not chown " + p.string() + " to " + a.name + ": " + std::strerror(errno);
            return false;
        }
        return true;
    };
    if (!own(dir))
        return false;
    std::error_code ec;
    struct stat top{};
    ::lstat(dir.c_str(), &top);
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        struct stat st{};
        if (::lstat(it->path().c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev != top.st_dev)
            it.disable_recursion_pending();
        if (!own(it->path()))
            return false;
    }
    return true;
}

pid_t pidFromFile(const std::string &path)
{
    std::istringstream in(readFile(path));
    long pid = 0;
    if (!(in >> pid))
        return 0;
    return static_cast<pid_t>(pid < 0 ? -pid : pid);
}

// Whether `pid` is a postgres process working in `dataDir`. Unknown cwd (no permission
// to read it) counts as yes when the process is a postgres at all.
bool isServerOf(pid_t pid, const std::string &dataDir)
{
    if (!processRunning(pid))
        return false;
    const std::string proc = "/proc/" + std::to_string(pid);
    if (trimmed(readFile(proc + "/comm")) != "postgres")
        return false;
    std::error_code ec;
    const fs::path cwd = fs::read_symlink(proc + "/cwd", ec);
    if (ec)
        return true;
    const fs::path want = fs::weakly_canonical(fs::path(dataDir), ec);
    return cwd == want;
}

// Server processes still working in dataDir (orphaned backends after a kill -9).
std::vector<pid_t> serverProcesses(const std::string &dataDir)
{
    std::vector<pid_t> found;
    std::error_code ec;
    for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        const pid_t pid = static_cast<pid_t>(std::atol(name.c_str()));
        std::error_code linkEc;
        const fs::path cwd = fs::read_symlink(it->path() / "cwd", linkEc);
        if (linkEc)
            continue;
        if (cwd == fs::weakly_canonical(fs::path(dataDir), linkEc) && trimmed(readFile(it->path().string() + "/comm")) == "postgres")
            found.push_back(pid);
    }
    return found;
}

std::string quoteConf(const std::string &value)
{
    std::string s = "'";
    for (char c : value) {
        if (c == '\'' || c == '\\')
            s += c;
        s += c;
    }
    return s + "'";
}

std::string quoteConninfoValue(const std::string &value)
{
    const bool plain = !value.empty() && std::none_of(value.begin(), value.end(), [](char c) {
        return c == '\'' || c == '\\' || std::isspace(static_cast<unsigned char>(c));
    });
    if (plain)
        return value;
    std::string s = "'";
    for (char c : value) {
        if (c == '\'' || c == '\\')
            s += '\\';
        s += c;
    }
    return s + "'";
}

std::string localeName()
{
    if (locale_t l = newlocale(LC_ALL_MASK, "C.UTF-8", nullptr)) {
        freelocale(l);
        return "C.UTF-8";
    }
    return "C";
}

Error commandFailed(const std::string &what, const ProgramResult &r, const std::string &logFile)
{
    Error e = Error::make(ErrorKind::Connection,
                          what + " failed (" + (r.exitCode < 0 ? std::string("killed by a signal")
                                                                : "exit code " + std::to_string(r.exitCode)) + ")");
    e.detail = trimmed(r.output);
    if (!logFile.empty()) {
        const std::string log = trimmed(tail(readFile(logFile), 15));
        if (!log.empty())
            e.detail += (e.detail.empty() ? "" : "\n") + std::string("server.log:\n") + log;
    }
    e.hint = "Read the output above; remove the cluster directory to start from scratch.";
    return e;
}

} // namespace

bool processRunning(pid_t pid)
{
    return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

LocalCluster::LocalCluster(std::string dir, int port)
    : m_dir(absolutePath(dir))
    , m_port(port)
{
}

std::string LocalCluster::dataDir() const
{
    return m_dir + "/data";
}

std::string LocalCluster::socketDir() const
{
    return m_dir + "/socket";
}

std::string LocalCluster::logFile() const
{
    return m_dir + "/server.log";
}

bool LocalCluster::exists() const
{
    return fileExists(dataDir() + "/PG_VERSION");
}

pid_t LocalCluster::serverPid() const
{
    const pid_t pid = pidFromFile(dataDir() + "/postmaster.pid");
    return isServerOf(pid, dataDir()) ? pid : 0;
}

bool LocalCluster::isRunning() const
{
    return serverPid() != 0;
}

std::string LocalCluster::superuser() const
{
    std::string name = markerValue(m_dir, "superuser");
    if (name.empty()) {
        auto a = accountFor(m_dir);
        name = a ? a->name : std::string("postgres");
    }
    return name;
}

std::string LocalCluster::conninfo(const std::string &database) const
{
    return "host=" + quoteConninfoValue(socketDir()) + " port=" + std::to_string(m_port)
        + " user=" + quoteConninfoValue(superuser()) + " dbname=" + quoteConninfoValue(database);
}

std::string LocalCluster::serverBinDir()
{
    static const std::string found = [] {
        auto hasInitdb = [](const std::string &dir) {
            return !dir.empty() && ::access((dir + "/initdb").c_str(), X_OK) == 0
                && ::access((dir + "/pg_ctl").c_str(), X_OK) == 0;
        };
        if (const char *env = std::getenv("REPRINT_PG_BINDIR"); env && hasInitdb(env))
            return std::string(env);
        Account self;
        self.uid = geteuid();
        self.gid = getegid();
        for (const char *pgConfig : {"/usr/bin/pg_config", "/usr/local/bin/pg_config"}) {
            if (::access(pgConfig, X_OK) != 0)
                continue;
            auto r = runProgram({pgConfig, "--bindir"}, self, "/", {"PATH=/usr/bin:/bin", "LC_ALL=C"});
            if (r && r->exitCode == 0 && hasInitdb(trimmed(r->output)))
                return trimmed(r->output);
        }
        std::string best;
        int bestVersion = -1;
        std::error_code ec;
        for (auto it = fs::directory_iterator("/usr/lib/postgresql", ec); !ec && it != fs::directory_iterator();
             it.increment(ec)) {
            const std::string name = it->path().filename().string();
            const int version = std::atoi(name.c_str());
            const std::string bin = it->path().string() + "/bin";
            if (version > bestVersion && hasInitdb(bin)) {
                bestVersion = version;
                best = bin;
            }
        }
        return best;
    }();
    return found;
}

std::string LocalCluster::serverAccount(const std::string &dir)
{
    auto a = accountFor(absolutePath(dir));
    return a ? a->name : std::string();
}

std::string LocalCluster::reachability(const std::string &dir, const std::string &account)
{
    auto a = lookupAccount(account.c_str(), std::nullopt);
    if (!a)
        return "there is no account named '" + account + "'";
    return reachabilityOf(absolutePath(dir), *a);
}

namespace {

// Whether a cluster may be put in (or kept in) the cluster's directory, and its socket
// path is short enough.
Status checkPlace(const LocalCluster &cluster, const Account &a)
{
    const std::string &dir = cluster.dir();
    std::error_code ec;
    const bool hadDir = fs::exists(dir, ec);
    if (hadDir && !fs::is_directory(dir, ec))
        return Error::make(ErrorKind::Usage, dir + " exists and is not a directory", "Pick another --dir.");
    if (hadDir && !fileExists(dir + "/" + kMarker) && !cluster.exists() && !fs::is_empty(dir, ec))
        return Error::make(ErrorKind::Usage,
                           dir + " is neither empty nor a Reprint cluster; refusing to put a cluster there",
                           "Pick a new or empty directory.");
    if (a.switchUser) {
        const std::string blocked = reachabilityOf(dir, a);
        if (!blocked.empty())
            return Error::make(ErrorKind::Usage, blocked);
    }
    const std::string socketFile = cluster.socketDir() + "/.s.PGSQL." + std::to_string(cluster.port());
    if (socketFile.size() >= sizeof(sockaddr_un::sun_path))
        return Error::make(ErrorKind::Usage,
                           "the socket path " + socketFile + " is too long for a Unix socket ("
                               + std::to_string(socketFile.size()) + " bytes, at most "
                               + std::to_string(sizeof(sockaddr_un::sun_path) - 1) + ")",
                           "Pick a shorter directory.");
    return ok();
}

// The directory, data and socket directories, and the marker, owned by the server's
// account.
Status prepareDirectories(const LocalCluster &cluster, const Account &a)
{
    const std::string &dir = cluster.dir();
    std::error_code ec;
    for (const std::string &d : {dir, cluster.dataDir(), cluster.socketDir()}) {
        fs::create_directories(d, ec);
        if (ec)
            return Error::make(ErrorKind::Usage, "could not create " + d + ": " + ec.message(),
                               "Pick a directory you can write to.");
    }
    ::chmod(cluster.dataDir().c_str(), 0700);
    ::chmod(cluster.socketDir().c_str(), 0700);
    std::string why;
    if (!fileExists(dir + "/" + kMarker) && !writeFile(dir + "/" + kMarker, "superuser=" + a.name + "\n", &why))
        return Error::make(ErrorKind::Usage, why);
    if (a.switchUser && !chownTree(dir, a, &why))
        return Error::make(ErrorKind::Internal, why);
    return ok();
}

// A postmaster.pid left by a server that no longer runs, and its sockets, removed.
Status clearStaleLock(const LocalCluster &cluster, const std::string &pidFile)
{
    // Wait for orphaned backends of a killed postmaster, which still hold its shared
    // memory, before taking the lock file away.
    std::vector<pid_t> orphans = serverProcesses(cluster.dataDir());
    for (int i = 0; i < 100 && !orphans.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        orphans = serverProcesses(cluster.dataDir());
    }
    if (!orphans.empty())
        return Error::make(ErrorKind::Connection,
                           "server processes of a previous run are still working in " + cluster.dataDir() + " (pid "
                               + std::to_string(orphans.front()) + ")",
                           "Stop them (kill " + std::to_string(orphans.front()) + "), then start again.");
    std::error_code ec;
    fs::remove(pidFile, ec);
    for (auto it = fs::directory_iterator(cluster.socketDir(), ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        if (it->path().filename().string().rfind(".s.PGSQL.", 0) == 0)
            fs::remove(it->path(), ec);
    return ok();
}

// initdb, then the settings include and a pg_hba.conf that accepts the socket only.
Status initialise(const LocalCluster &cluster, const std::string &bindir, const Account &a,
                  const std::vector<std::string> &env)
{
    const std::string &dir = cluster.dir();
    const std::string dataDir = cluster.dataDir();
    const std::string superuser = markerValue(dir, "superuser").empty() ? a.name : markerValue(dir, "superuser");
    // --no-sync: a private cluster lost to a power cut right after initdb is made
    // again, not repaired; syncing costs seconds on every fresh test directory.
    auto r = runProgram({bindir + "/initdb", "-D", dataDir, "-U", superuser, "-E", "UTF8",
                         "--locale=" + localeName(), "-A", "trust", "--auth-local=trust", "--auth-host=reject",
                         "--no-instructions", "--no-sync"},
                        a, dir, env);
    if (!r)
        return r.error();
    if (r->exitCode != 0)
        return commandFailed("initdb", *r, {});
    std::string why;
    const std::string conf = dataDir + "/postgresql.conf";
    if (!writeFile(conf, readFile(conf) + "\n# Reprint's settings, rewritten on every start\ninclude_if_exists = 'reprint.conf'\n", &why)
        || !writeFile(dataDir + "/pg_hba.conf",
                      "# Reprint's private cluster: Unix socket only, trust; nothing else is accepted.\n"
                      "# TYPE  DATABASE  USER  METHOD\n"
                      "local   all       all   trust\n",
                      &why))
        return Error::make(ErrorKind::Internal, why);
    return ok();
}

// reprint.conf: the settings of a private cluster, written on every start.
std::string serverSettings(const LocalCluster &cluster)
{
    std::ostringstream conf;
    conf << "# Written by Reprint on every start of this cluster; edit postgresql.conf instead.\n"
         << "listen_addresses = ''\n"
         << "port = " << cluster.port() << "\n"
         << "unix_socket_directories = " << quoteConf(cluster.socketDir()) << "\n"
         << "shared_buffers = 128MB\n"
         << "max_wal_size = 2GB\n"
         << "min_wal_size = 256MB\n"
         << "checkpoint_timeout = 15min\n"
         // Nothing replicates from a private cluster; minimal WAL lets the seed's
         // CREATE TABLE + INSERT in one transaction skip WAL altogether.
         << "wal_level = minimal\n"
         << "max_wal_senders = 0\n"
         << "maintenance_work_mem = 256MB\n"
         << "work_mem = 16MB\n"
         // A private cluster's data is on local disk and mostly in the page cache: a random
         // read costs about what a sequential one does (the usual SSD setting). With the
         // default 4, the planner scans a whole source table (2 million order lines) to join
         // the few thousand orders of a check's days, 8x slower than the index.
         << "random_page_cost = 1.1\n"
         << "effective_cache_size = 2GB\n"
         // The seed and whole-year backfills touch 730+ partitions and their indexes in one
         // transaction.
         << "max_locks_per_transaction = 512\n"
         << "logging_collector = off\n"
         << "log_min_messages = warning\n"
         << "log_checkpoints = off\n";
    return conf.str();
}

// pg_ctl starts the server in a session of its own. Where Linux groups each session's
// processes for the scheduler (autogroup, on by default on desktops), a process's niceness
// only ranks it inside its group, and the server's group as a whole got as much CPU as the
// window's. The group is lowered too, and so are those of the processes the server has
// started (PostgreSQL puts each in a session, and so a group, of its own); a backend
// follows when a connection opens it (schedgroup.h). Best effort: where
// there are no groups, or the kernel refuses, nothing changes.
void lowerSessionPriority(pid_t server)
{
    if (const auto nice = groupNiceness(server); !nice || *nice >= kServerGroupNiceness)
        return;
    for (int attempt = 0; attempt < 5; ++attempt) {
        if (setGroupNiceness(server, kServerGroupNiceness) != GroupChange::TryLater)
            return;
        // Without CAP_SYS_ADMIN, the kernel takes one such change every 100 ms.
        std::this_thread::sleep_for(std::chrono::milliseconds(110));
    }
}

// The postmaster and the processes it has started by now (checkpointer, background writer,
// WAL writer, autovacuum launcher): each has a group of its own. Backends are lowered by
// the connection that opens them.
void lowerServerGroups(const LocalCluster &cluster)
{
    if (cluster.serverPid() > 0)
        for (const pid_t process : serverProcesses(cluster.dataDir()))
            lowerSessionPriority(process);
}

} // namespace

Status LocalCluster::start()
{
    const std::string bindir = serverBinDir();
    if (bindir.empty())
        return Error::make(ErrorKind::Connection, "no PostgreSQL server found (initdb and pg_ctl)",
                           "Install the server (apt install postgresql), or set REPRINT_PG_BINDIR to its bin directory.");

    auto account = accountFor(m_dir);
    if (!account)
        return account.error();
    const Account &a = *account;

    if (Status placed = checkPlace(*this, a); !placed)
        return placed;
    if (Status prepared = prepareDirectories(*this, a); !prepared)
        return prepared;

    const std::string pidFile = dataDir() + "/postmaster.pid";
    if (fileExists(pidFile)) {
        if (isRunning()) {
            // Started earlier, maybe by a build that did not lower its groups.
            lowerServerGroups(*this);
            return ok();
        }
        if (Status cleared = clearStaleLock(*this, pidFile); !cleared)
            return cleared;
    }

    const std::vector<std::string> env = childEnvironment(a, bindir);
    if (!exists()) {
        if (Status made = initialise(*this, bindir, a, env); !made)
            return made;
    }

    std::string why;
    if (!writeFile(dataDir() + "/reprint.conf", serverSettings(*this), &why))
        return Error::make(ErrorKind::Internal, why);
    if (a.switchUser && !chownTree(m_dir, a, &why))
        return Error::make(ErrorKind::Internal, why);

    // The server shares the desktop with the window that drives it: it runs at a lower CPU
    // priority, so that on a busy machine a backfill's backends wait for the GUI thread and
    // not the other way round (on an idle core it makes no difference).
    auto r = runProgram({bindir + "/pg_ctl", "start", "-D", dataDir(), "-l", logFile(), "-w", "-t", "120"}, a, m_dir,
                        env, kServerNiceness);
    if (!r)
        return r.error();
    if (r->exitCode != 0)
        return commandFailed("pg_ctl start", *r, logFile());
    lowerServerGroups(*this);
    return ok();
}

Status LocalCluster::stop()
{
    if (!exists())
        return ok();
    if (!isRunning()) {
        std::error_code ec;
        if (fileExists(dataDir() + "/postmaster.pid") && serverProcesses(dataDir()).empty())
            fs::remove(dataDir() + "/postmaster.pid", ec);
        return ok();
    }
    auto account = accountFor(m_dir);
    if (!account)
        return account.error();
    const std::string bindir = serverBinDir();
    auto r = runProgram({bindir + "/pg_ctl", "stop", "-D", dataDir(), "-m", "fast", "-w", "-t", "180"}, *account, m_dir,
                        childEnvironment(*account, bindir));
    if (!r)
        return r.error();
    if (r->exitCode != 0 && isRunning())
        return commandFailed("pg_ctl stop", *r, logFile());
    return ok();
}

} // namespace reprint::warehouse
