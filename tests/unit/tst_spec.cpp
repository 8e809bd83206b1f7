// loadSpec(): a valid spec in full, and every kind of error with its file:line:col.

#include "backfill/spec.h"
#include "backfill/sqltext.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace reprint::backfill;

namespace {

template <typename T>
std::string why(const reprint::warehouse::Result<T> &r)
{
    return r.ok() ? std::string() : r.error().message;
}

// A private directory holding a spec and the SQL files it names.
class SpecDir {
public:
    SpecDir()
    {
        write("t.sql", "select 1 as id where :start::timestamptz < :end\n");
        write("empty.sql", "  \n");
        write("checks/rows.sql", "select :start::timestamptz as partition, 1 as value\n");
        QDir(m_dir.path()).mkpath("transforms");
    }

    QString root() const { return m_dir.path(); }
    QString file(const QString &relative) const { return QDir(m_dir.path()).filePath(relative); }

    void write(const QString &relative, const QByteArray &text) const
    {
        const QString path = file(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            qFatal("cannot write %s", qPrintable(path));
        f.write(text);
    }

    std::string spec(const QByteArray &yaml, const QString &name = "demo.yaml") const
    {
        write(name, yaml);
        return file(name).toStdString();
    }

private:
    QTemporaryDir m_dir;
};

const QByteArray kBase = "models:\n"
                         "  - name: fct\n"
                         "    target: analytics.fct\n"
                         "    partition: { column: order_date, grain: day }\n"
                         "    key: [id]\n"
                         "    transform: t.sql\n";

QByteArray withLine(int line, const QByteArray &text)
{
    QList<QByteArray> lines = kBase.split('\n');
    lines[line - 1] = text;
    return lines.join('\n');
}

QByteArray without(int line)
{
    QList<QByteArray> lines = kBase.split('\n');
    lines.removeAt(line - 1);
    return lines.join('\n');
}

const QByteArray kCheck = "    measures: [revenue]\n"
                          "    checks:\n"
                          "      - name: qty\n"
                          "        measure: revenue\n"
                          "        source: checks/rows.sql\n";

} // namespace

class TestSpec : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void validSpec();
    void defaults();
    void hostileTarget();
    void targetNames_data();
    void targetNames();
    void errors_data();
    void errors();
    void closedQuotesAreNoError();
    void pathAsGiven();
    void missingSpecFile();
    void demoSpecLoads();
};

