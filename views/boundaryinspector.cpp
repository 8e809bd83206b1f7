#include "boundaryinspector.h"

#include "engineclient.h"
#include "rowdiffmodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFont>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QDateTime>
#include <QTimeZone>
#include <QVBoxLayout>

#include <cstdlib>

namespace reprint::views {

namespace {

QLabel *countLabel(QWidget *parent, const QColor &colour)
{
    auto *label = new QLabel(parent);
    QFont f = label->font();
    f.setPointSizeF(f.pointSizeF() * 1.25);
    f.setBold(true);
    label->setFont(f);
    QPalette p = label->palette();
    p.setColor(QPalette::WindowText, colour);
    label->setPalette(p);
    return label;
}

bool isUtc(const QString &zone)
{
    const QTimeZone z(zone.toUtf8());
    return z.isValid() && !z.hasTransitions() && z.offsetFromUtc(QDateTime::currentDateTimeUtc()) == 0;
}

// "2026-03-09T00:00:00+01:00" as "2026-03-09 00:00 +01:00"; in UTC, with "UTC".
QString edgeText(const QDateTime &t, bool utc)
{
    if (utc)
        return t.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm")) + QStringLiteral(" UTC");
    const int offset = t.offsetFromUtc();
    return t.toString(QStringLiteral("yyyy-MM-dd HH:mm ")) + (offset < 0 ? QLatin1Char('-') : QLatin1Char('+'))
           + QTime(0, 0).addSecs(std::abs(offset)).toString(QStringLiteral("HH:mm"));
}

// Which zone the partition's edges are in, and where they lie.
QString zoneNote(const QString &partition, const QString &zone, const QString &startText, const QString &endText)
{
    const QDateTime start = QDateTime::fromString(startText, Qt::ISODate);
    const QDateTime end = QDateTime::fromString(endText, Qt::ISODate);
    if (!start.isValid() || !end.isValid())
        return QObject::tr("Partition edges are in %1, the model's timezone.").arg(zone);
    if (isUtc(zone))
        return QObject::tr("Partition edges are in UTC, the model's timezone: %1 runs from %2 to %3.")
            .arg(partition, edgeText(start, true), edgeText(end, true));
    return QObject::tr("Partition edges are in %1, the model's timezone: %2 runs from %3 to %4, that is %5 to %6.")
        .arg(zone, partition, edgeText(start, false), edgeText(end, false), edgeText(start, true), edgeText(end, true));
}

QString keyText(const QString &json)
{
    const QJsonObject o = QJsonDocument::fromJson(json.toUtf8()).object();
    QStringList parts;
    for (auto it = o.begin(); it != o.end(); ++it)
        parts << (o.size() > 1 ? it.key() + QLatin1Char('=') : QString()) + it.value().toVariant().toString();
    return parts.join(QStringLiteral(", "));
}

} // namespace

BoundaryInspector::BoundaryInspector(model::EngineClient *engine, QWidget *parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_rows(new model::RowDiffModel(engine, this))
{
    m_rows->setBatchSize(100);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 8, 0, 0);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Partition:"), this));
    m_partitionBox = new QComboBox(this);
    m_partitionBox->setObjectName(QStringLiteral("inspectorPartition"));
    m_partitionBox->setMinimumContentsLength(22);
    top->addWidget(m_partitionBox);
    m_placeLabel = new QLabel(this);
    m_placeLabel->setForegroundRole(QPalette::PlaceholderText);
    top->addWidget(m_placeLabel);
    top->addSpacing(24);
    m_addedLabel = countLabel(this, QColor(0x2e, 0x9e, 0x5b));
    m_removedLabel = countLabel(this, QColor(0xd6, 0x3b, 0x3b));
    m_changedLabel = countLabel(this, QColor(0xd9, 0x8c, 0x1f));
    top->addWidget(m_addedLabel);
    top->addSpacing(12);
    top->addWidget(m_removedLabel);
    top->addSpacing(12);
    top->addWidget(m_changedLabel);
    top->addStretch(1);
    layout->addLayout(top);
    m_diffNote = new QLabel(this);
    m_diffNote->setWordWrap(true);
    m_diffNote->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_diffNote);

    auto *split = new QSplitter(Qt::Vertical, this);
    auto *diffRow = new QSplitter(Qt::Horizontal, split);

    buildDiffPanes(diffRow);

    QWidget *edgeBox = buildEdgePane(split);
    split->addWidget(diffRow);
    split->addWidget(edgeBox);
    // Both panes take their share of a taller window; the handle moves the line between them.
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({300, 300});
    layout->addWidget(split, 1);

