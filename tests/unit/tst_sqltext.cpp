// SQL text: named parameters, model references, identifier quoting.

#include "backfill/sqltext.h"

#include <QTest>

using namespace reprint::backfill;

namespace {

template <typename T>
std::string why(const reprint::warehouse::Result<T> &r)
{
    return r.ok() ? std::string() : r.error().message;
}

const std::vector<std::string> kBounds{"start", "end"};

} // namespace

class TestSqlText : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bind_data();
    void bind();
    void bindNumbering();
    void bindErrors_data();
    void bindErrors();
    void references();
    void referenceErrors_data();
    void referenceErrors();
    void quoting();
    void sourcePositions();
    void engineKinds();
};

void TestSqlText::bind_data()
{
    QTest::addColumn<QByteArray>("sql");
    QTest::addColumn<QByteArray>("expected");
    QTest::addColumn<QStringList>("names");

    QTest::newRow("bounds") << QByteArray("select * from t where d >= :start and d < :end")
                            << QByteArray("select * from t where d >= $1 and d < $2") << QStringList{"start", "end"};
    QTest::newRow("same name, same number")
        << QByteArray("select :end, :start, :end") << QByteArray("select $1, $2, $1") << QStringList{"end", "start"};
    QTest::newRow("none") << QByteArray("select 1") << QByteArray("select 1") << QStringList{};
    QTest::newRow("string literal") << QByteArray("select ':start', :end") << QByteArray("select ':start', $1")
                                    << QStringList{"end"};
    QTest::newRow("doubled quote in literal")
        << QByteArray("select 'it''s :start', :end") << QByteArray("select 'it''s :start', $1") << QStringList{"end"};
    QTest::newRow("E string with escaped quote")
        << QByteArray("select E'\\' :start', :end") << QByteArray("select E'\\' :start', $1") << QStringList{"end"};
    QTest::newRow("lower-case e string")
        << QByteArray("select e'a\\'b :start', :end") << QByteArray("select e'a\\'b :start', $1")
        << QStringList{"end"};
    QTest::newRow("backslash ends a standard string")
        << QByteArray("select 'C:\\', :end") << QByteArray("select 'C:\\', $1") << QStringList{"end"};
    QTest::newRow("identifier ending in e is not E''")
        << QByteArray("select type'x\\', :end") << QByteArray("select type'x\\', $1") << QStringList{"end"};
    QTest::newRow("quoted identifier")
        << QByteArray("select \":start\" from t where x < :end")
        << QByteArray("select \":start\" from t where x < $1") << QStringList{"end"};
    QTest::newRow("doubled quote in identifier")
        << QByteArray("select \"a\"\":start\", :end") << QByteArray("select \"a\"\":start\", $1")
        << QStringList{"end"};
    QTest::newRow("line comment") << QByteArray("select 1 -- :start and 'x\n, :end")
                                  << QByteArray("select 1 -- :start and 'x\n, $1") << QStringList{"end"};
    QTest::newRow("line comment at end") << QByteArray("select :end -- :start")
                                         << QByteArray("select $1 -- :start") << QStringList{"end"};
    QTest::newRow("block comment") << QByteArray("select /* :start */ :end")
                                   << QByteArray("select /* :start */ $1") << QStringList{"end"};
    QTest::newRow("nested block comment")
        << QByteArray("select /* a /* :start */ :nope ' */ :end") << QByteArray("select /* a /* :start */ :nope ' */ $1")
        << QStringList{"end"};
    QTest::newRow("dollar quote") << QByteArray("select $$ :start ' $$, :end")
                                  << QByteArray("select $$ :start ' $$, $1") << QStringList{"end"};
    QTest::newRow("tagged dollar quote")
        << QByteArray("select $fn$ :start $x$ $$ $fn$, :end") << QByteArray("select $fn$ :start $x$ $$ $fn$, $1")
        << QStringList{"end"};
    QTest::newRow("dollar inside an identifier")
        << QByteArray("select a$b$, :end, c$d$") << QByteArray("select a$b$, $1, c$d$") << QStringList{"end"};
    QTest::newRow("cast") << QByteArray("select a::date, b::timestamptz") << QByteArray("select a::date, b::timestamptz")
                          << QStringList{};
    QTest::newRow("placeholder then cast")
        << QByteArray("where d >= :start::timestamptz and d < :end::date")
        << QByteArray("where d >= $1::timestamptz and d < $2::date") << QStringList{"start", "end"};
    QTest::newRow("named argument :=") << QByteArray("select f(a := 1), :end") << QByteArray("select f(a := 1), $1")
                                       << QStringList{"end"};
    QTest::newRow("numeric slice") << QByteArray("select arr[1:2], arr[:3]") << QByteArray("select arr[1:2], arr[:3]")
                                   << QStringList{};
    QTest::newRow("spaced slice") << QByteArray("select arr[lo : hi]") << QByteArray("select arr[lo : hi]")
                                  << QStringList{};
    QTest::newRow("slice with a parameter") << QByteArray("select arr[1::int:2]") << QByteArray("select arr[1::int:2]")
                                            << QStringList{};
    QTest::newRow("placeholder touching a word")
        << QByteArray("select x||:start||y") << QByteArray("select x||$1||y") << QStringList{"start"};
    QTest::newRow("multiline")
        << QByteArray("select *\nfrom t\nwhere d >= :start\n  and d < :end\n")
        << QByteArray("select *\nfrom t\nwhere d >= $1\n  and d < $2\n") << QStringList{"start", "end"};
}