void TestSpec::validSpec()
{
    SpecDir dir;
    dir.write("specs/transforms/fct_order_lines.sql", "select * from raw.order_lines\nwhere :start <= d and d < :end\n");
    dir.write("specs/transforms/check_revenue.sql", "select 1\n");
    dir.write("shared/check_rows.sql", "select 2\n");
    dir.write("specs/transforms/agg.sql", "select * from {{ fct_order_lines }}\n");
    const std::string path = dir.spec("warehouse: \"service=analytics\"\n"
                                      "models:\n"
                                      "  - name: fct_order_lines\n"
                                      "    target: analytics.fct_order_lines\n"
                                      "    partition: { column: order_date, grain: day, timezone: Europe/Berlin }\n"
                                      "    key: [order_line_id]\n"
                                      "    measures: [revenue, quantity]\n"
                                      "    transform: transforms/fct_order_lines.sql\n"
                                      "    depends_on: [raw.order_lines]\n"
                                      "    checks:\n"
                                      "      - name: revenue matches source\n"
                                      "        measure: revenue\n"
                                      "        source: transforms/check_revenue.sql\n"
                                      "        tolerance: 0.001\n"
                                      "      - name: rows match source\n"
                                      "        measure: rows\n"
                                      "        source: ../shared/check_rows.sql   # outside the spec's folder\n"
                                      "    max_parallel: 2\n"
                                      "    approval: four_eyes\n"
                                      "    publish: swap\n"
                                      "\n"
                                      "  - name: agg_daily_revenue\n"
                                      "    target: '\"Analytics\".\"Daily \"\"Revenue\"\"\"'\n"
                                      "    partition:\n"
                                      "      column: Day\n"
                                      "      grain: month\n"
                                      "    key: order_day\n"
                                      "    transform: transforms/agg.sql\n"
                                      "    depends_on: fct_order_lines\n",
                                      "specs/demo.yaml");
    const auto spec = loadSpec(path);
    QVERIFY2(spec.ok(), why(spec).c_str());
    QCOMPARE(spec->path, QDir::cleanPath(dir.file("specs/demo.yaml")).toStdString());
    QCOMPARE(spec->warehouse, std::string("service=analytics"));
    QCOMPARE(spec->models.size(), size_t(2));

    const Model &fct = spec->models[0];
    QCOMPARE(fct.name, std::string("fct_order_lines"));
    QCOMPARE(fct.line, 3);
    QCOMPARE(fct.target, (QualifiedName{"analytics", "fct_order_lines"}));
    QCOMPARE(fct.partitionColumn, std::string("order_date"));
    QCOMPARE(fct.grain, Grain::Day);
    QCOMPARE(fct.timezone, std::string("Europe/Berlin"));
    QCOMPARE(fct.key, std::vector<std::string>{"order_line_id"});
    QCOMPARE(fct.measures, (std::vector<std::string>{"revenue", "quantity"}));
    QCOMPARE(fct.allMeasures(), (std::vector<std::string>{"rows", "revenue", "quantity"}));
    QCOMPARE(fct.transformFile, dir.file("specs/transforms/fct_order_lines.sql").toStdString());
    QCOMPARE(fct.transformSql, std::string("select * from raw.order_lines\nwhere :start <= d and d < :end\n"));
    QCOMPARE(fct.dependsOn, std::vector<std::string>{"raw.order_lines"});
    QCOMPARE(fct.checks.size(), size_t(2));
    QCOMPARE(fct.checks[0].name, std::string("revenue matches source"));
    QCOMPARE(fct.checks[0].measure, std::string("revenue"));
    QCOMPARE(fct.checks[0].sourceFile, dir.file("specs/transforms/check_revenue.sql").toStdString());
    QCOMPARE(fct.checks[0].sql, std::string("select 1\n"));
    QCOMPARE(fct.checks[0].tolerance, 0.001);
    QCOMPARE(fct.checks[1].measure, std::string("rows"));
    QCOMPARE(fct.checks[1].sourceFile, QDir::cleanPath(dir.file("shared/check_rows.sql")).toStdString());
    QCOMPARE(fct.checks[1].tolerance, 0.0);
    QCOMPARE(fct.maxParallel, 2);
    QCOMPARE(fct.approval, Approval::FourEyes);
    QCOMPARE(fct.publish, PublishStrategy::Swap);
    QCOMPARE(fct.scheme().grain(), Grain::Day);
    QCOMPARE(fct.scheme().timezone(), QTimeZone("Europe/Berlin"));

    QCOMPARE(fct.checksFor("revenue").size(), size_t(1));
    QCOMPARE(fct.checksFor("revenue").front(), &fct.checks[0]);
    QCOMPARE(fct.checksFor("rows").front(), &fct.checks[1]);
    QVERIFY(fct.checksFor("quantity").empty());

    const Model &agg = spec->models[1];
    QCOMPARE(agg.line, 22);
    QCOMPARE(agg.target, (QualifiedName{"Analytics", "Daily \"Revenue\""}));
    QCOMPARE(quoteRelation(agg.target.schema, agg.target.table), std::string("\"Analytics\".\"Daily \"\"Revenue\"\"\""));
    QCOMPARE(agg.partitionColumn, std::string("day"));
    QCOMPARE(agg.grain, Grain::Month);
    QCOMPARE(agg.key, std::vector<std::string>{"order_day"});
    QCOMPARE(agg.dependsOn, std::vector<std::string>{"fct_order_lines"});

    QCOMPARE(spec->model("agg_daily_revenue"), &agg);
    QCOMPARE(spec->model("fct_order_lines"), &fct);
    QVERIFY(!spec->model("nope"));
    QCOMPARE(spec->dependants("fct_order_lines"), std::vector<const Model *>{&agg});
    QCOMPARE(spec->dependants("raw.order_lines"), std::vector<const Model *>{&fct});
    QVERIFY(spec->dependants("agg_daily_revenue").empty());
}