    connect(m_partitionBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0)
            openPartition(m_partitionBox->itemData(i).toString());
    });
    connect(m_onlyChanged, &QCheckBox::toggled, this, &BoundaryInspector::applyColumnFilter);
    connect(m_minutes, &QSpinBox::editingFinished, this, &BoundaryInspector::requestEdges);
    connect(m_rows, &model::RowDiffModel::modelReset, this, &BoundaryInspector::applyColumnFilter);
    connect(m_rows, &model::RowDiffModel::batchLoaded, this, [this](int) {
        const qint64 total = m_added + m_removed + m_changed;
        m_loadedLabel->setText(total >= 0 ? tr("%L1 of %L2 rows loaded").arg(m_rows->rowCount()).arg(total)
                                          : tr("%L1 rows loaded").arg(m_rows->rowCount()));
        if (m_rows->rowCount() > 0 && m_sampleView->horizontalHeader()->sectionSize(1) < 60)
            m_sampleView->resizeColumnsToContents();
    });
    connect(m_rows, &model::RowDiffModel::loadFailed, this, &BoundaryInspector::showError);

    connect(m_engine, &model::EngineClient::rowDiffFinished, this, &BoundaryInspector::showRowDiff);
    connect(m_engine, &model::EngineClient::failed, this, [this](quint64 token, const model::DatabaseError &e) {
        if (token == m_diffToken) {
            m_diffToken = 0;
            showError(e);
        }
    });
    connect(m_engine, &model::EngineClient::edgeRowsFinished, this, &BoundaryInspector::showEdgeRows);
    connect(m_engine, &model::EngineClient::failed, this, [this](quint64 token, const model::DatabaseError &e) {
        if (token == m_edgeToken) {
            m_edgeToken = 0;
            m_edgeNote->setText(e.sentence());
        }
    });
}

// Beside each other in `diffRow`: the changes per column, and the rows by key, old and new.
void BoundaryInspector::buildDiffPanes(QSplitter *diffRow)
{
    auto *columnsBox = new QGroupBox(tr("Changes per column"), diffRow);
    auto *columnsLayout = new QVBoxLayout(columnsBox);
    m_columnTable = new QTableWidget(0, 2, columnsBox);
    m_columnTable->setObjectName(QStringLiteral("columnChanges"));
    m_columnTable->setHorizontalHeaderLabels({tr("Column"), tr("Rows changed")});
    m_columnTable->verticalHeader()->hide();
    m_columnTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_columnTable->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_columnTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_columnTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    columnsLayout->addWidget(m_columnTable);

    auto *sampleBox = new QGroupBox(tr("Rows by key: old and new side by side"), diffRow);
    auto *sampleLayout = new QVBoxLayout(sampleBox);
    auto *sampleBar = new QHBoxLayout;
    m_onlyChanged = new QCheckBox(tr("Only columns that changed"), sampleBox);
    m_onlyChanged->setChecked(true);
    sampleBar->addWidget(m_onlyChanged);
    sampleBar->addStretch(1);
    m_loadedLabel = new QLabel(sampleBox);
    m_loadedLabel->setForegroundRole(QPalette::PlaceholderText);
    sampleBar->addWidget(m_loadedLabel);
    sampleLayout->addLayout(sampleBar);
    m_sampleView = new QTableView(sampleBox);
    m_sampleView->setObjectName(QStringLiteral("diffRows"));
    m_sampleView->setModel(m_rows);
    m_sampleView->setAlternatingRowColors(true);
    m_sampleView->verticalHeader()->hide();
    m_sampleView->verticalHeader()->setDefaultSectionSize(m_sampleView->fontMetrics().height() + 8);
    m_sampleView->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_sampleView->setSelectionBehavior(QAbstractItemView::SelectRows);
    sampleLayout->addWidget(m_sampleView);
    diffRow->addWidget(columnsBox);
    diffRow->addWidget(sampleBox);
    diffRow->setStretchFactor(0, 1);
    diffRow->setStretchFactor(1, 4);
    diffRow->setSizes({270, 760});
}