void TestSqlText::bind()
{
    QFETCH(QByteArray, sql);
    QFETCH(QByteArray, expected);
    QFETCH(QStringList, names);

    const auto bound = bindNamedParameters(sql.toStdString(), kBounds);
    QVERIFY2(bound.ok(), why(bound).c_str());
    QCOMPARE(QByteArray::fromStdString(bound->sql), expected);
    QStringList got;
    for (const std::string &n : bound->names)
        got << QString::fromStdString(n);
    QCOMPARE(got, names);
}

void TestSqlText::bindNumbering()
{
    const auto bound = bindNamedParameters("select $1, $2 where d >= :start and d < :end or e = :start", kBounds, 3);
    QVERIFY2(bound.ok(), why(bound).c_str());
    QCOMPARE(bound->sql, std::string("select $1, $2 where d >= $3 and d < $4 or e = $3"));
    QCOMPARE(bound->names, (std::vector<std::string>{"start", "end"}));
}

void TestSqlText::bindErrors_data()
{
    QTest::addColumn<QByteArray>("sql");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("position");

    const QString hint = " (expected :start, :end; write a :: cast or a spaced slice a[lo : hi] if no parameter was "
                         "meant)";
    QTest::newRow("unknown") << QByteArray("select :begin") << "1:8: unknown parameter :begin" + hint << 8;
    QTest::newRow("third line")
        << QByteArray("select *\nfrom t\nwhere d >= :stat") << "3:12: unknown parameter :stat" + hint << 28;
    QTest::newRow("unspaced identifier slice")
        << QByteArray("select arr[lo:hi]") << "1:14: unknown parameter :hi" + hint << 14;
    QTest::newRow("columns count characters")
        << QByteArray("select 'é', :nope") << "1:13: unknown parameter :nope" + hint << 13;
    QTest::newRow("after a comment")
        << QByteArray("/* :start */ select :x") << "1:21: unknown parameter :x" + hint << 21;
    QTest::newRow("unclosed literal")
        << QByteArray("select 1,\n  'abc") << QString("2:3: string literal is not closed (expected ')") << 13;
    QTest::newRow("unclosed E literal")
        << QByteArray("select E'abc\\'") << QString("1:9: string literal is not closed (expected ')") << 9;
    QTest::newRow("unclosed identifier")
        << QByteArray("select \"abc") << QString("1:8: quoted identifier is not closed (expected \")") << 8;
    QTest::newRow("unclosed comment")
        << QByteArray("select /* /* */ 1") << QString("1:8: block comment is not closed (expected */)") << 8;
    QTest::newRow("unclosed dollar quote")
        << QByteArray("select $body$ 1 $$") << QString("1:8: dollar-quoted text is not closed (expected $body$)")
        << 8;
}

void TestSqlText::bindErrors()
{
    QFETCH(QByteArray, sql);
    QFETCH(QString, message);
    QFETCH(int, position);

    const auto bound = bindNamedParameters(sql.toStdString(), kBounds);
    QVERIFY(!bound.ok());
    QCOMPARE(bound.error().kind, reprint::backfill::EngineKind::Spec);
    QCOMPARE(QString::fromStdString(bound.error().message), message);
    QCOMPARE(bound.error().position, position);
}