void TestSpec::defaults()
{
    SpecDir dir;
    const auto spec = loadSpec(dir.spec(kBase));
    QVERIFY2(spec.ok(), why(spec).c_str());
    QVERIFY(spec->warehouse.empty());
    const Model &m = spec->models.front();
    QCOMPARE(m.timezone, std::string("UTC"));
    QCOMPARE(m.maxParallel, 4);
    QCOMPARE(m.approval, Approval::Single);
    QCOMPARE(m.publish, PublishStrategy::Replace);
    QVERIFY(m.measures.empty());
    QCOMPARE(m.allMeasures(), std::vector<std::string>{"rows"});
    QVERIFY(m.checks.empty());
    QVERIFY(m.dependsOn.empty());
    QCOMPARE(m.line, 2);
}

void TestSpec::hostileTarget()
{
    SpecDir dir;
    const auto spec = loadSpec(dir.spec(withLine(3, "    target: analytics.\"x; drop table t\"")));
    QVERIFY2(spec.ok(), why(spec).c_str());
    const QualifiedName &target = spec->models.front().target;
    QCOMPARE(target.schema, std::string("analytics"));
    QCOMPARE(target.table, std::string("x; drop table t"));
    QCOMPARE(quoteRelation(target.schema, target.table), std::string("\"analytics\".\"x; drop table t\""));
}

void TestSpec::targetNames_data()
{
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QString>("schema");
    QTest::addColumn<QString>("table");

    QTest::newRow("plain") << QByteArray("analytics.fct") << "analytics" << "fct";
    QTest::newRow("unquoted folds to lower case") << QByteArray("Analytics.FCT_Lines") << "analytics" << "fct_lines";
    QTest::newRow("quoted keeps case") << QByteArray("'\"Analytics\".\"FCT\"'") << "Analytics" << "FCT";
    QTest::newRow("quoted schema only") << QByteArray("'\"my schema\".t'") << "my schema" << "t";
    QTest::newRow("doubled quote") << QByteArray("'s.\"a\"\"b\"'") << "s" << "a\"b";
    QTest::newRow("dot inside quotes") << QByteArray("'s.\"a.b\"'") << "s" << "a.b";
    QTest::newRow("dollar and digits") << QByteArray("s1.t$2") << "s1" << "t$2";
}

void TestSpec::targetNames()
{
    QFETCH(QByteArray, target);
    QFETCH(QString, schema);
    QFETCH(QString, table);
    SpecDir dir;
    const auto spec = loadSpec(dir.spec(withLine(3, "    target: " + target)));
    QVERIFY2(spec.ok(), why(spec).c_str());
    QCOMPARE(QString::fromStdString(spec->models.front().target.schema), schema);
    QCOMPARE(QString::fromStdString(spec->models.front().target.table), table);
}

