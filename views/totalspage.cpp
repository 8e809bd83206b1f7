#include "totalspage.h"

#include "frozencolumnsview.h"
#include "reviewchart.h"

#include "reviewmodel.h"
#include "reviewproxymodel.h"

#include <QAction>
#include <QApplication>
#include <QButtonGroup>
#include <QClipboard>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>

namespace reprint::views {

using model::ReviewModel;
using Field = ReviewModel::Field;
using backfill::Verdict;

TotalsPage::TotalsPage(model::ReviewModel *model, model::ReviewProxyModel *proxy, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(proxy)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 8, 0, 0);
    layout->addLayout(buildBar());
    layout->addWidget(buildTable(this), 1);
}

// The filters, the measures shown, Copy, how many rows are shown and the measures charted.
QLayout *TotalsPage::buildBar()
{
    auto *bar = new QHBoxLayout;
    bar->setSpacing(4);
    m_filterGroup = new QButtonGroup(this);
    const QString filters[] = {tr("All"), tr("Changed"), tr("Problems only")};
    for (int i = 0; i < 3; ++i) {
        auto *b = new QToolButton(this);
        b->setText(filters[i]);
        b->setCheckable(true);
        b->setAutoRaise(false);
        b->setObjectName(QStringLiteral("filter%1").arg(i));
        m_filterGroup->addButton(b, i);
        bar->addWidget(b);
    }
    m_filterGroup->button(0)->setChecked(true);
    connect(m_filterGroup, &QButtonGroup::idClicked, this, [this](int id) {
        m_proxy->setFilter(model::ReviewProxyModel::Filter(id));
        updateRowsNote();
    });
    bar->addSpacing(12);
    m_measuresButton = new QToolButton(this);
    m_measuresButton->setObjectName(QStringLiteral("measuresButton"));
    m_measuresButton->setText(tr("Measures"));
    m_measuresButton->setToolTip(tr("Choose the measures whose old, new, delta, source and verdict columns are shown side by side."));
    m_measuresButton->setPopupMode(QToolButton::InstantPopup);
    m_measuresButton->setMenu(new QMenu(m_measuresButton));
    bar->addWidget(m_measuresButton);
    auto *copy = new QToolButton(this);
    copy->setText(tr("Copy as TSV"));
    copy->setToolTip(tr("Copies the selected cells (or the whole table) as tab-separated text (%1).")
                         .arg(QKeySequence(QKeySequence::Copy).toString(QKeySequence::NativeText)));
    connect(copy, &QToolButton::clicked, this, [this] { copySelection(); });
    bar->addWidget(copy);
    bar->addSpacing(12);
    m_rowsNote = new QLabel(this);
    m_rowsNote->setForegroundRole(QPalette::PlaceholderText);
    m_rowsNote->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_rowsNote);
    bar->addStretch(1);
    m_chartButton = new QToolButton(this);
    m_chartButton->setObjectName(QStringLiteral("chartMeasures"));
    m_chartButton->setPopupMode(QToolButton::InstantPopup);
    m_chartButton->setMenu(new QMenu(m_chartButton));
    m_chartButton->setToolTip(tr("Choose the measures charted: one chart each, side by side."));
    bar->addWidget(m_chartButton);
    return bar;
}

// The totals table above the chart, in a splitter.
QWidget *TotalsPage::buildTable(QWidget *parent)
{
    auto *split = new QSplitter(Qt::Vertical, parent);
    m_table = new FrozenColumnsView(ReviewModel::kFixedColumns, split);
    m_table->installEventFilter(this);
    m_table->setObjectName(QStringLiteral("totalsTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(0, Qt::AscendingOrder);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->setWordWrap(false);
    auto *copyShortcut = new QShortcut(QKeySequence::Copy, m_table, nullptr, nullptr, Qt::WidgetShortcut);
    connect(copyShortcut, &QShortcut::activated, this, [this] { copySelection(); });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &i) {
        const QString p = i.data(ReviewModel::PartitionRole).toString();
        if (!p.isEmpty())
            Q_EMIT partitionActivated(p);
    });
    split->addWidget(m_table);

    m_chart = new ReviewChart(m_model);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    return split;
}