void TestSqlText::references()
{
    const std::map<std::string, std::string> relations{
        {"fct_order_lines", quoteRelation("analytics", "fct_order_lines")},
        {"raw", quoteRelation("raw", "order_lines")},
    };
    const auto r = resolveModelReferences("select * from {{ fct_order_lines }} f\n"
                                          "join {{raw}} r using (id) -- {{ not_resolved }}\n"
                                          "where f.note <> '{{ raw }}' and {{  raw\t}}.x = \"{{raw}}\"",
                                          relations);
    QVERIFY2(r.ok(), why(r).c_str());
    QCOMPARE(*r, std::string("select * from \"analytics\".\"fct_order_lines\" f\n"
                             "join \"raw\".\"order_lines\" r using (id) -- {{ not_resolved }}\n"
                             "where f.note <> '{{ raw }}' and \"raw\".\"order_lines\".x = \"{{raw}}\""));
    const auto plain = resolveModelReferences("select 1", {});
    QVERIFY(plain.ok());
    QCOMPARE(*plain, std::string("select 1"));
}

void TestSqlText::referenceErrors_data()
{
    QTest::addColumn<QByteArray>("sql");
    QTest::addColumn<QString>("message");

    QTest::newRow("unknown") << QByteArray("select *\nfrom {{ nope }}")
                             << "2:6: unknown model reference {{ nope }} (known models: a, b)";
    QTest::newRow("unclosed") << QByteArray("select * from {{ a }")
                              << "1:15: malformed model reference (expected {{ model_name }})";
    QTest::newRow("empty") << QByteArray("select * from {{}}")
                           << "1:15: malformed model reference (expected {{ model_name }})";
    QTest::newRow("dotted") << QByteArray("select * from {{ a.b }}")
                            << "1:15: malformed model reference (expected {{ model_name }})";
    QTest::newRow("unclosed literal") << QByteArray("select '{{ a }}") << "1:8: string literal is not closed (expected ')";
}

void TestSqlText::referenceErrors()
{
    QFETCH(QByteArray, sql);
    QFETCH(QString, message);
    const std::map<std::string, std::string> relations{{"a", "\"s\".\"a\""}, {"b", "\"s\".\"b\""}};
    const auto r = resolveModelReferences(sql.toStdString(), relations);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().kind, reprint::backfill::EngineKind::Spec);
    QCOMPARE(QString::fromStdString(r.error().message), message);
}

void TestSqlText::quoting()
{
    QCOMPARE(quoteIdentifier("order_date"), std::string("\"order_date\""));
    QCOMPARE(quoteIdentifier("Order Date"), std::string("\"Order Date\""));
    QCOMPARE(quoteIdentifier("a\"b"), std::string("\"a\"\"b\""));
    QCOMPARE(quoteIdentifier("\""), std::string("\"\"\"\""));
    QCOMPARE(quoteIdentifier(""), std::string("\"\""));
    QCOMPARE(quoteRelation("analytics", "fct_order_lines"), std::string("\"analytics\".\"fct_order_lines\""));
    QCOMPARE(quoteRelation("analytics", "x; drop table t"), std::string("\"analytics\".\"x; drop table t\""));
    QCOMPARE(quoteRelation("a\"; drop schema s; --", "t"), std::string("\"a\"\"; drop schema s; --\".\"t\""));
    QCOMPARE(quoteLiteral("2026-03-10"), std::string("'2026-03-10'"));
    QCOMPARE(quoteLiteral("it's'; drop table t; --"), std::string("'it''s''; drop table t; --'"));
    QCOMPARE(quoteLiteral(""), std::string("''"));
}