void TestSpec::errors_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("message");  // after "<path>:"; %DIR% is the spec's directory

    const QString relation = " (expected schema.table; quote a part in double quotes to keep case or odd characters, "
                             "e.g. analytics.\"Order Lines\")";
    const QString modelKeys = "name, target, partition, key, measures, transform, depends_on, checks, max_parallel, "
                              "approval, publish";

    QTest::newRow("bad grain (the design's example)")
        << QByteArray("warehouse: \"service=analytics\"\n"
                      "models:\n"
                      "  - name: fct_order_lines\n"
                      "    target: analytics.fct_order_lines\n"
                      "    partition:\n"
                      "      column: order_date\n"
                      "      grain: dayly\n"
                      "    key: [order_line_id]\n"
                      "    transform: t.sql\n")
        << "7:14: models[0].partition.grain: 'dayly' is not one of hour, day, week, month";
    QTest::newRow("yaml syntax")
        << QByteArray("models:\n  - name: fct\n    key: [id\n")
        << "4:1: YAML syntax error: end of sequence flow not found";
    QTest::newRow("yaml bad indentation")
        << QByteArray("models:\n  - name: fct\n   target: x\n")
        << "3:4: YAML syntax error: end of sequence not found";
    // yaml-cpp reads a quote that is never closed as a string running to the end of the
    // file, which then seems to lack the keys after it: the quote itself is at fault.
    const QString unclosed = "YAML syntax error: the %1 here opens a quoted string that is never closed (it runs to the end "
                             "of the file); add the closing %1 where the value ends";
    QTest::newRow("unclosed double quote") << withLine(2, "  - name: \"fct") << "2:11: " + unclosed.arg('"');
    QTest::newRow("unclosed single quote") << withLine(3, "    target: 'analytics.fct") << "3:13: " + unclosed.arg('\'');
    QTest::newRow("unclosed quote in the last value") << withLine(6, "    transform: \"t.sql") << "6:16: " + unclosed.arg('"');
    QTest::newRow("unclosed quote at the top") << QByteArray("warehouse: \"service=x\n" + kBase)
                                               << "1:12: " + unclosed.arg('"');
    QTest::newRow("unclosed quote of a key") << QByteArray("\"models:\n  - name: fct\n") << "1:1: " + unclosed.arg('"');
    QTest::newRow("empty file") << QByteArray("")
                                << "1:1: the spec is empty (expected a mapping with a 'models' list, and optionally "
                                   "'warehouse')";
    QTest::newRow("top level is a list")
        << QByteArray("- a\n- b\n")
        << "1:1: the spec is a list (expected a mapping with a 'models' list, and optionally 'warehouse')";
    QTest::newRow("unknown top-level key")
        << QByteArray("warehouse: x\nmodles:\n  - name: fct\n")
        << "2:1: modles: unknown key (expected one of warehouse, models)";
    QTest::newRow("missing models") << QByteArray("warehouse: x\n") << "1:1: missing required key 'models'";
    QTest::newRow("no models") << QByteArray("models: []\n")
                               << "1:9: models: is empty (expected a list of at least one model)";
    QTest::newRow("warehouse is a mapping")
        << QByteArray("warehouse: {host: x}\n" + kBase) << "1:12: warehouse: is a mapping (expected a non-empty string)";
    QTest::newRow("unknown model key") << withLine(6, "    transfrom: t.sql")
                                       << "6:5: models[0].transfrom: unknown key (expected one of " + modelKeys + ")";
    QTest::newRow("missing transform") << without(6) << "2:5: models[0]: missing required key 'transform'";
    QTest::newRow("missing key") << without(5) << "2:5: models[0]: missing required key 'key'";
    QTest::newRow("duplicate key") << QByteArray(kBase + "    key: [id2]\n")
                                   << "7:5: models[0].key: duplicate key (first given at line 5)";
    QTest::newRow("name is a list") << withLine(2, "  - name: [a, b]")
                                    << "2:11: models[0].name: is a list (expected a non-empty string)";
    QTest::newRow("bad model name")
        << withLine(2, "  - name: fct-lines")
        << "2:11: models[0].name: 'fct-lines' is not a model name (expected letters, digits and _, not starting with "
           "a digit)";
    QTest::newRow("empty name") << withLine(2, "  - name: ''")
                                << "2:11: models[0].name: is empty (expected a non-empty string)";
    QTest::newRow("transform with no value")
        << withLine(6, "    transform:") << "6:5: models[0].transform: is empty (expected a non-empty string)";
    QTest::newRow("missing partition.grain")
        << withLine(4, "    partition: { column: order_date }")
        << "4:16: models[0].partition: missing required key 'grain'";
    QTest::newRow("missing partition.column")
        << withLine(4, "    partition: { grain: day }") << "4:16: models[0].partition: missing required key 'column'";
    QTest::newRow("unknown partition key")
        << withLine(4, "    partition: { column: order_date, grian: day }")
        << "4:38: models[0].partition.grian: unknown key (expected one of column, grain, timezone)";
    QTest::newRow("grain with no value")
        << withLine(4, "    partition: { column: order_date, grain: }")
        << "4:38: models[0].partition.grain: is empty (expected a non-empty string)";
    QTest::newRow("partition is a string")
        << withLine(4, "    partition: day")
        << "4:16: models[0].partition: is a scalar (expected a mapping with keys column, grain, timezone)";
    QTest::newRow("bad timezone")
        << withLine(4, "    partition: { column: order_date, grain: day, timezone: Europe/Berlni }")
        << "4:60: models[0].partition.timezone: 'Europe/Berlni' is not a known timezone (expected an IANA name such "
           "as UTC or Europe/Berlin)";
    QTest::newRow("bad column name")
        << withLine(4, "    partition: { column: order date, grain: day }")
        << "4:26: models[0].partition.column: 'order date' is not a column name (write a name with other characters "
           "in double quotes, e.g. '\"Order Date\"')";
    QTest::newRow("target without schema")
        << withLine(3, "    target: fct") << "3:13: models[0].target: 'fct' is not a relation" + relation;
    QTest::newRow("target with three parts")
        << withLine(3, "    target: a.b.c") << "3:13: models[0].target: 'a.b.c' is not a relation" + relation;
    QTest::newRow("target with unclosed quote")
        << withLine(3, "    target: analytics.\"x")
        << "3:13: models[0].target: 'analytics.\"x' is not a relation: a quoted name is not closed" + relation;
    QTest::newRow("target with empty quoted part")
        << withLine(3, "    target: analytics.\"\"")
        << "3:13: models[0].target: 'analytics.\"\"' is not a relation: a quoted name is empty" + relation;
    QTest::newRow("key is empty") << withLine(5, "    key: []")
                                  << "5:10: models[0].key: is empty (expected at least one column of the target's key)";
    QTest::newRow("key listed twice") << withLine(5, "    key: [id, ID]")
                                      << "5:15: models[0].key[1]: 'id' is listed twice";
    QTest::newRow("rows declared as a measure")
        << QByteArray(kBase + "    measures: [revenue, rows]\n")
        << "7:25: models[0].measures[1]: 'rows' is always a measure (the row count); remove it from the list";
    QTest::newRow("duplicate model name")
        << QByteArray(kBase + "  - name: fct\n    target: analytics.fct2\n    partition: { column: d, grain: day }\n"
                              "    key: [id]\n    transform: t.sql\n")
        << "7:11: models[1].name: duplicate model name 'fct' (first defined at line 2; model names must be unique)";
    QTest::newRow("check on undeclared measure")
        << QByteArray(kBase + QByteArray(kCheck).replace("measure: revenue", "measure: quantity"))
        << "10:18: models[0].checks[0].measure: 'quantity' is not a measure of fct (expected one of rows, revenue)";
    QTest::newRow("negative tolerance")
        << QByteArray(kBase + kCheck + "        tolerance: -0.5\n")
        << "12:20: models[0].checks[0].tolerance: '-0.5' is not a relative tolerance (expected a number >= 0, e.g. "
           "0.001)";
    QTest::newRow("tolerance not a number")
        << QByteArray(kBase + kCheck + "        tolerance: small\n")
        << "12:20: models[0].checks[0].tolerance: 'small' is not a relative tolerance (expected a number >= 0, e.g. "
           "0.001)";
    QTest::newRow("unknown check key")
        << QByteArray(kBase + kCheck + "        tolernce: 1\n")
        << "12:9: models[0].checks[0].tolernce: unknown key (expected one of name, measure, source, tolerance)";
    QTest::newRow("check without source")
        << QByteArray(kBase + QByteArray(kCheck).replace("        source: checks/rows.sql\n", ""))
        << "9:9: models[0].checks[0]: missing required key 'source'";
    QTest::newRow("check source missing")
        << QByteArray(kBase + QByteArray(kCheck).replace("checks/rows.sql", "checks/nope.sql"))
        << "11:17: models[0].checks[0].source: file 'checks/nope.sql' not found (looked for %DIR%/checks/nope.sql; "
           "paths are relative to the spec's directory)";
    QTest::newRow("duplicate check name")
        << QByteArray(kBase + kCheck + "      - name: qty\n        measure: rows\n        source: checks/rows.sql\n")
        << "12:15: models[0].checks[1].name: duplicate check name 'qty' in model fct";
    QTest::newRow("checks is a mapping")
        << QByteArray(kBase + "    checks: {name: x}\n") << "7:13: models[0].checks: is a mapping (expected a list of checks)";
    QTest::newRow("transform missing")
        << withLine(6, "    transform: missing.sql")
        << "6:16: models[0].transform: file 'missing.sql' not found (looked for %DIR%/missing.sql; paths are "
           "relative to the spec's directory)";
    QTest::newRow("transform is a directory")
        << withLine(6, "    transform: transforms")
        << "6:16: models[0].transform: 'transforms' is not a file (expected a SQL file)";
    QTest::newRow("transform is empty")
        << withLine(6, "    transform: empty.sql") << "6:16: models[0].transform: 'empty.sql' is empty (expected a SELECT)";
    QTest::newRow("max_parallel zero")
        << QByteArray(kBase + "    max_parallel: 0\n")
        << "7:19: models[0].max_parallel: '0' is not a whole number of at least 1";
    QTest::newRow("max_parallel words")
        << QByteArray(kBase + "    max_parallel: four\n")
        << "7:19: models[0].max_parallel: 'four' is not a whole number of at least 1";
    QTest::newRow("max_parallel fraction")
        << QByteArray(kBase + "    max_parallel: 2.5\n")
        << "7:19: models[0].max_parallel: '2.5' is not a whole number of at least 1";
    QTest::newRow("approval") << QByteArray(kBase + "    approval: two\n")
                              << "7:15: models[0].approval: 'two' is not one of single, four_eyes";
    QTest::newRow("publish") << QByteArray(kBase + "    publish: merge\n")
                             << "7:14: models[0].publish: 'merge' is not one of replace, swap, auto, delete_insert";
    QTest::newRow("depends_on is a mapping")
        << QByteArray(kBase + "    depends_on: {a: b}\n")
        << "7:17: models[0].depends_on: is a mapping (expected a list of model names or schema.table relations)";
    QTest::newRow("self dependency")
        << QByteArray(kBase + "    depends_on: [fct]\n")
        << "7:18: models[0].depends_on[0]: dependency cycle fct -> fct (a model cannot depend on itself, directly or "
           "through other models)";
    QTest::newRow("dependency cycle")
        << QByteArray("models:\n"
                      "  - name: a\n"
                      "    target: s.a\n"
                      "    partition: { column: d, grain: day }\n"
                      "    key: [id]\n"
                      "    transform: t.sql\n"
                      "    depends_on: [b]\n"
                      "  - name: b\n"
                      "    target: s.b\n"
                      "    partition: { column: d, grain: day }\n"
                      "    key: [id]\n"
                      "    transform: t.sql\n"
                      "    depends_on: [raw.x, a]\n")
        << "13:25: models[1].depends_on[1]: dependency cycle a -> b -> a (a model cannot depend on itself, directly "
           "or through other models)";
}

