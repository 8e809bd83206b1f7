#include "testsupport.h"

#include <algorithm>
#include <vector>

#include "warehouse/iothread.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>

#include <unistd.h>

namespace reprint::test {

using warehouse::Error;
using warehouse::ErrorKind;
using warehouse::LocalCluster;
using warehouse::Result;

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::string quoted(const std::string &identifier)
{
    std::string s = "\"";
    for (char c : identifier) {
        if (c == '"')
            s += '"';
        s += c;
    }
    return s + "\"";
}

std::unique_ptr<LocalCluster> g_private;

void stopPrivateCluster()
{
    if (g_private)
        (void)g_private->stop();
}

} // namespace

std::string testDir()
{
    static const std::string dir = [] {
        std::string d = env("REPRINT_TEST_DIR");
        if (d.empty())
            d = QDir::temp()
                    .filePath(QStringLiteral("reprint-test-%1-%2")
                                  .arg(QCoreApplication::applicationName())
                                  .arg(static_cast<qint64>(::getpid())))
                    .toStdString();
        QDir().mkpath(QString::fromStdString(d));
        return d;
    }();
    return dir;
}

LocalCluster &privateCluster()
{
    if (!g_private)
        g_private = std::make_unique<LocalCluster>(testDir() + "/cluster");
    if (!g_private->isRunning()) {
        const auto started = g_private->start();
        if (!started)
            QTest::qFail(("the private cluster did not start: " + started.error().toSentence()).c_str(), __FILE__,
                         __LINE__);
    }
    // Registered once the cluster has started, so that the function-local statics start
    // and stop use (the server's bindir, found once) are destroyed after it runs, not
    // before: registered earlier, stop found an empty bindir at exit and the server of
    // every test that used this cluster outlived the test.
    static const bool stopsAtExit = [] {
        (void)LocalCluster::serverBinDir();
        return std::atexit(stopPrivateCluster) == 0;
    }();
    (void)stopsAtExit;
    return *g_private;
}

LocalCluster &demoCluster()
{
    static LocalCluster cluster(env("REPRINT_TEST_DEMO_DIR").empty() ? testDir() + "/no-demo"
                                                                      : env("REPRINT_TEST_DEMO_DIR"));
    if (env("REPRINT_TEST_DEMO_DIR").empty() || !cluster.isRunning())
        QTest::qFail("the demo cluster is not running: run the test through ctest (the `demo` fixture starts it), "
                     "or start it with `reprint demo --dir $REPRINT_TEST_DEMO_DIR --scale 0.1`",
                     __FILE__, __LINE__);
    return cluster;
}

std::string demoCopy(const std::string &name)
{
    LocalCluster &demo = demoCluster();
    const std::string admin = demo.conninfo("postgres");
    auto dropped = execute(admin, "DROP DATABASE IF EXISTS " + quoted(name) + " WITH (FORCE)");
    if (!dropped)
        QTest::qFail(("could not drop " + name + ": " + dropped.error().toSentence()).c_str(), __FILE__, __LINE__);
    // Another test binary may be copying the template at the same moment (55006).
    for (int attempt = 0;; ++attempt) {
        auto created = execute(admin, "CREATE DATABASE " + quoted(name) + " TEMPLATE demo");
        if (created)
            break;
        if (created.error().sqlstate != "55006" || attempt >= 40) {
            QTest::qFail(("could not copy the demo database: " + created.error().toSentence()).c_str(), __FILE__,
                         __LINE__);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    // Copies are dropped when the test binary exits: their dirty pages then never have to
    // be written by the fixture's final shutdown checkpoint.
    static std::vector<std::string> copies;
    static const bool registered = [] {
        std::atexit([] {
            for (const std::string &db : copies)
                (void)execute(demoCluster().conninfo("postgres"), "DROP DATABASE IF EXISTS " + quoted(db) + " WITH (FORCE)");
        });
        return true;
    }();
    Q_UNUSED(registered);
    if (std::find(copies.begin(), copies.end(), name) == copies.end())
        copies.push_back(name);
    return demo.conninfo(name);
}

Result<warehouse::Reply> query(const std::string &conninfo, const std::string &sql, warehouse::Params params)
{
    warehouse::asio::io_context io;
    auto conn = warehouse::runBlocking(io, warehouse::Connection::connect(conninfo));
    if (!conn)
        return conn.error();
    return warehouse::runBlocking(io, (*conn)->query(sql, std::move(params)));
}

Result<warehouse::Reply> execute(const std::string &conninfo, const std::string &sql)
{
    warehouse::asio::io_context io;
    auto conn = warehouse::runBlocking(io, warehouse::Connection::connect(conninfo));
    if (!conn)
        return conn.error();
    return warehouse::runBlocking(io, (*conn)->execute(sql));
}

QString reprintBinary()
{
    const QString bin = qEnvironmentVariable("REPRINT_BIN");
    if (bin.isEmpty())
        QTest::qFail("REPRINT_BIN is not set: run the test through ctest", __FILE__, __LINE__);
    return bin;
}

ProcessResult runReprint(const QStringList &args, int timeoutMs)
{
    ProcessResult r;
    QProcess p;
    p.start(reprintBinary(), args);
    if (!p.waitForStarted()) {
        r.err = p.errorString();
        return r;
    }
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("timed out after %1 ms\n").arg(timeoutMs) + QString::fromUtf8(p.readAllStandardError());
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace reprint::test