// A server's error position in the statement the engine sent maps back to the line and
// column of the transform's file, across :start -> $n and {{ model }} -> a relation, and
// is nothing when it falls in the engine's own SQL around the transform.
void TestSqlText::sourcePositions()
{
    const std::string written = "SELECT l.id, 'é' AS e\nFROM {{ up }} AS l\n  WHERE l.d >= :start AND l.d < :end::date\n"
                                "  GRUOP BY 1;\n";
    const auto resolved = resolveModelReferences(written, {{"up", quoteRelation("a\"b", "t")}});
    QVERIFY(resolved.ok());
    const auto bound = bindNamedParameters(*resolved, kBounds);
    QVERIFY(bound.ok());
    const std::string prefix = "INSERT INTO s SELECT * FROM (\n";
    const std::string statement = prefix + bound->sql + "\n) AS t";
    // The server counts characters: 'é' is one, two bytes.
    const auto charAt = [&](const std::string &needle) {
        const std::size_t byte = statement.find(needle);
        int chars = 0;
        for (std::size_t k = 0; k < byte; ++k)
            chars += (static_cast<unsigned char>(statement[k]) & 0xC0) != 0x80;
        return chars + 1;
    };
    const auto at = [&](int position) {
        const auto p = sourcePositionOf(written, statement, prefix.size(), position);
        return p ? std::to_string(p->line) + ":" + std::to_string(p->column) : std::string("none");
    };
    QCOMPARE(at(charAt("GRUOP")), std::string("4:3"));
    QCOMPARE(at(charAt("AS l")), std::string("2:15"));
    QCOMPARE(at(charAt("AND l.d")), std::string("3:23"));
    QCOMPARE(at(charAt("::date")), std::string("3:37"));
    QCOMPARE(at(charAt("AS e")), std::string("1:18"));
    QCOMPARE(at(charAt("$2") + 1), std::string("3:33"));  // inside a placeholder: where it starts
    QCOMPARE(at(charAt(".\"t\"")), std::string("2:6"));            // inside a relation: the reference
    QCOMPARE(at(charAt("INTO s")), std::string("none"));
    QCOMPARE(at(charAt(") AS t")), std::string("none"));
    QCOMPARE(at(0), std::string("none"));

    reprint::warehouse::Error e;
    e.message = "syntax error at or near \"GRUOP\"";
    e.position = charAt("GRUOP");
    QCOMPARE(inSourceFile(e, "transforms/x.sql", written, statement, prefix.size()).message,
             std::string("transforms/x.sql line 4, column 3: syntax error at or near \"GRUOP\""));
    QCOMPARE(inSourceFile(e, "transforms/x.sql", written, statement, std::string::npos).message, e.message);
}

// The engine's kinds (backfill/errors.h) sit above the warehouse's: distinct from every kind
// the warehouse makes, named by the engine, and unknown ("other") to the warehouse layer.
void TestSqlText::engineKinds()
{
    using reprint::warehouse::ErrorKind;
    const ErrorKind engine[] = {EngineKind::Conflict, EngineKind::Spec, EngineKind::Validation, EngineKind::Drift};
    const char *names[] = {"conflict", "spec", "validation", "drift"};
    for (std::size_t i = 0; i < 4; ++i) {
        QVERIFY(int(engine[i]) >= int(ErrorKind::LayerAbove));
        QCOMPARE(std::string(kindName(engine[i])), std::string(names[i]));
        QCOMPARE(std::string(reprint::warehouse::toString(engine[i])), std::string("other"));
        for (std::size_t j = 0; j < i; ++j)
            QVERIFY(engine[i] != engine[j]);
    }
    // Every kind the warehouse classifies a SQLSTATE as keeps its own name.
    for (const char *state : {"40001", "40P01", "55P03", "08006", "42601", "23505", "57014", "XX000"}) {
        const ErrorKind k = reprint::warehouse::Error::classify(state);
        QVERIFY2(int(k) < int(ErrorKind::LayerAbove), state);
        QCOMPARE(std::string(kindName(k)), std::string(reprint::warehouse::toString(k)));
    }
    // Trying again later can work after another's claim, as after a rolled-back transaction;
    // the warehouse alone knows only the latter.
    QVERIFY(reprint::backfill::isConcurrencyConflict(EngineKind::Conflict));
    QVERIFY(!reprint::warehouse::isConcurrencyConflict(EngineKind::Conflict));
    QVERIFY(reprint::backfill::isConcurrencyConflict(ErrorKind::LockNotAvailable));
    QVERIFY(!reprint::backfill::isConcurrencyConflict(EngineKind::Drift));
}

QTEST_GUILESS_MAIN(TestSqlText)
#include "tst_sqltext.moc"
