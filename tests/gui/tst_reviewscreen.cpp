// ReviewScreen offscreen on copies of the demo: the narrow window keeps Approve off and
// shows 2026-03-09 as a failing outside partition; Override needs a reason and a second
// confirmation and stores the reason; the honest window publishes through the engine
// (history shows it published, with approver and note) and undo restores; drift between
// review and publish opens the drift dialog; four-eyes refuses the operator.
#include "reviewfixture.h"

#include "boundaryinspector.h"
#include "darkpalette.h"
#include "engineclient.h"
#include "historymodel.h"
#include "historyview.h"
#include "mainwindow.h"
#include "reviewmodel.h"
#include "reviewproxymodel.h"
#include "reviewscreen.h"
#include "rowdiffmodel.h"

#include "warehouse/iothread.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLayout>
#include <QMenu>
#include <QScrollBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QToolButton>
#include <QValueAxis>
#include <QClipboard>
#include <QElapsedTimer>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTableWidget>
#include <QTabBar>
#include <QTest>

#include <functional>

using namespace reprint;
using views::ReviewScreen;

namespace {

// Times from its construction to the first paint of `widget` once `ready()` holds.
struct PaintWatch : QObject {
    template <typename Ready>
    PaintWatch(QWidget *widget, Ready ready)
        : m_ready(std::move(ready))
    {
        m_clock.start();
        widget->installEventFilter(this);
    }
    bool eventFilter(QObject *, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && ms < 0 && m_ready())
            ms = m_clock.elapsed();
        return false;
    }
    qint64 ms = -1;

private:
    std::function<bool()> m_ready;
    QElapsedTimer m_clock;
};

// Opens `id` and waits for the review and its facts.
bool openAndWait(ReviewScreen &screen, qint64 id)
{
    QSignalSpy review(&screen, &ReviewScreen::reviewLoaded);
    QSignalSpy facts(&screen, &ReviewScreen::factsLoaded);
    screen.openBackfill(id);
    return QTest::qWaitFor([&] { return review.count() > 0 && facts.count() > 0; }, 60000);
}

template <typename T>
T *waitForChild(QWidget *parent, const QString &name)
{
    T *found = nullptr;
    const bool shown = QTest::qWaitFor([&] { return (found = parent->findChild<T *>(name)) && found->isVisible(); }, 5000);
    return shown ? found : nullptr;
}

QPushButton *buttonWithText(QWidget *box, const QString &text)
{
    for (QPushButton *b : box->findChildren<QPushButton *>())
        if (b->text() == text)
            return b;
    return nullptr;
}

// Fills the approve (or override) dialog and accepts it.
bool approve(ReviewScreen &screen, bool overriding, const QString &note, const QString &reason = {})
{
    (overriding ? screen.overrideButton() : screen.approveButton())->click();
    auto *dialog = waitForChild<QDialog>(&screen, overriding ? QStringLiteral("overrideDialog") : QStringLiteral("approveDialog"));
    if (!dialog)
        return false;
    auto *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    if (ok->isEnabled())
        return false;  // a note is required
    dialog->findChild<QLineEdit *>(QStringLiteral("approvalNote"))->setText(note);
    if (overriding) {
        if (ok->isEnabled())
            return false;  // and a reason
        dialog->findChild<QLineEdit *>(QStringLiteral("overrideReason"))->setText(reason);
    }
    if (!ok->isEnabled())
        return false;
    ok->click();
    return true;
}

// Stages a backfill of `model` over from..to with the CLI; its id, 0 on failure.
qint64 stageModel(const std::string &db, const QString &model, const QString &from, const QString &to, const QString &spec = test::demoSpec())
{
    const test::ProcessResult p = test::runReprint({QStringLiteral("backfill"), QStringLiteral("--spec"), spec, QStringLiteral("--db"),
                                                    QString::fromStdString(db), QStringLiteral("--model"), model, QStringLiteral("--from"),
                                                    from, QStringLiteral("--to"), to});
    const auto m = QRegularExpression(QStringLiteral("backfill (\\d+) (staged|failed|validated)")).match(p.err);
    if (!m.hasMatch())
        qWarning("reprint backfill said: %s", qPrintable(p.err));
    return m.hasMatch() ? m.captured(1).toLongLong() : 0;
}

// The width of the table's visible columns.
int shownWidth(const QTableView *table)
{
    int w = 0;
    for (int c = 0; c < table->model()->columnCount(); ++c)
        w += table->isColumnHidden(c) ? 0 : table->columnWidth(c);
    return w;
}

QStringList visibleHeaders(const QTableWidget *table)
{
    QStringList out;
    for (int c = 0; c < table->columnCount(); ++c)
        if (!table->isColumnHidden(c) && table->horizontalHeaderItem(c))
            out << table->horizontalHeaderItem(c)->text();
    return out;
}

} // namespace

class ReviewScreenTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Issue 14 item 7 at 1280 px: the partition and where columns stay in sight when the
    // table scrolls right; the measures shown are those that fit (the most changed first),
    // all of them once the window is wide enough, and the user's choice from the menu; the
    // chart shows several measures side by side, with grouped numbers. Then agg_daily_revenue
    // (four measures).
    void totalsKeepThePartitionInSightAndChartSeveralMeasures()
    {
        const std::string db = test::demoCopy("tst_reviewscreen_columns");
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        QVERIFY(id > 0);
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screen.resize(1280, 800);
        screenEngine.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
        screen.show();
        QVERIFY(openAndWait(screen, id));
        QTableView *table = screen.totalsTable();
        auto *frozen = table->findChild<QTableView *>(QStringLiteral("frozenColumns"));
        QVERIFY(frozen && frozen->isVisible());
        QVERIFY(!frozen->isColumnHidden(0) && !frozen->isColumnHidden(1) && frozen->isColumnHidden(2));
        QCOMPARE(frozen->width(), table->columnWidth(0) + table->columnWidth(1));

        // Three measures do not fit 1280 px side by side: those that fit, revenue (changed in
        // every partition of the window) first; the rest are a menu click away.
        const QStringList all = screen.reviewModel()->measures();
        QCOMPARE(all, (QStringList{QStringLiteral("rows"), QStringLiteral("revenue"), QStringLiteral("quantity")}));
        QStringList shown = screen.shownMeasures();
        QVERIFY2(!shown.isEmpty() && shown.size() < 3 && shown.contains(QStringLiteral("revenue")), qPrintable(shown.join(',')));
        QVERIFY2(shown.size() == 1 || shownWidth(table) <= table->viewport()->width(), qPrintable(shown.join(',')));
        QVERIFY2(screen.measuresButton()->text().contains(QStringLiteral("%1 of 3").arg(shown.size())), qPrintable(screen.measuresButton()->text()));

        // Scrolled right to the end, the partitions still show, over the scrolled columns.
        screen.setShownMeasures(all);
        QCOMPARE(screen.shownMeasures(), all);
        QVERIFY(shownWidth(table) > table->viewport()->width());
        QTRY_VERIFY(table->horizontalScrollBar()->maximum() > 0);
        table->horizontalScrollBar()->setValue(table->horizontalScrollBar()->maximum());
        QVERIFY(table->columnViewportPosition(0) < 0);  // the table's own partition column scrolled away
        const QModelIndex first = frozen->model()->index(0, 0);
        QVERIFY(frozen->viewport()->rect().contains(frozen->visualRect(first)));
        QCOMPARE(first.data().toString(), QStringLiteral("2026-03-08"));
        // A click on the frozen header sorts the table.
        frozen->horizontalHeader()->sectionClicked(0);
        QCOMPARE(table->horizontalHeader()->sortIndicatorSection(), 0);
        QCOMPARE(table->model()->index(0, 0).data().toString(), QStringLiteral("2026-03-15"));
        frozen->horizontalHeader()->sectionClicked(0);
        QCOMPARE(table->model()->index(0, 0).data().toString(), QStringLiteral("2026-03-08"));

        // The menu: unchecking leaves at least one; its last measure cannot be unchecked.
        QMenu *menu = screen.measuresButton()->menu();
        auto action = [&](const QString &name) {
            for (QAction *a : menu->actions())
                if (a->text() == name)
                    return a;
            return static_cast<QAction *>(nullptr);
        };
        action(QStringLiteral("rows"))->trigger();
        action(QStringLiteral("quantity"))->trigger();
        QCOMPARE(screen.shownMeasures(), QStringList{QStringLiteral("revenue")});
        QVERIFY(table->isColumnHidden(screen.reviewModel()->columnFor(0, model::ReviewModel::Field::Old)));
        QVERIFY(!action(QStringLiteral("revenue"))->isEnabled());
        action(QStringLiteral("quantity"))->trigger();
        QCOMPARE(screen.shownMeasures(), (QStringList{QStringLiteral("revenue"), QStringLiteral("quantity")}));
        // Back to what fits: all of them in a window wide enough.
        screen.setShownMeasures({});
        screen.resize(2400, 800);
        QTRY_VERIFY2(screen.shownMeasures() == all, qPrintable(QStringLiteral("%1 px of columns in a %2 px table, screen %3 px: %4")
                                                                  .arg(shownWidth(table))
                                                                  .arg(table->viewport()->width())
                                                                  .arg(screen.width())
                                                                  .arg(screen.shownMeasures().join(QLatin1Char(',')))));
        QVERIFY(shownWidth(table) <= table->viewport()->width());
        QVERIFY(screen.measuresButton()->text().contains(QStringLiteral("all 3")));
        screen.resize(1280, 800);
        QTRY_VERIFY(screen.shownMeasures().size() < 3);

        // The chart: one by default, then three side by side, numbers grouped.
        QCOMPARE(screen.chartViews().size(), 1);
        QCOMPARE(screen.chartMeasures(), QStringList{QStringLiteral("revenue")});
        screen.setChartMeasures(all);
        QCOMPARE(screen.chartViews().size(), 3);
        QStringList titles;
        for (QChartView *v : screen.chartViews()) {
            QVERIFY(v->isVisible());
            QTRY_VERIFY2(v->width() > 200, qPrintable(QStringLiteral("%1 of %2, visible %3").arg(v->width()).arg(v->parentWidget()->width()).arg(v->parentWidget()->isVisible()) + QStringLiteral(" items %1 %2 %3").arg(v->parentWidget()->layout()->count()).arg(v->parentWidget()->layout()->geometry().width()).arg(v->sizePolicy().horizontalPolicy())));
            QVERIFY(v->chart()->localizeNumbers());
            QVERIFY(v->chart()->locale().toString(80000.0, 'f', 0).size() == 6);
            auto *y = qobject_cast<QValueAxis *>(v->chart()->axes(Qt::Vertical).value(0));
            QVERIFY(y);
            titles << y->titleText();
            QCOMPARE(v->chart()->series().size(), 4);  // window, old, new, source
        }
        QCOMPARE(titles, all);
        QVERIFY(screen.chartViews().constLast()->chart()->legend()->isVisible());
        QVERIFY(!screen.chartViews().constFirst()->chart()->legend()->isVisible());
        // From the menu, too.
        QMenu *charts = screen.chartButton()->menu();
        for (QAction *a : charts->actions())
            if (a->text() == QLatin1String("rows"))
                a->trigger();
        QCOMPARE(screen.chartMeasures(), (QStringList{QStringLiteral("revenue"), QStringLiteral("quantity")}));

        // agg_daily_revenue: four measures.
        const qint64 agg = stageModel(db, QStringLiteral("agg_daily_revenue"), QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        QVERIFY(agg > 0);
        QVERIFY(openAndWait(screen, agg));
        QCOMPARE(screen.reviewModel()->measures().size(), 5);  // rows and four declared
        shown = screen.shownMeasures();
        QVERIFY2(!shown.isEmpty() && (shown.size() == 1 || shownWidth(table) <= table->viewport()->width()), qPrintable(shown.join(QLatin1Char(',')) + QStringLiteral(" %1 in %2").arg(shownWidth(table)).arg(table->viewport()->width())));
        QVERIFY(frozen->isVisible());
        QCOMPARE(frozen->width(), table->columnWidth(0) + table->columnWidth(1));
        screen.setChartMeasures(screen.reviewModel()->measures().mid(1));
        QCOMPARE(screen.chartViews().size(), 4);
    }

    // Issue 14 item 8: on a UTC model the edge view has one instant column, in UTC, and
    // says the partition's edges are in UTC; on a Europe/Berlin model it has both, and says
    // where the edges lie in both zones. Its panes grow with the window.
    void edgeViewNamesTheZoneOnce()
    {
        const std::string db = test::demoCopy("tst_reviewscreen_edges");
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        QVERIFY(id > 0);
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screen.resize(1280, 800);
        screenEngine.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
        screen.show();
        QSignalSpy edges(screen.inspector(), &views::BoundaryInspector::edgeRowsLoaded);
        QVERIFY(openAndWait(screen, id));
        screen.showInspector(QStringLiteral("2026-03-09"));
        QTRY_VERIFY_WITH_TIMEOUT(!edges.isEmpty() && screen.inspector()->edgeTable()->rowCount() > 0, 60000);
        QTableWidget *table = screen.inspector()->edgeTable();
        const QStringList headers = visibleHeaders(table);
        QCOMPARE(headers.filter(QStringLiteral("ordered_at")), QStringList{QStringLiteral("ordered_at (UTC)")});
        const QString zone = screen.inspector()->findChild<QLabel *>(QStringLiteral("edgeZone"))->text();
        QVERIFY2(zone.contains(QStringLiteral("Partition edges are in UTC"))
                     && zone.contains(QStringLiteral("2026-03-09 runs from 2026-03-09 00:00 UTC to 2026-03-10 00:00 UTC")),
                 qPrintable(zone));

        // Taller window, taller panes.
        const int edgeHeight = table->viewport()->height();
        const int diffHeight = screen.inspector()->findChild<QTableView *>(QStringLiteral("diffRows"))->viewport()->height();
        screen.resize(1280, 1200);
        QTRY_VERIFY(table->viewport()->height() >= edgeHeight + 120);
        QVERIFY(screen.inspector()->findChild<QTableView *>(QStringLiteral("diffRows"))->viewport()->height() >= diffHeight + 120);

        // The same model in Europe/Berlin.
        QTemporaryDir dir;
        const QString berlin = test::editedDemoSpec(dir, [](QString &text) {
            const QString utc = QStringLiteral("grain: day, timezone: UTC }");
            text.replace(text.indexOf(utc), utc.size(), QStringLiteral("grain: day, timezone: Europe/Berlin }"));
        });
        {
            // ... whose transform files rows on the Berlin day.
            QFile transform(dir.filePath(QStringLiteral("transforms/fct_order_lines.sql")));
            QVERIFY(transform.open(QIODevice::ReadOnly));
            QString sql = QString::fromUtf8(transform.readAll());
            transform.close();
            sql.replace(QStringLiteral("(o.ordered_at AT TIME ZONE 'UTC')::date"), QStringLiteral("(o.ordered_at AT TIME ZONE 'Europe/Berlin')::date"));
            QVERIFY(transform.open(QIODevice::WriteOnly | QIODevice::Truncate));
            transform.write(sql.toUtf8());
        }
        const std::string db2 = test::demoCopy("tst_reviewscreen_edges_berlin");
        const qint64 id2 = test::stageBackfill(db2, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"), nullptr, berlin);
        QVERIFY(id2 > 0);
        model::EngineClient otherEngine;
        ReviewScreen other(&otherEngine);
        other.resize(1280, 800);
        otherEngine.setSpec(test::loadDemoSpec(berlin), QString::fromStdString(db2));
        other.show();
        QSignalSpy edges2(other.inspector(), &views::BoundaryInspector::edgeRowsLoaded);
        QVERIFY(openAndWait(other, id2));
        other.showInspector(QStringLiteral("2026-03-09"));
        QTRY_VERIFY_WITH_TIMEOUT(!edges2.isEmpty() && other.inspector()->edgeTable()->rowCount() > 0, 60000);
        QCOMPARE(visibleHeaders(other.inspector()->edgeTable()).filter(QStringLiteral("ordered_at")),
                 (QStringList{QStringLiteral("ordered_at (UTC)"), QStringLiteral("ordered_at (Europe/Berlin)")}));
        const QString zone2 = other.inspector()->findChild<QLabel *>(QStringLiteral("edgeZone"))->text();
        QVERIFY2(zone2.contains(QStringLiteral("Partition edges are in Europe/Berlin"))
                     && zone2.contains(QStringLiteral("from 2026-03-09 00:00 +01:00 to 2026-03-10 00:00 +01:00, that is 2026-03-08 23:00 UTC")),
                 qPrintable(zone2));
    }

    // Issue 14 item 13: no "(s)" plurals in the rules or the history.
    void wordsHaveProperPlurals()
    {
        const std::string db = test::demoCopy("tst_reviewscreen_plurals");
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        const qint64 one = test::stageBackfill(db, QStringLiteral("2026-03-20"), QStringLiteral("2026-03-20"));
        QVERIFY(id > 0 && one > 0);
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screen.resize(1280, 800);
        screenEngine.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
        screen.show();
        QVERIFY(openAndWait(screen, id));
        QVERIFY2(screen.ruleText(3).contains(QStringLiteral("replaces the 6 partitions in one transaction")), qPrintable(screen.ruleText(3)));
        QString notes;
        QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                     notes.clear();
                                     for (QLabel *l : screen.historyView()->findChildren<QLabel *>())
                                         notes += l->text() + QLatin1Char('\n');
                                     return notes.contains(QStringLiteral("2 backfills"));
                                 }()),
                                 30000);
        QVERIFY2(!notes.contains(QStringLiteral("(s)")), qPrintable(notes));
        QVERIFY(openAndWait(screen, one));
        QVERIFY2(screen.ruleText(3).contains(QStringLiteral("replaces the partition in one transaction")), qPrintable(screen.ruleText(3)));
        for (int n = 1; n <= 5; ++n)
            QVERIFY2(!screen.ruleText(n).contains(QStringLiteral("(s)")), qPrintable(screen.ruleText(n)));
    }

    // Not a check: writes review-*.png (totals with three charts, the inspector, the
    // agg_daily_revenue totals; light and dark) from the main window at 1280x800 when
    // REPRINT_SCREENSHOT_DIR is set.
    void screenshots()
    {
        const QString out = qEnvironmentVariable("REPRINT_SCREENSHOT_DIR");
        if (out.isEmpty())
            QSKIP("set REPRINT_SCREENSHOT_DIR to write the Review screen screenshots");
        const std::string db = test::demoCopy("tst_reviewscreen_shots");
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        const qint64 agg = stageModel(db, QStringLiteral("agg_daily_revenue"), QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"));
        QVERIFY(id > 0 && agg > 0);
        const QPalette light = QApplication::palette();
        const QString lightStyle = QApplication::style()->name();
        for (const bool dark : {false, true}) {
            if (dark)
                reprint::views::useDarkPalette();
            const QString suffix = dark ? QStringLiteral("-dark") : QString();
            views::MainWindow window;
            window.resize(1280, 800);
            window.show();
            QString error;
            QVERIFY2(window.openSpec(test::demoSpec(), QString::fromStdString(db), &error), qPrintable(error));
            QTest::qWait(1000);
            ReviewScreen *screen = window.reviewScreen();
            QSignalSpy loaded(screen, &ReviewScreen::reviewLoaded);
            QSignalSpy facts(screen, &ReviewScreen::factsLoaded);
            window.openReview(id);
            QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > 0 && facts.count() > 0, 60000);
            screen->setChartMeasures(screen->reviewModel()->measures());
            QTest::qWait(500);
            QVERIFY(window.grab().save(QDir(out).filePath(QStringLiteral("review-totals%1.png").arg(suffix))));
            screen->setShownMeasures(screen->reviewModel()->measures());
            QTRY_VERIFY(screen->totalsTable()->horizontalScrollBar()->maximum() > 0);
            screen->totalsTable()->horizontalScrollBar()->setValue(screen->totalsTable()->horizontalScrollBar()->maximum());
            QTest::qWait(300);
            QVERIFY(window.grab().save(QDir(out).filePath(QStringLiteral("review-scrolled%1.png").arg(suffix))));
            screen->showInspector(QStringLiteral("2026-03-09"));
            QTRY_VERIFY_WITH_TIMEOUT(screen->inspector()->edgeTable()->rowCount() > 0, 60000);
            QTest::qWait(800);
            QVERIFY(window.grab().save(QDir(out).filePath(QStringLiteral("review-inspector%1.png").arg(suffix))));
            loaded.clear();
            facts.clear();
            window.openReview(agg);
            QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > 0 && facts.count() > 0, 60000);
            screen->showTotals();
            QTest::qWait(500);
            QVERIFY(window.grab().save(QDir(out).filePath(QStringLiteral("review-agg%1.png").arg(suffix))));
        }
        QApplication::setStyle(QStyleFactory::create(lightStyle));
        QApplication::setPalette(light);
    }

    void narrowWindowDisablesApproveAndOverrideStoresReason()
    {
        const std::string db = test::demoCopy("tst_reviewscreen_narrow");
        int code = -1;
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-10"), QStringLiteral("2026-03-14"), &code);
        QCOMPARE(code, 3);
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screen.resize(1280, 800);
        screenEngine.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
        screen.show();
        // From asking for the stored review to the first paint of the table holding it.
        PaintWatch painted(screen.totalsTable()->viewport(), [&] { return screen.reviewModel()->review().backfillId == id; });
        QVERIFY(openAndWait(screen, id));
        QVERIFY(QTest::qWaitFor([&] { return painted.ms >= 0; }, 10000));
        qInfo("stored review opened to a painted table in %lld ms", painted.ms);

        QVERIFY(!screen.approveButton()->isEnabled());
        QVERIFY(screen.overrideButton()->isVisible());
        QVERIFY(screen.overrideButton()->isEnabled());
        QVERIFY2(screen.actionNote().contains(QLatin1String("Validation failed")), qPrintable(screen.actionNote()));
        QVERIFY(screen.ruleText(5).contains(QLatin1String("Outside: failing")));
        QVERIFY(screen.ruleText(4).contains(QLatin1String("Claim held")));
        screen.proxyModel()->setFilter(model::ReviewProxyModel::Filter::Problems);
        QCOMPARE(screen.proxyModel()->index(0, 0).data().toString(), QStringLiteral("2026-03-09"));
        QCOMPARE(screen.proxyModel()->index(0, 1).data().toString(), QStringLiteral("outside"));
        QVERIFY(screen.lastLoadMs() >= 0);
        qInfo("review opened to table filled in %lld ms", screen.lastLoadMs());

        // Copy as TSV: a header line and one line per row shown.
        const QString tsv = screen.copySelection();
        QCOMPARE(QApplication::clipboard()->text(), tsv);
        QCOMPARE(tsv.count(QLatin1Char('\n')), 1 + screen.proxyModel()->rowCount());

        // Override: a note, a reason, then a second confirmation; cancelling stores nothing.
        QVERIFY(approve(screen, true, QStringLiteral("reviewed"), QStringLiteral("ticket 42: the 09th is fixed separately")));
        auto *confirm = waitForChild<QMessageBox>(&screen, QStringLiteral("overrideConfirm"));
        QVERIFY(confirm);
        confirm->button(QMessageBox::Cancel)->click();
        QTest::qWait(200);
        QCOMPARE(test::scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", {std::to_string(id)}), std::string("staged"));

        QSignalSpy published(&screen, &ReviewScreen::published);
        QVERIFY(approve(screen, true, QStringLiteral("reviewed"), QStringLiteral("ticket 42: the 09th is fixed separately")));
        confirm = waitForChild<QMessageBox>(&screen, QStringLiteral("overrideConfirm"));
        QVERIFY(confirm);
        QPushButton *anyway = buttonWithText(confirm, QStringLiteral("Publish Anyway"));
        QVERIFY(anyway);
        anyway->click();
        QVERIFY(published.wait(120000));
        QCOMPARE(test::scalar(db, "SELECT status || '|' || override_reason || '|' || note FROM reprint.backfills WHERE id = $1",
                              {std::to_string(id)}),
                 std::string("published|ticket 42: the 09th is fixed separately|reviewed"));
        QCOMPARE(test::scalar(db, "SELECT override_reason FROM reprint.audit WHERE backfill_id = $1 AND action = 'publish'",
                              {std::to_string(id)}),
                 std::string("ticket 42: the 09th is fixed separately"));
    }

    // A failed validation has a way out on this screen: Abandon asks, says what is dropped,
    // then frees the window (read back: abandoned, no claim, no stage table).
    void failedValidationCanBeAbandonedHere()
    {
        const std::string db = test::demoCopy("tst_reviewscreen_abandon");
        int code = -1;
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-10"), QStringLiteral("2026-03-14"), &code);
        QCOMPARE(code, 3);
        const std::string ids = std::to_string(id);
        const std::string stage = test::scalar(db, "SELECT stage_table FROM reprint.backfills WHERE id = $1", {ids});
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screen.resize(1280, 800);
        screenEngine.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
        screen.show();
        QVERIFY(openAndWait(screen, id));
        QTRY_VERIFY(screen.abandonButton()->isVisible() && screen.abandonButton()->isEnabled());

        screen.abandonButton()->click();
        auto *confirm = waitForChild<QMessageBox>(&screen, QStringLiteral("abandonConfirm"));
        QVERIFY(confirm);
        QVERIFY(confirm->informativeText().contains(QLatin1String("Nothing is published")));
        buttonWithText(confirm, QStringLiteral("Keep It"))->click();
        QTest::qWait(200);
        QCOMPARE(test::scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", {ids}), std::string("staged"));

        screen.abandonButton()->click();
        confirm = waitForChild<QMessageBox>(&screen, QStringLiteral("abandonConfirm"));
        QVERIFY(confirm);
        buttonWithText(confirm, QStringLiteral("Abandon Backfill"))->click();
        QTRY_COMPARE_WITH_TIMEOUT(test::scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", {ids}), std::string("abandoned"), 20000);
        QCOMPARE(test::scalar(db, "SELECT count(*) FROM reprint.claims WHERE backfill_id = $1", {ids}), std::string("0"));
        QCOMPARE(test::scalar(db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'reprint_staging' AND tablename = $1", {stage}),
                 std::string("0"));
        QTRY_VERIFY_WITH_TIMEOUT(screen.actionNote().contains(QLatin1String("Abandoned backfill")), 10000);
        // The note shows at once; the buttons follow the review read back.
        QTRY_VERIFY_WITH_TIMEOUT(!screen.abandonButton()->isVisible(), 10000);
        QVERIFY(!screen.approveButton()->isEnabled());
    }

    // A cascade on the Review screen: a tab per member, each with its own totals; Approve
    // stays off until every member's review was opened, is off on a member (approve at the
    // root), and its dialog lists every backfill it publishes; publishing publishes both.
    void cascadeShowsEveryMemberBeforeApproval()
    {
        const std::string db = test::demoCopy("tst_reviewscreen_cascade");
        const test::ProcessResult p = test::runReprint({QStringLiteral("backfill"), QStringLiteral("--spec"), test::demoSpec(),
                                                        QStringLiteral("--db"), QString::fromStdString(db), QStringLiteral("--model"),
                                                        QStringLiteral("fct_order_lines"), QStringLiteral("--from"), QStringLiteral("2026-03-09"),
                                                        QStringLiteral("--to"), QStringLiteral("2026-03-14"), QStringLiteral("--cascade")});
        QVERIFY2(p.exitCode == 0, qPrintable(p.err));
        const qint64 root = std::stoll(test::scalar(db, "SELECT min(id) FROM reprint.backfills"));
        const qint64 member = std::stoll(test::scalar(db, "SELECT id FROM reprint.backfills WHERE parent_id IS NOT NULL"));
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screen.resize(1280, 800);
        screenEngine.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
        screen.show();
        QVERIFY(openAndWait(screen, root));
        QTabBar *tabs = screen.cascadeTabs();
        QVERIFY(tabs->isVisible());
        QCOMPARE(tabs->count(), 2);
        QVERIFY(tabs->tabText(1).contains(QLatin1String("agg_daily_revenue")));
        QVERIFY(!screen.approveButton()->isEnabled());
        QVERIFY2(screen.actionNote().contains(QLatin1String("Not opened yet: agg_daily_revenue")), qPrintable(screen.actionNote()));

        // The member's own review: its totals, and no approval there.
        QSignalSpy loaded(&screen, &ReviewScreen::reviewLoaded);
        tabs->setCurrentIndex(1);
        QTRY_VERIFY_WITH_TIMEOUT(screen.reviewModel()->review().backfillId == member, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(screen.reviewModel()->measures().contains(QStringLiteral("orders")), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(screen.actionNote().contains(QLatin1String("part of the cascade")), 30000);
        QVERIFY(!screen.approveButton()->isEnabled());

        tabs->setCurrentIndex(0);
        QTRY_VERIFY_WITH_TIMEOUT(screen.reviewModel()->review().backfillId == root, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(screen.approveButton()->isEnabled(), 30000);
        screen.approveButton()->click();
        auto *dialog = waitForChild<QDialog>(&screen, QStringLiteral("approveDialog"));
        QVERIFY(dialog);
        QString intro;
        for (QLabel *l : dialog->findChildren<QLabel *>())
            intro += l->text();
        QVERIFY2(intro.contains(QLatin1String("This publishes 2 backfills")) && intro.contains(QLatin1String("agg_daily_revenue")),
                 qPrintable(intro));
        dialog->findChild<QLineEdit *>(QStringLiteral("approvalNote"))->setText(QStringLiteral("both models read"));
        QSignalSpy published(&screen, &ReviewScreen::published);
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QVERIFY(published.wait(120000));
        QCOMPARE(test::scalar(db, "SELECT string_agg(status, ',' ORDER BY id) FROM reprint.backfills"), std::string("published,published"));
    }

    void honestWindowPublishesAndUndoes()
    {
        const std::string db = test::demoCopy("tst_reviewscreen_honest");
        int code = -1;
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"), &code);
        QCOMPARE(code, 0);
        const std::string truth = test::scalar(db, "SELECT sum(round(l.quantity * l.unit_price * (1 - l.discount), 2))::text "
                                                   "FROM raw.order_lines l JOIN raw.orders o USING (order_id) "
                                                   "WHERE o.ordered_at >= '2026-03-09 00:00+00' AND o.ordered_at < '2026-03-15 00:00+00'");
        const std::string before = test::scalar(db, "SELECT sum(revenue)::text FROM analytics.fct_order_lines "
                                                    "WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14'");
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screen.resize(1280, 800);
        screenEngine.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
        screen.show();
        QVERIFY(openAndWait(screen, id));
        QVERIFY(screen.approveButton()->isEnabled());
        QVERIFY(!screen.overrideButton()->isVisible());
        QVERIFY2(screen.ruleText(1).contains(QLatin1String("6 of the table's")), qPrintable(screen.ruleText(1)));
        QVERIFY2(screen.ruleText(2).contains(QLatin1String("equals the scheduled run's")), qPrintable(screen.ruleText(2)));
        QVERIFY(screen.ruleText(5).contains(QLatin1String("2026-03-09, 2026-03-14")));

        // The inspector opens on the first partition of the window, with the slipped rows.
        QVERIFY(QTest::qWaitFor([&] { return screen.inspector()->added() >= 0; }, 60000));
        QCOMPARE(screen.inspector()->partition(), QStringLiteral("2026-03-09"));
        QVERIFY(screen.inspector()->added() > 0);
        QVERIFY(QTest::qWaitFor([&] { return screen.inspector()->rowDiffModel()->rowCount() > 0; }, 60000));
        QCOMPARE(screen.inspector()->rowDiffModel()->index(0, 0).data().toString(), QStringLiteral("added"));
        QVERIFY(screen.inspector()->partitions().contains(QStringLiteral("2026-03-08")));
        QVERIFY(screen.inspector()->partitions().contains(QStringLiteral("2026-03-15")));

        QSignalSpy published(&screen, &ReviewScreen::published);
        QVERIFY(approve(screen, false, QStringLiteral("INC-7 fix, totals match the source")));
        QVERIFY(!screen.approveButton()->isEnabled());  // off while publishing
        QVERIFY(published.wait(120000));
        const auto outcome = published.first().at(1).value<backfill::PublishOutcome>();
        QVERIFY(outcome.rowsInserted > 0);
        const std::string user = test::scalar(db, "SELECT current_user::text");
        QCOMPARE(outcome.approver, user);
        QCOMPARE(test::scalar(db, "SELECT sum(revenue)::text FROM analytics.fct_order_lines "
                                  "WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14'"),
                 truth);

        // The screen reloads it as published, read-only, with Undo; history agrees.
        QVERIFY(QTest::qWaitFor([&] { return screen.reviewModel()->review().status == backfill::BackfillStatus::Published && screen.undoButton()->isEnabled(); }, 60000));
        QVERIFY(!screen.approveButton()->isEnabled());
        QVERIFY(QTest::qWaitFor([&] { return screen.historyView()->historyModel()->rowOf(id) >= 0
                                             && screen.historyView()->historyModel()->rows()[std::size_t(screen.historyView()->historyModel()->rowOf(id))].status == backfill::BackfillStatus::Published; }, 60000));
        const auto &row = screen.historyView()->historyModel()->rows()[std::size_t(screen.historyView()->historyModel()->rowOf(id))];
        QCOMPARE(row.approver, user);
        QCOMPARE(row.note, std::string("INC-7 fix, totals match the source"));
        const auto cli = test::runReprint({QStringLiteral("history"), QStringLiteral("--spec"), test::demoSpec(), QStringLiteral("--db"),
                                           QString::fromStdString(db), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(cli.exitCode, 0);
        QVERIFY(cli.out.contains(QLatin1String("INC-7 fix, totals match the source")));

        // The review packet, exported from the screen: who approved what, every partition.
        QTemporaryDir out;
        const QString packet = out.filePath(QStringLiteral("review.html"));
        QSignalSpy exported(&screen, &ReviewScreen::exported);
        screen.exportReview(packet);
        QVERIFY(exported.wait(60000));
        QFile file(packet);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(file.readAll());
        QVERIFY(html.contains(QStringLiteral("2026-03-09 … 2026-03-14")));
        QVERIFY(html.contains(QString::fromStdString(user)));
        QVERIFY(html.contains(QStringLiteral("INC-7 fix, totals match the source")));
        for (int r = 0; r < screen.reviewModel()->partitionCount(); ++r)
            QVERIFY(html.contains(QStringLiteral("<td>") + screen.reviewModel()->index(r, 0).data().toString() + QStringLiteral("</td>")));

        // Undo, after a confirmation.
        QSignalSpy undone(&screen, &ReviewScreen::undone);
        screen.undoButton()->click();
        auto *confirm = waitForChild<QMessageBox>(&screen, QStringLiteral("undoConfirm"));
        QVERIFY(confirm);
        QPushButton *go = buttonWithText(confirm, QStringLiteral("Undo Publish"));
        QVERIFY(go);
        go->click();
        QVERIFY(undone.wait(120000));
        QCOMPARE(test::scalar(db, "SELECT sum(revenue)::text FROM analytics.fct_order_lines "
                                  "WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14'"),
                 before);
        QCOMPARE(test::scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", {std::to_string(id)}), std::string("undone"));
    }

    // Undo after a later write of the window: refused by the drift guard; Undo anyway
    // needs a typed reason and a second confirmation, and the reason is stored.
    void undoAfterALaterWriteNeedsAReason()
    {
        const std::string db = test::demoCopy("tst_reviewscreen_undo_override");
        const std::string window = "SELECT md5(string_agg(t::text, '|' ORDER BY order_line_id)) FROM analytics.fct_order_lines t "
                                   "WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14'";
        const std::string before = test::scalar(db, window);
        int code = -1;
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"), &code);
        QCOMPARE(code, 0);
        const auto pub = test::runReprint({QStringLiteral("publish"), QStringLiteral("--spec"), test::demoSpec(), QStringLiteral("--db"),
                                           QString::fromStdString(db), QString::number(id), QStringLiteral("--approve"), QStringLiteral("ok")});
        QCOMPARE(pub.exitCode, 0);
        QVERIFY(test::execute(db, "UPDATE analytics.fct_order_lines SET quantity = quantity + 1 "
                                  "WHERE order_line_id = (SELECT min(order_line_id) FROM analytics.fct_order_lines WHERE order_date = '2026-03-12')")
                    .ok());
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screen.resize(1280, 800);
        screenEngine.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
        screen.show();
        QVERIFY(openAndWait(screen, id));
        QVERIFY(QTest::qWaitFor([&] { return screen.undoButton()->isEnabled(); }, 10000));

        QSignalSpy failed(&screen, &ReviewScreen::actionFailed);
        screen.undoButton()->click();
        auto *confirm = waitForChild<QMessageBox>(&screen, QStringLiteral("undoConfirm"));
        QVERIFY(confirm);
        buttonWithText(confirm, QStringLiteral("Undo Publish"))->click();
        QVERIFY(failed.wait(60000));
        QCOMPARE(failed.first().at(1).value<model::DatabaseError>().kind, backfill::EngineKind::Drift);
        auto *drift = waitForChild<QMessageBox>(&screen, QStringLiteral("undoDrift"));
        QVERIFY(drift);
        buttonWithText(drift, QStringLiteral("Undo anyway…"))->click();
        auto *dialog = waitForChild<QDialog>(&screen, QStringLiteral("undoOverrideDialog"));
        QVERIFY(dialog);
        QPushButton *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY(!ok->isEnabled());  // a reason is required
        dialog->findChild<QLineEdit *>(QStringLiteral("undoOverrideReason"))->setText(QStringLiteral("the 12th fix is redone next"));
        QVERIFY(ok->isEnabled());
        ok->click();
        auto *again = waitForChild<QMessageBox>(&screen, QStringLiteral("undoOverrideConfirm"));
        QVERIFY(again);
        QSignalSpy undone(&screen, &ReviewScreen::undone);
        buttonWithText(again, QStringLiteral("Undo anyway"))->click();
        QVERIFY(undone.wait(60000));
        QCOMPARE(test::scalar(db, window), before);
        QCOMPARE(test::scalar(db, "SELECT override_reason FROM reprint.audit WHERE backfill_id = $1 AND action = 'undo'", {std::to_string(id)}),
                 std::string("the 12th fix is redone next"));
    }

    // Cancel during publish (it waits for a writer of the window): the transaction rolls
    // back whole and the screen, having read it back, says the backfill is still staged.
    void cancelDuringPublishReadsBackTheOutcome()
    {
        QTemporaryDir dir;
        const QString spec = test::replaceSpec(dir);
        const std::string db = test::demoCopy("tst_reviewscreen_cancel_publish");
        int code = -1;
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"), &code, spec);
        QCOMPARE(code, 0);
        const std::string before = test::scalar(db, "SELECT sum(revenue)::text FROM analytics.fct_order_lines "
                                                    "WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14'");
        // A writer holds a row of the window.
        warehouse::IoThread io;
        auto writer = io.spawn(warehouse::Connection::connect(db)).get();
        QVERIFY(writer.ok());
        auto held = io.spawn([](warehouse::ConnectionPtr c) -> warehouse::Task<warehouse::Result<warehouse::Reply>> {
            auto r = co_await c->execute("BEGIN");
            if (!r)
                co_return r;
            co_return co_await c->execute("SELECT 1 FROM analytics.fct_order_lines WHERE order_date = '2026-03-12' LIMIT 1 FOR UPDATE");
        }(*writer)).get();
        QVERIFY(held.ok());

        model::EngineClient screenEngine;

        ReviewScreen screen(&screenEngine);
        screen.resize(1280, 800);
        screenEngine.setSpec(test::loadDemoSpec(spec), QString::fromStdString(db));
        screen.show();
        QVERIFY(openAndWait(screen, id));
        QVERIFY(approve(screen, false, QStringLiteral("will be cancelled")));
        QVERIFY(QTest::qWaitFor([&] { return screen.cancelPublishButton()->isVisible(); }, 5000));
        QVERIFY(QTest::qWaitFor([&] { return test::scalar(db, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'reprint' "
                                                              "AND wait_event_type = 'Lock'") == "1"; }, 10000));
        screen.cancelPublishButton()->click();
        QVERIFY2(QTest::qWaitFor([&] { return screen.actionNote().contains(QLatin1String("rolled back whole")); }, 30000), qPrintable(screen.actionNote()));
        QVERIFY(screen.actionNote().contains(QLatin1String("still staged")));
        QVERIFY(!screen.cancelPublishButton()->isVisible());
        QCOMPARE(test::scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", {std::to_string(id)}), std::string("staged"));
        io.spawn([](warehouse::ConnectionPtr c) -> warehouse::Task<int> {
            (void)co_await c->execute("ROLLBACK");
            c->close();
            co_return 0;
        }(*writer)).get();
        QCOMPARE(test::scalar(db, "SELECT sum(revenue)::text FROM analytics.fct_order_lines "
                                  "WHERE order_date BETWEEN '2026-03-09' AND '2026-03-14'"),
                 before);
    }

    void driftOpensTheDriftDialog()
    {
        const std::string db = test::demoCopy("tst_reviewscreen_drift");
        int code = -1;
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"), &code);
        QCOMPARE(code, 0);
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screenEngine.setSpec(test::loadDemoSpec(), QString::fromStdString(db));
        screen.show();
        QVERIFY(openAndWait(screen, id));
        QVERIFY(screen.approveButton()->isEnabled());
        // Something writes the window after validation.
        QVERIFY(test::execute(db, "UPDATE analytics.fct_order_lines SET revenue = revenue + 1 WHERE order_line_id = "
                                  "(SELECT min(order_line_id) FROM analytics.fct_order_lines WHERE order_date = '2026-03-11')"));
        QSignalSpy drift(&screen, &ReviewScreen::driftReported);
        QVERIFY(approve(screen, false, QStringLiteral("looks right")));
        QVERIFY(drift.wait(120000));
        auto *box = waitForChild<QMessageBox>(&screen, QStringLiteral("driftDialog"));
        QVERIFY(box);
        QVERIFY2(box->informativeText().contains(QLatin1String("2026-03-11")), qPrintable(box->informativeText()));
        QVERIFY(buttonWithText(box, QStringLiteral("Re-validate")));
        QCOMPARE(test::scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", {std::to_string(id)}), std::string("staged"));

        // Re-validate: abandon, stage the window again, open the new review.
        QSignalSpy revalidated(&screen, &ReviewScreen::revalidated);
        buttonWithText(box, QStringLiteral("Re-validate"))->click();
        QVERIFY(revalidated.wait(180000));
        const qint64 newId = revalidated.first().at(1).toLongLong();
        QVERIFY(newId > id);
        QCOMPARE(test::scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", {std::to_string(id)}), std::string("abandoned"));
        QVERIFY(QTest::qWaitFor([&] { return screen.backfillId() == newId && screen.approveButton()->isEnabled(); }, 60000));
    }

    void fourEyesRefusesTheOperator()
    {
        QTemporaryDir dir;
        const QString spec = test::fourEyesSpec(dir);
        QVERIFY(!spec.isEmpty());
        const std::string db = test::demoCopy("tst_reviewscreen_foureyes");
        int code = -1;
        const qint64 id = test::stageBackfill(db, QStringLiteral("2026-03-09"), QStringLiteral("2026-03-14"), &code, spec);
        QCOMPARE(code, 0);
        model::EngineClient screenEngine;
        ReviewScreen screen(&screenEngine);
        screenEngine.setSpec(test::loadDemoSpec(spec), QString::fromStdString(db));
        screen.show();
        QVERIFY(openAndWait(screen, id));
        QVERIFY(screen.facts().fourEyes);
        QVERIFY(!screen.approveButton()->isEnabled());
        QVERIFY2(screen.actionNote().contains(QLatin1String("four eyes")), qPrintable(screen.actionNote()));
        // The engine refuses it too (the CLI as the same user).
        const auto p = test::runReprint({QStringLiteral("publish"), QStringLiteral("--spec"), spec, QStringLiteral("--db"),
                                         QString::fromStdString(db), QString::number(id), QStringLiteral("--approve"),
                                         QStringLiteral("me again")});
        QVERIFY(p.exitCode != 0);
        QCOMPARE(test::scalar(db, "SELECT status FROM reprint.backfills WHERE id = $1", {std::to_string(id)}), std::string("staged"));
    }
};

QTEST_MAIN(ReviewScreenTest)
#include "tst_reviewscreen.moc"