// Rows near the partition's start and end, and where each was filed before and after.
QWidget *BoundaryInspector::buildEdgePane(QWidget *parent)
{
    auto *edgeBox = new QGroupBox(tr("Edge view: rows near the partition's edges"), parent);
    auto *edgeLayout = new QVBoxLayout(edgeBox);
    auto *edgeBar = new QHBoxLayout;
    edgeBar->addWidget(new QLabel(tr("Within"), edgeBox));
    m_minutes = new QSpinBox(edgeBox);
    m_minutes->setObjectName(QStringLiteral("edgeMinutes"));
    m_minutes->setRange(1, 24 * 60);
    m_minutes->setValue(60);
    m_minutes->setSuffix(tr(" min"));
    edgeBar->addWidget(m_minutes);
    edgeBar->addWidget(new QLabel(tr("of the start or end"), edgeBox));
    edgeBar->addSpacing(16);
    m_edgeNote = new QLabel(edgeBox);
    m_edgeNote->setForegroundRole(QPalette::PlaceholderText);
    edgeBar->addWidget(m_edgeNote, 1);
    edgeLayout->addLayout(edgeBar);
    m_zoneNote = new QLabel(edgeBox);
    m_zoneNote->setObjectName(QStringLiteral("edgeZone"));
    m_zoneNote->setWordWrap(true);
    m_zoneNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    edgeLayout->addWidget(m_zoneNote);
    m_edgeTable = new QTableWidget(0, 6, edgeBox);
    m_edgeTable->setObjectName(QStringLiteral("edgeRows"));
    m_edgeTable->verticalHeader()->hide();
    m_edgeTable->verticalHeader()->setDefaultSectionSize(m_edgeTable->fontMetrics().height() + 8);
    m_edgeTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_edgeTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_edgeTable->setAlternatingRowColors(true);
    m_edgeTable->horizontalHeader()->setStretchLastSection(true);
    edgeLayout->addWidget(m_edgeTable);
    return edgeBox;
}

// The row diff of the partition asked for last: its counts, its columns, then its rows.
void BoundaryInspector::showRowDiff(quint64 token, const backfill::RowDiff &d)
{
    if (token != m_diffToken)
        return;
    m_diffToken = 0;
    m_added = d.added;
    m_removed = d.removed;
    m_changed = d.changed;
    m_addedLabel->setText(tr("+%L1 added").arg(d.added));
    m_removedLabel->setText(tr("−%L1 removed").arg(d.removed));
    m_changedLabel->setText(tr("~%L1 changed").arg(d.changed));
    m_columnTable->setRowCount(0);
    m_changedColumns.clear();
    for (const auto &c : d.columnChanges) {
        const int r = m_columnTable->rowCount();
        m_columnTable->insertRow(r);
        m_columnTable->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(c.column)));
        auto *n = new QTableWidgetItem(QLocale().toString(c.count));
        n->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (c.count > 0) {
            QFont f = n->font();
            f.setBold(true);
            n->setFont(f);
            m_changedColumns << QString::fromStdString(c.column);
        }
        m_columnTable->setItem(r, 1, n);
    }
    m_rows->setPartition(d.backfillId, QString::fromStdString(d.partition), d.added + d.removed + d.changed);
    m_diffNote->setText(d.added + d.removed + d.changed == 0
                            ? tr("No row of %1 differs by key: the backfill leaves it as it is.").arg(QString::fromStdString(d.partition))
                            : tr("Rows of the target before the backfill (old) and after it (new), matched by key. "
                                 "Scroll to load more."));
    if (m_rows->canFetchMore({}))
        m_rows->fetchMore({});
    Q_EMIT diffLoaded(QString::fromStdString(d.partition));
}

// The rows near the edges of the partition asked for last.
void BoundaryInspector::showEdgeRows(quint64 token, const backfill::EdgeRows &e)
{
    if (token != m_edgeToken)
        return;
    m_edgeToken = 0;
    const QString tz = QString::fromStdString(e.timezone);
    const QString column = QString::fromStdString(e.instantColumn);
    // The model's zone gets a column of its own only when it is not UTC.
    const bool utcModel = isUtc(tz);
    m_edgeTable->setHorizontalHeaderLabels({tr("Key"), tr("%1 (UTC)").arg(column), tr("%1 (%2)").arg(column, tz),
                                            tr("Filed in, before"), tr("Filed in, after"), tr("Edge")});
    m_edgeTable->setColumnHidden(2, utcModel);
    m_zoneNote->setText(zoneNote(partition(), tz, QString::fromStdString(e.partitionStart), QString::fromStdString(e.partitionEnd)));
    m_edgeTable->setRowCount(0);
    int moved = 0;
    for (const auto &r : e.rows) {
        const int row = m_edgeTable->rowCount();
        m_edgeTable->insertRow(row);
        const QString before = QString::fromStdString(r.oldPartition);
        const QString after = QString::fromStdString(r.newPartition);
        const bool differs = before != after;
        moved += differs;
        const QStringList cells = {keyText(QString::fromStdString(r.key)), QString::fromStdString(r.instantUtc),
                                   QString::fromStdString(r.instantLocal), before.isEmpty() ? tr("(not there)") : before,
                                   after.isEmpty() ? tr("(not there)") : after, QString::fromStdString(r.edge)};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells.at(c));
            if (differs && (c == 3 || c == 4)) {
                item->setBackground(QColor(0xd9, 0x8c, 0x1f, c == 4 ? 70 : 35));
                QFont f = item->font();
                f.setBold(c == 4);
                item->setFont(f);
            }
            m_edgeTable->setItem(row, c, item);
        }
    }
    m_edgeTable->resizeColumnsToContents();
    if (e.instantColumn.empty())
        m_edgeNote->setText(tr("The target has no timestamp column to place rows near an edge."));
    else
        m_edgeNote->setText(tr("%L1 rows; %L2 filed in a different partition after the backfill (highlighted).")
                                .arg(e.rows.size())
                                .arg(moved));
    Q_EMIT edgeRowsLoaded(partition(), int(e.rows.size()));
}