void TotalsPage::showReview(const QString &modelName)
{
    m_table->sortByColumn(m_table->horizontalHeader()->sortIndicatorSection(), m_table->horizontalHeader()->sortIndicatorOrder());
    if (modelName != m_measuresModel) {
        m_measuresModel = modelName;
        m_measuresChosen = false;
    }
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_table->setColumnHidden(c, false);
    m_table->resizeColumnsToContents();
    m_columnWidths.clear();
    for (int c = 0; c < m_model->columnCount(); ++c) {
        m_table->setColumnWidth(c, m_table->columnWidth(c) + 10);
        m_columnWidths.push_back(m_table->columnWidth(c));
    }
    rebuildMeasureMenus();
    applyShownMeasures(m_measuresChosen ? m_shownMeasures : measuresThatFit());
    updateRowsNote();
    setChartMeasures(m_chartMeasures);
}

void TotalsPage::updateRowsNote()
{
    m_rowsNote->setText(tr("%n of %1 partitions shown", nullptr, m_proxy->rowCount() - 1).arg(m_model->partitionCount()));
}

void TotalsPage::setChartMeasures(const QStringList &measures)
{
    QStringList chosen;
    for (const QString &m : m_model->measures())
        if (measures.contains(m))
            chosen << m;
    if (chosen.isEmpty() && !m_model->measures().isEmpty())
        chosen << (m_model->measures().size() > 1 ? m_model->measures().at(1) : m_model->measures().constFirst());
    m_chartMeasures = chosen;
    for (QAction *a : m_chartButton->menu()->actions()) {
        const QSignalBlocker block(a);
        a->setChecked(chosen.contains(a->text()));
        a->setEnabled(!(chosen.size() == 1 && chosen.contains(a->text())));
    }
    m_chartButton->setText(tr("Chart: %1").arg(chosen.isEmpty() ? tr("none") : chosen.join(QStringLiteral(", "))));
    m_chart->setMeasures(chosen);
}

QList<QChartView *> TotalsPage::chartViews() const
{
    return m_chart->chartViews();
}

namespace {

// One checkable entry per measure in `menu`; toggling one passes `chosen()` with that
// measure added or removed to `apply`.
template <typename Chosen, typename Apply>
void fillMeasureMenu(QMenu *menu, const QStringList &measures, QObject *context, Chosen chosen, Apply apply)
{
    menu->clear();
    for (const QString &m : measures) {
        QAction *a = menu->addAction(m);
        a->setCheckable(true);
        QObject::connect(a, &QAction::toggled, context, [m, chosen, apply](bool on) {
            QStringList next = chosen();
            if (on)
                next << m;
            else
                next.removeAll(m);
            apply(next);
        });
    }
}

} // namespace

void TotalsPage::rebuildMeasureMenus()
{
    const QStringList measures = m_model->measures();
    QMenu *menu = m_measuresButton->menu();
    fillMeasureMenu(menu, measures, this, [this] { return m_shownMeasures; }, [this](const QStringList &m) { setShownMeasures(m); });
    menu->addSeparator();
    connect(menu->addAction(tr("All measures")), &QAction::triggered, this, [this] { setShownMeasures(m_model->measures()); });
    connect(menu->addAction(tr("As many as fit the width")), &QAction::triggered, this, [this] { setShownMeasures({}); });
    fillMeasureMenu(m_chartButton->menu(), measures, this, [this] { return m_chartMeasures; },
                    [this](const QStringList &m) { setChartMeasures(m); });
}

void TotalsPage::setShownMeasures(const QStringList &measures)
{
    bool any = false;
    for (const QString &m : measures)
        any = any || m_model->measures().contains(m);
    m_measuresChosen = any;
    applyShownMeasures(any ? measures : measuresThatFit());
}

