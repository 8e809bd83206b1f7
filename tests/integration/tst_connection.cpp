// The async libpq layer against a real private PostgreSQL: connect in every form,
// parameters, multiple result sets, notices, error classification, cancel, a dropped
// connection, and no password in any message.
#include "testsupport.h"

#include "warehouse/connection.h"
#include "warehouse/iothread.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <cstdlib>
#include <thread>

using namespace reprint;
using warehouse::Connection;
using warehouse::ConnectionPtr;
using warehouse::ErrorKind;
using warehouse::Reply;
using warehouse::Result;
using warehouse::Task;

namespace {

template <typename T>
T block(Task<T> task)
{
    warehouse::asio::io_context io;
    return warehouse::runBlocking(io, std::move(task));
}

// Connects and closes again on the same io_context (a Connection must not outlive the
// io_context it was made on); returns the connection's description or the error.
Result<std::string> connectNow(std::string conninfo)
{
    return block([](std::string ci) -> Task<Result<std::string>> {
        auto c = co_await Connection::connect(ci);
        if (!c)
            co_return c.error();
        const std::string described = (*c)->describe();
        (*c)->close();
        co_return described;
    }(std::move(conninfo)));
}

// Connects and runs one statement in a single coroutine (the connection stays on its
// io_context for its whole life).
Result<Reply> oneShot(std::string conninfo, std::string sql, warehouse::Params params = {})
{
    return block([](std::string ci, std::string s, warehouse::Params p) -> Task<Result<Reply>> {
        auto c = co_await Connection::connect(ci);
        if (!c)
            co_return c.error();
        co_return co_await (*c)->query(s, p);
    }(std::move(conninfo), std::move(sql), std::move(params)));
}

} // namespace