void BoundaryInspector::setReview(const backfill::Review &review)
{
    m_review = review;
    const QSignalBlocker block(m_partitionBox);
    m_partitionBox->clear();
    for (const auto &p : review.partitions) {
        if (!p.boundary && p.inScope)
            continue;
        const QString name = QString::fromStdString(p.partition);
        m_partitionBox->addItem(p.inScope ? tr("%1  (boundary)").arg(name) : tr("%1  (outside)").arg(name), name);
    }
    // Then every other partition of the window, for a closer look.
    for (const auto &p : review.partitions)
        if (p.inScope && !p.boundary)
            m_partitionBox->addItem(QString::fromStdString(p.partition), QString::fromStdString(p.partition));
    // Open on the first partition of the window.
    for (const auto &p : review.partitions)
        if (p.inScope) {
            openPartition(QString::fromStdString(p.partition));
            return;
        }
}

QStringList BoundaryInspector::partitions() const
{
    QStringList out;
    for (int i = 0; i < m_partitionBox->count(); ++i)
        out << m_partitionBox->itemData(i).toString();
    return out;
}

QString BoundaryInspector::partition() const
{
    return m_partitionBox->currentData().toString();
}

bool BoundaryInspector::openPartition(const QString &name)
{
    const int i = m_partitionBox->findData(name);
    if (i < 0)
        return false;
    {
        const QSignalBlocker block(m_partitionBox);
        m_partitionBox->setCurrentIndex(i);
    }
    const backfill::PartitionReview *p = nullptr;
    for (const auto &pr : m_review.partitions)
        if (QString::fromStdString(pr.partition) == name)
            p = &pr;
    m_added = m_removed = m_changed = -1;
    m_columnTable->setRowCount(0);
    m_rows->clear();
    m_loadedLabel->clear();
    m_addedLabel->clear();
    m_removedLabel->clear();
    m_changedLabel->clear();
    if (p && !p->inScope) {
        m_placeLabel->setText(tr("just outside the window"));
        m_diffToken = 0;
        m_diffNote->setText(tr("%1 is outside the window: the backfill does not write it, so it has no row diff. "
                               "The edge view shows the rows that cross into the window.")
                                .arg(name));
    } else {
        m_placeLabel->setText(p && p->boundary ? tr("boundary of the window") : tr("in the window"));
        m_diffNote->setText(tr("Loading the row diff…"));
        m_diffToken = m_engine->rowDiff(m_review.backfillId, name);
    }
    requestEdges();
    return true;
}

void BoundaryInspector::requestEdges()
{
    const QString name = partition();
    if (name.isEmpty())
        return;
    m_edgeNote->setText(tr("Loading…"));
    m_edgeToken = m_engine->edgeRows(m_review.backfillId, name, m_minutes->value());
}

void BoundaryInspector::applyColumnFilter()
{
    const QStringList columns = m_rows->valueColumns();
    for (int i = 0; i < columns.size(); ++i) {
        const bool hide = m_onlyChanged->isChecked() && !m_changedColumns.isEmpty() && !m_changedColumns.contains(columns.at(i))
                          && m_changed > 0;
        m_sampleView->setColumnHidden(2 + 2 * i, hide);
        m_sampleView->setColumnHidden(3 + 2 * i, hide);
    }
}

void BoundaryInspector::showError(const model::DatabaseError &error)
{
    m_diffNote->setText(error.sentence());
}

} // namespace reprint::views