void TotalsPage::applyShownMeasures(const QStringList &wanted)
{
    const QStringList measures = m_model->measures();
    QStringList shown;
    for (const QString &m : measures)
        if (wanted.contains(m))
            shown << m;
    if (shown.isEmpty() && !measures.isEmpty())
        shown << measures.constFirst();
    m_shownMeasures = shown;
    for (int i = 0; i < measures.size(); ++i)
        for (int f = 0; f < ReviewModel::kFieldsPerMeasure; ++f)
            m_table->setColumnHidden(m_model->columnFor(i, Field(f)), !shown.contains(measures.at(i)));
    for (QAction *a : m_measuresButton->menu()->actions()) {
        if (!a->isCheckable())
            continue;
        const QSignalBlocker block(a);
        a->setChecked(shown.contains(a->text()));
        a->setEnabled(!(shown.size() == 1 && shown.contains(a->text())));  // one stays
    }
    m_measuresButton->setText(shown.size() == measures.size() ? tr("Measures: all %1").arg(measures.size())
                                                              : tr("Measures: %1 of %2").arg(shown.size()).arg(measures.size()));
}

QStringList TotalsPage::measuresThatFit() const
{
    const QStringList measures = m_model->measures();
    const int available = m_table->viewport()->width();
    // A hidden column's width is 0: measure with the widths the columns had when shown.
    auto width = [this](int column) { return column < int(m_columnWidths.size()) ? m_columnWidths[column] : m_table->columnWidth(column); };
    auto widthOf = [&](int i) {
        int w = 0;
        for (int f = 0; f < ReviewModel::kFieldsPerMeasure; ++f)
            w += width(m_model->columnFor(i, Field(f)));
        return w;
    };
    int total = width(0) + width(1);
    for (int i = 0; i < measures.size(); ++i)
        total += widthOf(i);
    if (total <= available)
        return measures;
    // Those with problems first, then those that changed most in the window, in order.
    std::vector<std::pair<int, int>> weight(measures.size());  // problems, changes
    for (int r = 0; r < m_model->partitionCount(); ++r)
        for (int i = 0; i < measures.size(); ++i) {
            const auto v = Verdict(m_model->index(r, m_model->columnFor(i, Field::Verdict)).data(ReviewModel::VerdictRole).toInt());
            weight[i].first += isProblem(v);
            weight[i].second += v != Verdict::Unchanged;
        }
    std::vector<int> order(measures.size());
    for (int i = 0; i < int(order.size()); ++i)
        order[i] = i;
    // Among equals, the declared measures before the row count: what the backfill is about.
    auto rank = [&](int i) { return std::tuple(weight[i].first, weight[i].second, measures.at(i) != QLatin1String("rows")); };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rank(a) > rank(b); });
    QStringList out;
    int used = width(0) + width(1);
    for (int i : order) {
        if (!out.isEmpty() && used + widthOf(i) > available)
            continue;
        used += widthOf(i);
        out << measures.at(i);
    }
    return out;
}

bool TotalsPage::eventFilter(QObject *watched, QEvent *event)
{
    // After the table has laid out its viewport at the new size.
    if (watched == m_table && event->type() == QEvent::Resize)
        QMetaObject::invokeMethod(this, [this] {
            if (!m_measuresChosen && m_model->partitionCount() > 0)
                applyShownMeasures(measuresThatFit());
        }, Qt::QueuedConnection);
    return QWidget::eventFilter(watched, event);
}

QString TotalsPage::copySelection()
{
    QModelIndexList indexes = m_table->selectionModel()->selectedIndexes();
    if (indexes.isEmpty()) {
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            for (int c = 0; c < m_proxy->columnCount(); ++c)
                if (!m_table->isColumnHidden(c))
                    indexes << m_proxy->index(r, c);
    }
    const QString text = ReviewModel::toTsv(indexes);
    QApplication::clipboard()->setText(text);
    return text;
}

} // namespace reprint::views
