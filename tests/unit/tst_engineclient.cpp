// EngineClient's contract without a database: every request is answered exactly once (here
// by failed(), as the warehouse cannot be reached), an answer to a request made before
// setSpec() is stale and never emitted, the error it shows never holds the password, and every
// client of the process shares one I/O thread.

#include "engineclient.h"
#include "warehousecatalogclient.h"
#include "warehouseclient.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace reprint;

namespace {

backfill::Spec specNamed(const std::string &path)
{
    backfill::Spec s;
    s.path = path;
    backfill::Model m;
    m.name = "orders";
    s.models.push_back(m);
    return s;
}

QList<quint64> tokens(const QSignalSpy &spy)
{
    QList<quint64> out;
    for (const QList<QVariant> &args : spy)
        out << args.at(0).toULongLong();
    return out;
}

int threadsOfThisProcess()
{
    return static_cast<int>(QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size());
}

} // namespace

class TestEngineClient : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void answeredOnceWithoutThePassword();
    void staleAnswersAreDropped();
    void oneIoThreadForEveryClient();

private:
    QTemporaryDir m_dir;  // a socket directory where no server listens
    QString m_conninfo;
};

void TestEngineClient::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_conninfo = QStringLiteral("host=%1 port=5999 dbname=warehouse user=lead password=hunter2 connect_timeout=2").arg(m_dir.path());
}

void TestEngineClient::answeredOnceWithoutThePassword()
{
    model::EngineClient client;
    QSignalSpy failed(&client, &model::EngineClient::failed);
    QSignalSpy history(&client, &model::EngineClient::historyFinished);
    client.setSpec(specNamed("/specs/a.yaml"), m_conninfo);
    const quint64 a = client.history();
    const quint64 b = client.status(QStringLiteral("orders"), QStringLiteral("2026-03-01"), QStringLiteral("2026-03-02"));
    QVERIFY(a != 0 && b != 0 && a != b);
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 2, 20000);
    QTest::qWait(100);  // a second answer to either would be queued by now
    QCOMPARE(failed.size(), 2);
    QCOMPARE(history.size(), 0);
    QList<quint64> answered = tokens(failed);
    std::sort(answered.begin(), answered.end());
    QCOMPARE(answered, (QList<quint64>{std::min(a, b), std::max(a, b)}));
    for (const QList<QVariant> &args : failed) {
        const auto error = args.at(1).value<model::DatabaseError>();
        const QString text = error.message + QLatin1Char(' ') + error.detail + QLatin1Char(' ') + error.hint;
        QCOMPARE(error.kind, warehouse::ErrorKind::Connection);
        QVERIFY2(!error.message.isEmpty(), "a failure says what went wrong");
        QVERIFY2(!text.contains(QStringLiteral("hunter2")), qPrintable(text));
    }
}

void TestEngineClient::staleAnswersAreDropped()
{
    model::EngineClient client;
    QSignalSpy failed(&client, &model::EngineClient::failed);
    client.setSpec(specNamed("/specs/a.yaml"), m_conninfo);
    // No event loop runs between these calls, so the first answers can only arrive after
    // setSpec(): they are stale.
    const quint64 old1 = client.history();
    const quint64 old2 = client.throughput(QStringLiteral("orders"));
    client.setSpec(specNamed("/specs/b.yaml"), m_conninfo);
    QCOMPARE(client.spec().path, std::string("/specs/b.yaml"));
    const quint64 fresh = client.history();
    QTRY_VERIFY_WITH_TIMEOUT(tokens(failed).contains(fresh), 20000);
    // A later request on the same client is answered after the stale ones' connections
    // failed the same way; by then they would have been emitted.
    const quint64 later = client.schemaVersions();
    QTRY_VERIFY_WITH_TIMEOUT(tokens(failed).contains(later), 20000);
    QTest::qWait(100);
    const QList<quint64> answered = tokens(failed);
    QVERIFY2(!answered.contains(old1) && !answered.contains(old2), "an answer from before setSpec() was emitted");
    QCOMPARE(answered.count(fresh), 1);
    QCOMPARE(answered.count(later), 1);
}

// Every client of the process shares one I/O thread; a client that goes while its answer is
// on its way leaves the others answering.
void TestEngineClient::oneIoThreadForEveryClient()
{
    const int before = threadsOfThisProcess();
    auto engine = std::make_unique<model::EngineClient>();
    model::WarehouseClient warehouse;
    model::WarehouseCatalogClient catalog;
    model::EngineClient second;
    QCOMPARE(threadsOfThisProcess(), before + 1);

    engine->setSpec(specNamed("/specs/a.yaml"), m_conninfo);
    second.setSpec(specNamed("/specs/a.yaml"), m_conninfo);
    QSignalSpy failed(&second, &model::EngineClient::failed);
    engine->history();
    const quint64 token = second.history();
    engine.reset();  // its answer is still on its way
    QVERIFY(failed.wait(10000));
    QCOMPARE(tokens(failed), QList<quint64>{token});
    QCOMPARE(threadsOfThisProcess(), before + 1);
}

QTEST_GUILESS_MAIN(TestEngineClient)
#include "tst_engineclient.moc"
