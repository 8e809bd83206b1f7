// Least privilege (issue 13 item 10), through the `reprint` CLI on copies of the demo
// warehouse: a role holding exactly the grants of docs/privileges.md (its SQL block, run
// as written) stages, publishes and undoes; a role lacking any one of them is told its
// name, the step and the GRANT that gives it, exits 2, and the warehouse is as it was;
// the printed GRANT is the one that was missing (the command then succeeds).
#include "backfillfixture.h"

#include <QRegularExpression>

using namespace reprint;
using namespace reprint::test;
using warehouse::args;

namespace {

// The SQL block of docs/privileges.md, for role `role` instead of reprint_operator.
QString documentedGrants(const QString &role)
{
    QFile f(QStringLiteral(REPRINT_DOCS_DIR "/privileges.md"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QString text = QString::fromUtf8(f.readAll());
    const auto m = QRegularExpression(QStringLiteral("```sql\n(.*?)```"), QRegularExpression::DotMatchesEverythingOption).match(text);
    QString sql = m.hasMatch() ? m.captured(1) : QString();
    sql.replace(QStringLiteral("reprint_operator"), role);
    return sql;
}

// A copy of the demo database `name` and a login role `name`_op holding exactly the
// documented grants there. Returns the role's conninfo (the admin's is test::demoCopy's).
struct Operator {
    std::string admin;  // the copy, as the demo's superuser
    std::string conninfo;
    std::string role;
};

Operator operatorOn(const std::string &name)
{
    Operator op;
    op.admin = test::demoCopy(name);
    op.role = name + "_op";
    op.conninfo = op.admin + " user=" + op.role;
    // Roles are the cluster's, not the copy's: made once, granted to in every fresh copy.
    auto made = test::execute(op.admin, "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + op.role
                                            + "') THEN CREATE ROLE " + op.role + " LOGIN; END IF; END$$");
    if (!made)
        qWarning("role: %s", made.error().toSentence().c_str());
    const QString grants = documentedGrants(QString::fromStdString(op.role));
    auto granted = test::execute(op.admin, grants.toStdString());
    if (grants.isEmpty() || !granted)
        qWarning("grants: %s", granted ? "docs/privileges.md has no ```sql block" : granted.error().toSentence().c_str());
    return op;
}

ProcessResult as(const Operator &op, const QString &command, const QStringList &more = {})
{
    return test::runReprint(base(command, op.conninfo) << more);
}

ProcessResult backfill(const Operator &op)
{
    return as(op, QStringLiteral("backfill"),
              {QStringLiteral("--model"), QStringLiteral("fct_order_lines"), QStringLiteral("--from"), QStringLiteral("2026-03-09"),
               QStringLiteral("--to"), QStringLiteral("2026-03-14")});
}

ProcessResult publish(const Operator &op, long long id)
{
    return as(op, QStringLiteral("publish"), {QString::number(id), QStringLiteral("--approve"), QStringLiteral("matches raw")});
}

ProcessResult undo(const Operator &op, long long id)
{
    return as(op, QStringLiteral("undo"), {QString::number(id)});
}

// Reprint's state and the stages and archives, by independent SQL: what "nothing changed" compares.
std::string reprintState(const std::string &db)
{
    return scalar(db, "SELECT (SELECT coalesce(string_agg(id || ' ' || status, ', ' ORDER BY id), '') FROM reprint.backfills) || ' | ' "
                      "|| (SELECT count(*) FROM reprint.claims) || ' claims | ' "
                      "|| (SELECT count(*) FROM reprint.audit) || ' audit | ' "
                      "|| (SELECT count(*) FROM pg_class WHERE relnamespace = 'reprint_staging'::regnamespace AND relkind = 'r') "
                      "|| ' staged | ' || (SELECT count(*) FROM pg_class WHERE relnamespace = 'reprint_archive'::regnamespace) || ' archived'");
}

} // namespace

class TestPrivileges : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(demoSpec()), "the demo fixture did not write its spec");
        QVERIFY2(documentedGrants(QStringLiteral("x")).contains(QStringLiteral("GRANT USAGE, CREATE ON SCHEMA reprint_staging")),
                 "docs/privileges.md lost its grants");
    }

    // Exactly the documented grants: stage, publish (the demo's `publish: auto` replaces, as
    // the role may not swap) and undo, each recorded under the role's name, with the window
    // right after publish and every day as it was after undo.
    void documentedGrantsStagePublishAndUndo()
    {
        const Operator op = operatorOn("priv_full");
        const auto before = dayHashes(op.admin);
        QCOMPARE(scalar(op.admin, "SELECT has_schema_privilege('" + op.role + "', 'reprint_staging', 'CREATE')::text"), std::string("true"));
        QCOMPARE(scalar(op.admin, "SELECT has_table_privilege('" + op.role + "', 'analytics.fct_order_lines', 'UPDATE')::text"),
                 std::string("false"));

        auto bf = backfill(op);
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        const long long id = backfillIdFrom(bf);
        QVERIFY(id > 0);
        auto pub = as(op, QStringLiteral("publish"),
                      {QString::number(id), QStringLiteral("--approve"), QStringLiteral("matches raw"), QStringLiteral("--format"),
                       QStringLiteral("json")});
        QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        QCOMPARE(json(pub).value(QStringLiteral("strategy")).toString(), QStringLiteral("replace"));
        const std::string truth = truthPerDay(op.admin);
        const std::string target = targetPerDay(op.admin);
        for (const char *day : {"2026-03-09", "2026-03-12", "2026-03-14"}) {
            const auto line = [&](const std::string &all) {
                const auto at = all.find(day);
                return at == std::string::npos ? std::string() : all.substr(at, all.find('\n', at) - at);
            };
            QCOMPARE(line(target), line(truth));
        }
        QCOMPARE(scalar(op.admin, "SELECT operator || ' ' || approver FROM reprint.backfills WHERE id = $1", args(std::to_string(id))),
                 op.role + " " + op.role);

        auto back = undo(op, id);
        QVERIFY2(back.exitCode == 0, qPrintable(back.err));
        QVERIFY(dayHashes(op.admin) == before);
        QCOMPARE(scalar(op.admin, "SELECT status FROM reprint.backfills WHERE id = $1", args(std::to_string(id))), std::string("undone"));
        qInfo("role %s with the documented grants only: staged, published (replace), undone", op.role.c_str());
    }

    // `publish: swap` needs the target's owner: the documented role is refused, says why,
    // and nothing is published (`auto` replaces instead, above).
    void swapNeedsTheTargetsOwner()
    {
        const Operator op = operatorOn("priv_swap");
        QTemporaryDir dir;
        const QString spec = specPublishing(dir, QStringLiteral("swap"));
        auto bf = test::runReprint(base(QStringLiteral("backfill"), op.conninfo, spec)
                                   << QStringLiteral("--model") << QStringLiteral("fct_order_lines") << QStringLiteral("--from")
                                   << QStringLiteral("2026-03-09") << QStringLiteral("--to") << QStringLiteral("2026-03-14"));
        QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
        const long long id = backfillIdFrom(bf);
        const auto days = dayHashes(op.admin);
        const std::string state = reprintState(op.admin);
        auto pub = test::runReprint(base(QStringLiteral("publish"), op.conninfo, spec)
                                    << QString::number(id) << QStringLiteral("--approve") << QStringLiteral("x"));
        QCOMPARE(pub.exitCode, 1);
        QVERIFY2(pub.err.contains(QStringLiteral("asks for `publish: swap`, but role %1 may not swap partitions of "
                                                 "\"analytics\".\"fct_order_lines\" (only their owner may")
                                      .arg(QString::fromStdString(op.role))),
                 qPrintable(pub.err));
        QVERIFY2(pub.err.contains(QStringLiteral("nothing was published")), qPrintable(pub.err));
        QVERIFY(dayHashes(op.admin) == days);
        QCOMPARE(reprintState(op.admin), state);
    }

    // One documented grant taken away before the command that needs it.
    void lackingOneGrantIsNamed_data()
    {
        QTest::addColumn<QString>("revoke");   // what is taken away (SQL, ROLE for the role)
        QTest::addColumn<QString>("command");  // backfill, publish or undo: where it must fail
        QTest::addColumn<QString>("lacks");    // the message's "role ROLE lacks ..., which the STEP step needs"
        QTest::addColumn<QString>("grant");    // the GRANT the hint must print

        QTest::newRow("schema reprint") << "REVOKE USAGE ON SCHEMA reprint FROM ROLE" << "backfill"
                                        << "role ROLE lacks USAGE on schema reprint, which the open step needs"
                                        << "GRANT USAGE ON SCHEMA reprint TO ROLE;";
        QTest::newRow("reprint_staging") << "REVOKE CREATE ON SCHEMA reprint_staging FROM ROLE" << "backfill"
                                         << "role ROLE lacks CREATE on schema reprint_staging, which the claim step needs"
                                         << "GRANT CREATE ON SCHEMA reprint_staging TO ROLE;";
        QTest::newRow("a source") << "REVOKE SELECT ON raw.orders FROM ROLE" << "backfill"
                                  << "role ROLE lacks SELECT on table raw.orders, which the stage step needs (the transform reads it)"
                                  << "GRANT SELECT ON TABLE raw.orders TO ROLE;";
        QTest::newRow("the review") << "REVOKE INSERT ON reprint.partition_totals FROM ROLE" << "backfill"
                                    << "role ROLE lacks INSERT on table reprint.partition_totals, which the validate step needs"
                                    << "GRANT INSERT ON TABLE reprint.partition_totals TO ROLE;";
        QTest::newRow("the target") << "REVOKE DELETE ON analytics.fct_order_lines FROM ROLE" << "publish"
                                    << "role ROLE lacks DELETE on table analytics.fct_order_lines, which the publish step needs"
                                    << "GRANT DELETE ON TABLE analytics.fct_order_lines TO ROLE;";
        QTest::newRow("reprint_archive") << "REVOKE CREATE ON SCHEMA reprint_archive FROM ROLE" << "publish"
                                         << "role ROLE lacks CREATE on schema reprint_archive, which the publish step needs"
                                         << "GRANT CREATE ON SCHEMA reprint_archive TO ROLE;";
        QTest::newRow("the audit") << "REVOKE INSERT ON reprint.audit FROM ROLE" << "publish"
                                   << "role ROLE lacks INSERT on table reprint.audit, which the publish step needs"
                                   << "GRANT INSERT ON TABLE reprint.audit TO ROLE;";
        QTest::newRow("undo") << "REVOKE INSERT ON analytics.fct_order_lines FROM ROLE" << "undo"
                              << "role ROLE lacks INSERT on table analytics.fct_order_lines, which the undo step needs"
                              << "GRANT INSERT ON TABLE analytics.fct_order_lines TO ROLE;";
    }

    void lackingOneGrantIsNamed()
    {
        QFETCH(QString, revoke);
        QFETCH(QString, command);
        QFETCH(QString, lacks);
        QFETCH(QString, grant);
        const std::string tag = QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_')).toStdString();
        const Operator op = operatorOn("priv_" + tag);
        const QString role = QString::fromStdString(op.role);
        revoke.replace(QStringLiteral("ROLE"), role);
        lacks.replace(QStringLiteral("ROLE"), role);
        grant.replace(QStringLiteral("ROLE"), role);

        long long id = 0;
        if (command != QLatin1String("backfill")) {
            auto bf = backfill(op);
            QVERIFY2(bf.exitCode == 0, qPrintable(bf.err));
            id = backfillIdFrom(bf);
        }
        if (command == QLatin1String("undo")) {
            auto pub = publish(op, id);
            QVERIFY2(pub.exitCode == 0, qPrintable(pub.err));
        }
        const auto days = dayHashes(op.admin);
        const std::string state = reprintState(op.admin);
        QVERIFY(test::execute(op.admin, revoke.toStdString()).ok());

        const auto run = [&] {
            return command == QLatin1String("backfill") ? backfill(op) : command == QLatin1String("publish") ? publish(op, id) : undo(op, id);
        };
        auto denied = run();
        QVERIFY2(denied.exitCode == 2, qPrintable(denied.err));
        QVERIFY2(denied.err.contains(QStringLiteral("permission denied for ")), qPrintable(denied.err));
        QVERIFY2(denied.err.contains(lacks), qPrintable(denied.err));
        QVERIFY2(denied.err.contains(grant), qPrintable(denied.err));
        QVERIFY2(denied.err.contains(QStringLiteral("docs/privileges.md")), qPrintable(denied.err));
        QVERIFY(dayHashes(op.admin) == days);
        if (command == QLatin1String("backfill") && tag != "a_source" && tag != "the_review") {
            QCOMPARE(reprintState(op.admin), state);  // refused before anything was recorded
        } else if (command == QLatin1String("backfill")) {
            // Refused after the claim: the backfill is failed with its error and its claim let go.
            QCOMPARE(scalar(op.admin, "SELECT status FROM reprint.backfills"), std::string("failed"));
            QVERIFY(scalar(op.admin, "SELECT coalesce(error, '') FROM reprint.backfills").find("permission denied") != std::string::npos);
            QCOMPARE(scalar(op.admin, "SELECT count(*) FROM reprint.claims WHERE lease_expires > now()"), std::string("0"));
        } else {
            QCOMPARE(reprintState(op.admin), state);  // the publish or undo rolled back whole
        }

        // The GRANT as printed is what was missing: with it, the command goes through.
        QStringList grants;
        for (auto it = QRegularExpression(QStringLiteral("GRANT [^;]+;")).globalMatch(denied.err); it.hasNext();)
            grants << it.next().captured(0);
        QCOMPARE(grants, QStringList{grant});
        QVERIFY(test::execute(op.admin, grants.join(QLatin1Char(' ')).toStdString()).ok());
        if (command == QLatin1String("backfill") && (tag == "a_source" || tag == "the_review")) {
            auto resumed = as(op, QStringLiteral("backfill"), {QStringLiteral("--resume"), QStringLiteral("1"), QStringLiteral("--retry-failed")});
            QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        } else {
            auto again = run();
            QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        }
        qInfo("%s", qPrintable(denied.err.section(QLatin1Char('\n'), 0, 0)));
    }
};

QTEST_GUILESS_MAIN(TestPrivileges)
#include "tst_privileges.moc"
