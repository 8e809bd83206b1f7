#include "historymodel.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace reprint::model {

HistoryModel::HistoryModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void HistoryModel::setRows(const HistoryRows &rows)
{
    beginResetModel();
    m_rows = rows;
    endResetModel();
}

int HistoryModel::rowOf(qint64 id) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return int(i);
    return -1;
}

int HistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int HistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const backfill::HistoryRow &r = m_rows[std::size_t(index.row())];
    auto q = [](const std::string &s) { return QString::fromStdString(s); };
    switch (role) {
    case IdRole:
        return qint64(r.id);
    case StatusRole:
        return QLatin1String(backfill::toString(r.status));
    case FromRole:
        return q(r.from);
    case ToRole:
        return q(r.to);
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        switch (Column(index.column())) {
        case Id:
            return qint64(r.id);
        case Kind:
            return q(r.kind);
        case Status: {
            QString s = QLatin1String(backfill::toString(r.status));
            if (r.leaseExpired)
                s += tr(" (lease expired)");
            if (!r.validation.empty() && r.status != backfill::BackfillStatus::Published)
                s += QStringLiteral(" · ") + tr("validation %1").arg(q(r.validation));
            return s;
        }
        case Window:
            return r.from == r.to ? q(r.from) : q(r.from) + QStringLiteral(" … ") + q(r.to);
        case Operator:
            return q(r.operatorName);
        case Approver:
            return q(r.approver);
        case Note:
            return q(r.note);
        case Override:
            return q(r.overrideReason);
        case Created:
            return q(r.createdAt);
        case Published:
            return q(r.publishedAt);
        case ColumnCount:
            break;
        }
        return {};
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(index.column() == Id ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == Status) {
            if (r.status == backfill::BackfillStatus::Published)
                return QBrush(QColor(0x2e, 0x9e, 0x5b));
            if (r.status == backfill::BackfillStatus::Failed || r.validation == "failed")
                return QBrush(QColor(0xd6, 0x3b, 0x3b));
        }
        if (index.column() == Override && !r.overrideReason.empty())
            return QBrush(QColor(0xd9, 0x8c, 0x1f));
        return {};
    default:
        return {};
    }
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case Id:
        return tr("ID");
    case Kind:
        return tr("Kind");
    case Status:
        return tr("Status");
    case Window:
        return tr("Window");
    case Operator:
        return tr("Operator");
    case Approver:
        return tr("Approver");
    case Note:
        return tr("Note");
    case Override:
        return tr("Override");
    case Created:
        return tr("Created");
    case Published:
        return tr("Published");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace reprint::model