void TestSpec::errors()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, message);
    SpecDir dir;
    const std::string path = dir.spec(yaml);
    const auto spec = loadSpec(path);
    QVERIFY(!spec.ok());
    QCOMPARE(spec.error().kind, reprint::backfill::EngineKind::Spec);
    QCOMPARE(QString::fromStdString(spec.error().message),
             QString::fromStdString(path) + ":" + QString(message).replace("%DIR%", dir.root()));
}

void TestSpec::closedQuotesAreNoError()
{
    SpecDir dir;
    const auto spec = loadSpec(dir.spec("warehouse: \"service=\n  analytics\"   # a folded string; don't mind this quote\n"
                                        "models:\n"
                                        "  - name: \"fct\"\n"
                                        "    target: 'analytics.fct'\n"
                                        "    partition: { column: '\"order''s date\"', grain: 'day' }\n"
                                        "    key: [\"id\"]\n"
                                        "    transform: \"t.sql\" # it's here\n"));
    QVERIFY2(spec.ok(), why(spec).c_str());
    QCOMPARE(spec->warehouse, std::string("service= analytics"));
    QCOMPARE(spec->models.front().partitionColumn, std::string("order's date"));
}

void TestSpec::pathAsGiven()
{
    SpecDir dir;
    dir.write("sub/demo.yaml", withLine(4, "    partition: { column: order_date, grain: dayly }"));
    dir.write("sub/t.sql", "select 1\n");
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.root()));
    const auto bad = loadSpec("sub/demo.yaml");
    dir.write("sub/demo.yaml", kBase);
    const auto good = loadSpec("sub/demo.yaml");
    QDir::setCurrent(previous);

    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().message,
             std::string("sub/demo.yaml:4:45: models[0].partition.grain: 'dayly' is not one of hour, day, week, month"));
    // Relative to the spec, not to the working directory: sub/t.sql, not t.sql.
    QVERIFY2(good.ok(), why(good).c_str());
    QCOMPARE(good->models.front().transformFile, QDir(dir.root()).filePath("sub/t.sql").toStdString());
    QCOMPARE(good->models.front().transformSql, std::string("select 1\n"));
    QCOMPARE(good->path, QDir(dir.root()).filePath("sub/demo.yaml").toStdString());
}

