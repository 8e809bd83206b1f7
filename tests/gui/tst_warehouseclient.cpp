// WarehouseClient against the shared demo cluster: tokens, exact values, errors as
// values, stale answers dropped, cancel, and no password in any signal.
#include "testsupport.h"
#include "warehouseclient.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>

using reprint::model::DatabaseError;
using reprint::model::QueryResult;
using reprint::model::WarehouseClient;

namespace {

const QString kPassword = QStringLiteral("hunter2");

QString conninfo()
{
    return QString::fromStdString(reprint::test::demoCluster().conninfo("postgres"));
}

// Whether a backend is running exactly `sql` now (asked on a connection of its own).
bool isRunning(const QString &sql)
{
    auto r = reprint::test::query(reprint::test::demoCluster().conninfo("postgres"),
                                  "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query = $1",
                                  {sql.toStdString()});
    return r && r->last().scalar() != "0";
}

quint64 tokenOf(const QList<QVariant> &signal)
{
    return signal.at(0).value<quint64>();
}

DatabaseError errorOf(const QList<QVariant> &signal)
{
    return signal.at(1).value<DatabaseError>();
}

QString everyText(const DatabaseError &e)
{
    return e.kindName() + e.sqlstate + e.message + e.detail + e.hint + e.sentence();
}

} // namespace

class WarehouseClientTest : public QObject {
    Q_OBJECT

private:
    // An open client, or nullptr after a test failure.
    std::unique_ptr<WarehouseClient> openClient()
    {
        auto client = std::make_unique<WarehouseClient>();
        QSignalSpy opened(client.get(), &WarehouseClient::opened);
        QSignalSpy failed(client.get(), &WarehouseClient::failed);
        const quint64 token = client->open(conninfo());
        if (!QTest::qWaitFor([&] { return opened.count() + failed.count() > 0; }, 10000) || opened.count() != 1
            || tokenOf(opened.first()) != token) {
            if (!failed.isEmpty())
                qWarning("open failed: %s", qPrintable(errorOf(failed.first()).sentence()));
            return nullptr;
        }
        return client;
    }

private Q_SLOTS:
    void opensAndDescribesTheConnection()
    {
        WarehouseClient client;
        QSignalSpy opened(&client, &WarehouseClient::opened);
        QSignalSpy failed(&client, &WarehouseClient::failed);
        QVERIFY(!client.isOpen());
        const quint64 token = client.open(conninfo());
        QVERIFY(token > 0);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(tokenOf(opened.first()), token);
        const QString description = opened.first().at(1).toString();
        QVERIFY2(description.contains(QStringLiteral("@postgres")), qPrintable(description));
        QVERIFY(client.isOpen());
        QCOMPARE(client.description(), description);
    }

    void queryReturnsExactValues()
    {
        auto client = openClient();
        QVERIFY(client);
        QSignalSpy finished(client.get(), &WarehouseClient::queryFinished);
        QSignalSpy failed(client.get(), &WarehouseClient::failed);
        const QString text = QStringLiteral("héllo 'quoted' \"x\" ; DROP TABLE nothing");
        const quint64 token = client->query(
            QStringLiteral("SELECT $1::int + 1 AS n, $2::text AS t, $3::text IS NULL AS was_null, "
                           "NULL::text AS z, ''::text AS e, 1.50::numeric(6,3) AS d"),
            {QStringLiteral("41"), text, QString()});
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(tokenOf(finished.first()), token);
        const auto result = finished.first().at(1).value<QueryResult>();
        QCOMPARE(result.columns, (QStringList{QStringLiteral("n"), QStringLiteral("t"), QStringLiteral("was_null"),
                                              QStringLiteral("z"), QStringLiteral("e"), QStringLiteral("d")}));
        QCOMPARE(result.rows.size(), 1);
        const QStringList row = result.rows.first();
        QCOMPARE(row.at(0), QStringLiteral("42"));
        QCOMPARE(row.at(1), text);
        QCOMPARE(row.at(2), QStringLiteral("t"));
        QVERIFY(row.at(3).isNull());
        QVERIFY(!row.at(4).isNull());
        QVERIFY(row.at(4).isEmpty());
        QCOMPARE(row.at(5), QStringLiteral("1.500"));
        QCOMPARE(result.commandTag, QStringLiteral("SELECT 1"));
    }