class TestConnection : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(test::privateCluster().isRunning(), "the private cluster did not start");
        m_conninfo = test::privateCluster().conninfo("postgres");
    }

    void parametersAndNulls()
    {
        auto r = oneShot(m_conninfo, "SELECT $1::int + $2::int AS sum, $3::text IS NULL AS was_null, $4::text AS echoed",
                         warehouse::args("40", "2", std::nullopt, "it's \"quoted\" ; drop table x"));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        const auto &set = r->last();
        QCOMPARE(set.columns.size(), std::size_t(3));
        QCOMPARE(*set.at(0, "sum"), std::string("42"));
        QCOMPARE(*set.at(0, "was_null"), std::string("t"));
        QCOMPARE(*set.at(0, "echoed"), std::string("it's \"quoted\" ; drop table x"));
    }

    void nullValuesComeBackAsNullopt()
    {
        auto r = oneShot(m_conninfo, "SELECT NULL::text AS a, ''::text AS b");
        QVERIFY(r.ok());
        QVERIFY(!r->last().at(0, "a").has_value());
        QCOMPARE(*r->last().at(0, "b"), std::string());
    }

    void multipleResultSets()
    {
        auto r = block([](std::string ci) -> Task<Result<Reply>> {
            auto c = co_await Connection::connect(ci);
            if (!c)
                co_return c.error();
            co_return co_await (*c)->execute("CREATE TEMP TABLE t (x int); INSERT INTO t SELECT generate_series(1, 5); "
                                             "SELECT count(*), sum(x) FROM t");
        }(m_conninfo));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(r->sets.size(), std::size_t(3));
        QCOMPARE(r->sets[1].affectedRows, 5LL);
        QCOMPARE(*r->sets[2].rows[0][0], std::string("5"));
        QCOMPARE(*r->sets[2].rows[0][1], std::string("15"));
    }

    void errorsAreClassifiedBySqlstate_data()
    {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("sqlstate");
        QTest::addColumn<int>("kind");
        QTest::newRow("syntax") << "SELEC 1" << "42601" << int(ErrorKind::Syntax);
        QTest::newRow("undefined table") << "SELECT * FROM no_such_table" << "42P01" << int(ErrorKind::Syntax);
        QTest::newRow("division by zero") << "SELECT 1/0" << "22012" << int(ErrorKind::Data);
        QTest::newRow("not null") << "CREATE TEMP TABLE n (x int NOT NULL); INSERT INTO n VALUES (NULL)" << "23502" << int(ErrorKind::Data);
        QTest::newRow("unique") << "CREATE TEMP TABLE u (x int PRIMARY KEY); INSERT INTO u VALUES (1), (1)" << "23505" << int(ErrorKind::UniqueViolation);
        QTest::newRow("serialization") << "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '40001'; END $$" << "40001" << int(ErrorKind::SerializationFailure);
        QTest::newRow("deadlock") << "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '40P01'; END $$" << "40P01" << int(ErrorKind::DeadlockDetected);
        QTest::newRow("other rollback") << "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '40002'; END $$" << "40002" << int(ErrorKind::TransactionRollback);
        QTest::newRow("lock not available") << "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '55P03'; END $$" << "55P03" << int(ErrorKind::LockNotAvailable);
        QTest::newRow("permission") << "DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '42501'; END $$" << "42501" << int(ErrorKind::Permission);
    }

    void errorsAreClassifiedBySqlstate()
    {
        QFETCH(QString, sql);
        QFETCH(QString, sqlstate);
        QFETCH(int, kind);
        auto r = block([](std::string ci, std::string s) -> Task<Result<Reply>> {
            auto c = co_await Connection::connect(ci);
            if (!c)
                co_return c.error();
            co_return co_await (*c)->execute(s);
        }(m_conninfo, sql.toStdString()));
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error().sqlstate), sqlstate);
        QCOMPARE(int(r.error().kind), kind);
        // Worth trying again later: exactly the rolled-back transactions and the lock waits.
        QCOMPARE(reprint::warehouse::isConcurrencyConflict(r.error().kind),
                 sqlstate.startsWith(QLatin1String("40")) || sqlstate == QLatin1String("55P03"));
        QVERIFY(!r.error().message.empty());
    }

    void syntaxErrorCarriesPosition()
    {
        auto r = oneShot(m_conninfo, "SELECT 1 FROM WHERE");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().sqlstate, std::string("42601"));
        QVERIFY(r.error().position > 0);
    }

    void realPermissionError()
    {
        auto setup = test::execute(m_conninfo, "DROP TABLE IF EXISTS secret_t; CREATE TABLE secret_t (x int); "
                                               "DROP ROLE IF EXISTS nobody_much; CREATE ROLE nobody_much LOGIN");
        QVERIFY2(setup.ok(), setup.ok() ? "" : setup.error().message.c_str());
        auto r = oneShot(test::privateCluster().conninfo("postgres") + " user=nobody_much", "SELECT * FROM secret_t");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().sqlstate, std::string("42501"));
        QCOMPARE(int(r.error().kind), int(ErrorKind::Permission));
    }

    void noticesAreCaptured()
    {
        std::vector<warehouse::Notice> seen;
        auto r = block([](std::string ci, std::vector<warehouse::Notice> *out) -> Task<Result<Reply>> {
            auto c = co_await Connection::connect(ci);
            if (!c)
                co_return c.error();
            (*c)->setNoticeHandler([out](const warehouse::Notice &n) { out->push_back(n); });
            co_return co_await (*c)->execute("DO $$ BEGIN RAISE NOTICE 'staged % rows', 42; RAISE WARNING 'careful'; END $$");
        }(m_conninfo, &seen));
        QVERIFY(r.ok());
        QCOMPARE(seen.size(), std::size_t(2));
        QCOMPARE(seen[0].severity, std::string("NOTICE"));
        QCOMPARE(seen[0].message, std::string("staged 42 rows"));
        QCOMPARE(seen[1].severity, std::string("WARNING"));
    }

    void cancelFromAnotherThread()
    {
        warehouse::IoThread io;
        auto conn = io.spawn(Connection::connect(m_conninfo)).get();
        QVERIFY(conn.ok());
        const int pid = (*conn)->backendPid();
        auto pending = io.spawn([](ConnectionPtr c) -> Task<Result<Reply>> {
            co_return co_await c->query("SELECT pg_sleep(60)");
        }(*conn));
        // Wait until the server is really running the sleep, then cancel from this thread.
        QTRY_VERIFY_WITH_TIMEOUT(test::query(m_conninfo, "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active' "
                                                         "AND query LIKE '%pg_sleep%'",
                                             warehouse::args(std::to_string(pid)))
                                     ->last().rows.size() == 1,
                                 10000);
        const auto handle = (*conn)->cancelHandle();
        std::string why;
        QVERIFY2(handle.cancel(&why), why.c_str());
        QVERIFY(pending.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
        auto r = pending.get();
        QVERIFY(!r.ok());
        QCOMPARE(int(r.error().kind), int(ErrorKind::Cancelled));
        QCOMPARE(r.error().sqlstate, std::string("57014"));
        // The connection is still usable after a cancel.
        auto again = io.spawn([](ConnectionPtr c) -> Task<Result<Reply>> { co_return co_await c->query("SELECT 7"); }(*conn)).get();
        QVERIFY(again.ok());
        QCOMPARE(again->last().scalar(), std::string("7"));
        io.spawn([](ConnectionPtr c) -> Task<int> { c->close(); co_return 0; }(*conn)).get();
        // A cancel after close does nothing and does not crash.
        handle.cancel();
    }

    void droppedConnection()
    {
        warehouse::IoThread io;
        auto conn = io.spawn(Connection::connect(m_conninfo)).get();
        QVERIFY(conn.ok());
        const int pid = (*conn)->backendPid();
        auto pending = io.spawn([](ConnectionPtr c) -> Task<Result<Reply>> { co_return co_await c->query("SELECT pg_sleep(60)"); }(*conn));
        QTRY_VERIFY_WITH_TIMEOUT(test::query(m_conninfo, "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'",
                                             warehouse::args(std::to_string(pid)))
                                     ->last().rows.size() == 1,
                                 10000);
        auto killed = test::query(m_conninfo, "SELECT pg_terminate_backend($1)", warehouse::args(std::to_string(pid)));
        QVERIFY(killed.ok());
        QVERIFY(pending.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
        auto r = pending.get();
        QVERIFY(!r.ok());
        QCOMPARE(int(r.error().kind), int(ErrorKind::Connection));
        auto after = io.spawn([](ConnectionPtr c) -> Task<Result<Reply>> { co_return co_await c->query("SELECT 1"); }(*conn)).get();
        QVERIFY(!after.ok());
        QCOMPARE(int(after.error().kind), int(ErrorKind::Connection));
    }

    void connectionForms()
    {
        const auto &cl = test::privateCluster();
        // keyword/value
        QVERIFY(oneShot(cl.conninfo("postgres"), "SELECT 1").ok());
        // URI with the socket directory as a query parameter
        const std::string uri = "postgresql:///postgres?host=" + cl.socketDir() + "&port=" + std::to_string(cl.port())
                                + "&user=" + cl.superuser();
        auto viaUri = oneShot(uri, "SELECT current_database()");
        QVERIFY2(viaUri.ok(), viaUri.ok() ? "" : viaUri.error().message.c_str());
        QCOMPARE(viaUri->last().scalar(), std::string("postgres"));
        // service= from a service file
        QTemporaryDir dir;
        QFile services(dir.filePath(QStringLiteral("pg_service.conf")));
        QVERIFY(services.open(QIODevice::WriteOnly));
        services.write(QStringLiteral("[reprint_test]\nhost=%1\nport=%2\nuser=%3\ndbname=postgres\n")
                           .arg(QString::fromStdString(cl.socketDir()))
                           .arg(cl.port())
                           .arg(QString::fromStdString(cl.superuser()))
                           .toUtf8());
        services.close();
        qputenv("PGSERVICEFILE", services.fileName().toUtf8());
        auto viaService = oneShot("service=reprint_test", "SELECT 1");
        QVERIFY2(viaService.ok(), viaService.ok() ? "" : viaService.error().message.c_str());
        qunsetenv("PGSERVICEFILE");
        // libpq's PG* environment with an empty conninfo
        qputenv("PGHOST", QByteArray::fromStdString(cl.socketDir()));
        qputenv("PGPORT", QByteArray::number(cl.port()));
        qputenv("PGUSER", QByteArray::fromStdString(cl.superuser()));
        qputenv("PGDATABASE", "postgres");
        auto viaEnv = oneShot("", "SELECT current_database()");
        for (const char *v : {"PGHOST", "PGPORT", "PGUSER", "PGDATABASE"})
            qunsetenv(v);
        QVERIFY2(viaEnv.ok(), viaEnv.ok() ? "" : viaEnv.error().message.c_str());
    }

    void missingSocketIsAConnectionErrorWithoutThePassword()
    {
        auto c = connectNow("host=/nonexistent/reprint port=5999 user=x dbname=y password=hunter2-missing");
        QVERIFY(!c.ok());
        QCOMPARE(int(c.error().kind), int(ErrorKind::Connection));
        const std::string all = c.error().toSentence();
        QVERIFY2(all.find("hunter2") == std::string::npos, all.c_str());
        QVERIFY2(all.find("/nonexistent/reprint") != std::string::npos, all.c_str());
        QVERIFY(!c.error().hint.empty());
    }

    void wrongPasswordIsRefusedWithoutThePassword()
    {
        // Require a password for one role on the private socket, ahead of the trust rule.
        auto hba = test::query(m_conninfo, "SHOW hba_file");
        QVERIFY(hba.ok());
        QFile f(QString::fromStdString(hba->last().scalar()));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray original = f.readAll();
        f.close();
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("local all pw_user scram-sha-256\n" + original);
        f.close();
        auto setup = test::execute(m_conninfo, "DROP ROLE IF EXISTS pw_user; SET password_encryption = 'scram-sha-256'; "
                                               "CREATE ROLE pw_user LOGIN PASSWORD 'right-one'; SELECT pg_reload_conf()");
        QVERIFY2(setup.ok(), setup.ok() ? "" : setup.error().message.c_str());
        const std::string base = test::privateCluster().conninfo("postgres") + " user=pw_user";
        QTRY_VERIFY_WITH_TIMEOUT(!connectNow(base + " password=wrong-hunter2").ok(), 5000);
        auto wrong = connectNow(base + " password=wrong-hunter2");
        QCOMPARE(int(wrong.error().kind), int(ErrorKind::Permission));
        const std::string all = wrong.error().toSentence();
        QVERIFY2(all.find("hunter2") == std::string::npos, all.c_str());
        auto right = connectNow(base + " password=right-one");
        QVERIFY2(right.ok(), right.ok() ? "" : right.error().message.c_str());
        QVERIFY(right->find("right-one") == std::string::npos);
        // Put the file back so other tests see trust everywhere.
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(original);
        f.close();
        QVERIFY(test::query(m_conninfo, "SELECT pg_reload_conf()").ok());
    }

    void redactConninfo_data()
    {
        QTest::addColumn<QString>("conninfo");
        QTest::addColumn<QString>("expected");
        QTest::newRow("keyword") << "host=/tmp password=s3cret user=u" << "host=/tmp user=u";
        QTest::newRow("quoted") << "password='s3 cr\\'et' dbname=d" << "dbname=d";
        QTest::newRow("uri user:pw") << "postgresql://u:s3cret@db.example/analytics" << "postgresql://u@db.example/analytics";
        QTest::newRow("uri param") << "postgresql://u@h/d?sslmode=require&password=s3cret" << "postgresql://u@h/d?sslmode=require";
        QTest::newRow("service") << "service=analytics" << "service=analytics";
    }

    void redactConninfo()
    {
        QFETCH(QString, conninfo);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(warehouse::redactConninfo(conninfo.toStdString())), expected);
    }

private:
    std::string m_conninfo;
};

QTEST_GUILESS_MAIN(TestConnection)
#include "tst_connection.moc"