void TestSpec::missingSpecFile()
{
    SpecDir dir;
    const std::string path = dir.file("nope.yaml").toStdString();
    const auto spec = loadSpec(path);
    QVERIFY(!spec.ok());
    QCOMPARE(spec.error().kind, reprint::backfill::EngineKind::Spec);
    QCOMPARE(spec.error().message, path + ": spec file not found");
}

// The demo spec shipped in resources/ loads, and every SQL file it names binds.
void TestSpec::demoSpecLoads()
{
    const auto spec = loadSpec(REPRINT_SOURCE_DIR "/resources/demo/demo.yaml");
    QVERIFY2(spec.ok(), why(spec).c_str());
    QCOMPARE(spec->models.size(), size_t(2));
    std::map<std::string, std::string> relations;
    for (const Model &m : spec->models)
        relations[m.name] = quoteRelation(m.target.schema, m.target.table);
    for (const Model &m : spec->models) {
        std::vector<std::pair<std::string, std::string>> files{{m.transformFile, m.transformSql}};
        for (const Check &c : m.checks)
            files.emplace_back(c.sourceFile, c.sql);
        for (const auto &[file, sql] : files) {
            const auto resolved = resolveModelReferences(sql, relations);
            QVERIFY2(resolved.ok(), (file + ": " + why(resolved)).c_str());
            const auto bound = bindNamedParameters(*resolved, {"start", "end"});
            QVERIFY2(bound.ok(), (file + ": " + why(bound)).c_str());
        }
    }
    const Model *agg = spec->model("agg_daily_revenue");
    QVERIFY(agg);
    QCOMPARE(spec->dependants("fct_order_lines"), std::vector<const Model *>{agg});
    for (const std::string &measure : spec->models.front().allMeasures())
        QCOMPARE(spec->models.front().checksFor(measure).size(), size_t(1));
}

QTEST_GUILESS_MAIN(TestSpec)
#include "tst_spec.moc"
