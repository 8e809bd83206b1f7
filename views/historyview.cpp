#include "historyview.h"

#include "engineclient.h"
#include "historymodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace reprint::views {

// Status equals, and the window contains the partition (partition names of one grain
// sort as text in time order).
class HistoryView::Filter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    QString status;
    QString partition;
    void refilter() { invalidateFilter(); }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        const QModelIndex i = sourceModel()->index(row, 0, parent);
        if (!status.isEmpty() && i.data(model::HistoryModel::StatusRole).toString() != status)
            return false;
        if (!partition.isEmpty()) {
            const QString from = i.data(model::HistoryModel::FromRole).toString();
            const QString to = i.data(model::HistoryModel::ToRole).toString();
            if (partition < from.left(partition.size()) || partition > to.left(partition.size()))
                return false;
        }
        return true;
    }
};

HistoryView::HistoryView(model::EngineClient *engine, QWidget *parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_model(new model::HistoryModel(this))
    , m_filter(new Filter(this))
{
    m_filter->setSourceModel(m_model);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 8, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Status:"), this));
    m_status = new QComboBox(this);
    m_status->setObjectName(QStringLiteral("historyStatus"));
    m_status->addItem(tr("All"), QString());
    for (const char *s : {"staged", "published", "undone", "failed", "abandoned", "staging"})
        m_status->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
    bar->addWidget(m_status);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Window contains:"), this));
    m_partition = new QLineEdit(this);
    m_partition->setObjectName(QStringLiteral("historyPartition"));
    m_partition->setPlaceholderText(tr("a partition, e.g. 2026-03-10"));
    m_partition->setClearButtonEnabled(true);
    m_partition->setMaximumWidth(220);
    bar->addWidget(m_partition);
    bar->addStretch(1);
    m_note = new QLabel(this);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    bar->addWidget(m_note);
    auto *refreshButton = new QPushButton(tr("Refresh"), this);
    bar->addWidget(refreshButton);
    auto *openButton = new QPushButton(tr("Open Review"), this);
    openButton->setObjectName(QStringLiteral("historyOpen"));
    bar->addWidget(openButton);
    layout->addLayout(bar);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("historyTable"));
    m_table->setModel(m_filter);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(model::HistoryModel::Id, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    layout->addWidget(m_table, 1);

    connect(m_status, &QComboBox::currentIndexChanged, this, [this] {
        m_filter->status = m_status->currentData().toString();
        m_filter->refilter();
    });
    connect(m_partition, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_filter->partition = text.trimmed();
        m_filter->refilter();
    });
    connect(refreshButton, &QPushButton::clicked, this, [this] { refresh(m_modelName); });
    auto activate = [this](const QModelIndex &index) {
        if (index.isValid())
            Q_EMIT backfillActivated(index.data(model::HistoryModel::IdRole).toLongLong());
    };
    connect(m_table, &QTableView::activated, this, activate);
    connect(m_table, &QTableView::doubleClicked, this, activate);
    connect(openButton, &QPushButton::clicked, this, [this, activate] { activate(m_table->currentIndex()); });

    connect(m_engine, &model::EngineClient::historyFinished, this, [this](quint64 token, const model::HistoryRows &rows) {
        if (token != m_token)
            return;
        m_token = 0;
        model::HistoryRows only;
        for (const auto &r : rows)
            if (r.kind != "run")
                only.push_back(r);
        m_model->setRows(only);
        m_table->resizeColumnsToContents();
        for (int c = 0; c < m_model->columnCount(); ++c)
            m_table->setColumnWidth(c, std::min(m_table->columnWidth(c) + 16, 320));
        m_note->setText(only.size() == 1 ? tr("One backfill") : tr("%n backfills", nullptr, int(only.size())));
        Q_EMIT historyLoaded(int(only.size()));
    });
    connect(m_engine, &model::EngineClient::failed, this, [this](quint64 token, const model::DatabaseError &e) {
        if (token != m_token)
            return;
        m_token = 0;
        m_note->setText(e.sentence());
    });
}

void HistoryView::refresh(const QString &modelName)
{
    m_modelName = modelName;
    m_note->setText(tr("Loading…"));
    m_token = m_engine->history(modelName);
}

void HistoryView::setStatusFilter(const QString &status)
{
    m_status->setCurrentIndex(std::max(0, m_status->findData(status)));
}

void HistoryView::setPartitionFilter(const QString &partition)
{
    m_partition->setText(partition);
}

} // namespace reprint::views