    void answersComeInRequestOrder()
    {
        auto client = openClient();
        QVERIFY(client);
        QSignalSpy finished(client.get(), &WarehouseClient::queryFinished);
        QList<quint64> tokens;
        for (int i = 0; i < 5; ++i)
            tokens << client->query(QStringLiteral("SELECT $1::int * 10"), {QString::number(i)});
        QTRY_COMPARE(finished.count(), 5);
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(tokenOf(finished.at(i)), tokens.at(i));
            QCOMPARE(finished.at(i).at(1).value<QueryResult>().rows.first().first(), QString::number(i * 10));
        }
    }

    void syntaxErrorArrivesAsFailed()
    {
        auto client = openClient();
        QVERIFY(client);
        QSignalSpy finished(client.get(), &WarehouseClient::queryFinished);
        QSignalSpy failed(client.get(), &WarehouseClient::failed);
        const quint64 bad = client->query(QStringLiteral("SELEC 1"));
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(tokenOf(failed.first()), bad);
        const DatabaseError e = errorOf(failed.first());
        QCOMPARE(e.sqlstate, QStringLiteral("42601"));
        QCOMPARE(e.kind, reprint::warehouse::ErrorKind::Syntax);
        QVERIFY2(e.message.contains(QStringLiteral("SELEC")), qPrintable(e.message));
        QVERIFY(e.sentence().endsWith(QLatin1Char('.')));

        // The connection is still usable.
        const quint64 good = client->query(QStringLiteral("SELECT 1"));
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(tokenOf(finished.first()), good);
        QCOMPARE(failed.count(), 1);
    }

    void staleAnswersOnAChannelAreDropped()
    {
        auto client = openClient();
        QVERIFY(client);
        QSignalSpy finished(client.get(), &WarehouseClient::queryFinished);
        QSignalSpy failed(client.get(), &WarehouseClient::failed);
        const QString channel = QStringLiteral("calendar");

        // The first request is running on the server when the second replaces it.
        const QString slow = QStringLiteral("SELECT pg_sleep(0.5), 'old' AS v");
        const quint64 running = client->query(slow, {}, channel);
        QTRY_VERIFY_WITH_TIMEOUT(isRunning(slow), 5000);
        // The second is queued behind it, and replaced before it starts.
        const quint64 queued = client->query(QStringLiteral("SELECT 'queued' AS v"), {}, channel);
        const quint64 newest = client->query(QStringLiteral("SELECT 'new' AS v"), {}, channel);
        // Another channel is not affected; a request without a channel neither.
        const quint64 other = client->query(QStringLiteral("SELECT 'other' AS v"), {}, QStringLiteral("review"));
        const quint64 last = client->query(QStringLiteral("SELECT 'last' AS v"));

        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() && tokenOf(finished.last()) == last, 10000);
        QList<quint64> answered;
        for (const auto &signal : finished)
            answered << tokenOf(signal);
        QCOMPARE(answered, (QList<quint64>{newest, other, last}));
        QVERIFY(!answered.contains(running));
        QVERIFY(!answered.contains(queued));
        QCOMPARE(finished.first().at(1).value<QueryResult>().rows.first().first(), QStringLiteral("new"));
        QCOMPARE(failed.count(), 0);
    }

    void cancelStopsTheRunningQuery()
    {
        auto client = openClient();
        QVERIFY(client);
        QSignalSpy finished(client.get(), &WarehouseClient::queryFinished);
        QSignalSpy failed(client.get(), &WarehouseClient::failed);
        QSignalSpy cancelFailed(client.get(), &WarehouseClient::cancelFailed);

        const QString sleep = QStringLiteral("SELECT pg_sleep(30)");
        const quint64 sleeping = client->query(sleep);
        const quint64 waiting = client->query(QStringLiteral("SELECT 1"));
        QTRY_VERIFY_WITH_TIMEOUT(isRunning(sleep), 5000);
        client->cancel();

        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 5000);
        QCOMPARE(finished.count(), 0);
        QCOMPARE(cancelFailed.count(), 0);
        QSet<quint64> cancelled;
        for (const auto &signal : failed) {
            QCOMPARE(errorOf(signal).kind, reprint::warehouse::ErrorKind::Cancelled);
            cancelled << tokenOf(signal);
        }
        QCOMPARE(cancelled, (QSet<quint64>{sleeping, waiting}));
        const auto sleepError = std::find_if(failed.cbegin(), failed.cend(),
                                             [&](const auto &s) { return tokenOf(s) == sleeping; });
        QCOMPARE(errorOf(*sleepError).sqlstate, QStringLiteral("57014"));

        // Nothing is left running, and the connection works after a cancel.
        QVERIFY(!isRunning(sleep));
        const quint64 after = client->query(QStringLiteral("SELECT 'after'"));
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(tokenOf(finished.first()), after);
    }

    void noticesArrive()
    {
        auto client = openClient();
        QVERIFY(client);
        QSignalSpy notices(client.get(), &WarehouseClient::noticeReceived);
        QSignalSpy finished(client.get(), &WarehouseClient::queryFinished);
        client->query(QStringLiteral("DO $$BEGIN RAISE NOTICE 'partition % staged', 42; END$$"));
        QTRY_COMPARE(finished.count(), 1);
        QTRY_COMPARE(notices.count(), 1);
        QCOMPARE(notices.first().at(0).toString(), QStringLiteral("NOTICE"));
        QCOMPARE(notices.first().at(1).toString(), QStringLiteral("partition 42 staged"));
    }

    void queryWithoutConnectionFails()
    {
        WarehouseClient client;
        QSignalSpy failed(&client, &WarehouseClient::failed);
        const quint64 token = client.query(QStringLiteral("SELECT 1"));
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(tokenOf(failed.first()), token);
        QCOMPARE(errorOf(failed.first()).kind, reprint::warehouse::ErrorKind::Connection);
    }

    void missingSocketFailsWithoutThePassword()
    {
        WarehouseClient client;
        QSignalSpy opened(&client, &WarehouseClient::opened);
        QSignalSpy failed(&client, &WarehouseClient::failed);
        const quint64 token =
            client.open(QStringLiteral("host=/nonexistent-reprint-socket user=alice password=hunter2 dbname=shop"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        QCOMPARE(opened.count(), 0);
        QCOMPARE(tokenOf(failed.first()), token);
        const DatabaseError e = errorOf(failed.first());
        QCOMPARE(e.kind, reprint::warehouse::ErrorKind::Connection);
        QVERIFY2(e.message.contains(QStringLiteral("/nonexistent-reprint-socket")), qPrintable(e.message));
        QVERIFY(!e.hint.isEmpty());
        QVERIFY2(!everyText(e).contains(kPassword), qPrintable(everyText(e)));
        QVERIFY(!client.isOpen());
    }

    void unknownRoleIsRefusedWithoutThePassword()
    {
        WarehouseClient client;
        QSignalSpy failed(&client, &WarehouseClient::failed);
        client.open(conninfo() + QStringLiteral(" user=reprint_no_such_role password=hunter2"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        const DatabaseError e = errorOf(failed.first());
        QVERIFY2(e.kind == reprint::warehouse::ErrorKind::Permission || e.kind == reprint::warehouse::ErrorKind::Connection, qPrintable(e.kindName()));
        QVERIFY2(e.message.contains(QStringLiteral("reprint_no_such_role")), qPrintable(e.message));
        QVERIFY2(!everyText(e).contains(kPassword), qPrintable(everyText(e)));
    }

    void passwordInAUriIsScrubbed()
    {
        QCOMPARE(WarehouseClient::displayConninfo(QStringLiteral("postgresql://alice:hunter2@db.example/shop")),
                 QStringLiteral("postgresql://alice@db.example/shop"));
        QCOMPARE(WarehouseClient::displayConninfo(QStringLiteral("host=db user=alice password='hunter2' dbname=shop")),
                 QStringLiteral("host=db user=alice dbname=shop"));

        WarehouseClient client;
        QSignalSpy failed(&client, &WarehouseClient::failed);
        client.open(QStringLiteral("postgresql://alice:hunter2@%2Fnonexistent-reprint-socket/shop"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        const DatabaseError e = errorOf(failed.first());
        QVERIFY2(!everyText(e).contains(kPassword), qPrintable(everyText(e)));
    }

    void reopenReplacesTheConnection()
    {
        auto client = openClient();
        QVERIFY(client);
        QSignalSpy opened(client.get(), &WarehouseClient::opened);
        QSignalSpy finished(client.get(), &WarehouseClient::queryFinished);
        const quint64 before = client->query(QStringLiteral("SELECT pg_backend_pid()"));
        client->open(conninfo());
        const quint64 after = client->query(QStringLiteral("SELECT pg_backend_pid()"));
        QTRY_COMPARE(finished.count(), 2);
        QCOMPARE(opened.count(), 1);
        QCOMPARE(tokenOf(finished.at(0)), before);
        QCOMPARE(tokenOf(finished.at(1)), after);
        QVERIFY(finished.at(0).at(1).value<QueryResult>().rows != finished.at(1).at(1).value<QueryResult>().rows);
    }

    void destroyingWithAQueryRunningReturns()
    {
        auto client = openClient();
        QVERIFY(client);
        const QString sleep = QStringLiteral("SELECT pg_sleep(3)");
        client->query(sleep);
        QTRY_VERIFY_WITH_TIMEOUT(isRunning(sleep), 5000);
        client.reset();
        QVERIFY(!client);
    }
};

QTEST_GUILESS_MAIN(WarehouseClientTest)
#include "tst_warehouseclient.moc"
