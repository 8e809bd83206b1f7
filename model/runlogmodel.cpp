#include "runlogmodel.h"

#include <QBrush>
#include <QColor>
#include <QFontDatabase>
#include <QMimeData>

#include <set>

namespace reprint::model {

RunLogModel::RunLogModel(QObject *parent)
    : QAbstractTableModel(parent)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(kCoalesceMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &RunLogModel::flush);
}

void RunLogModel::append(Level level, const QString &message, const QDateTime &when)
{
    m_pending.push_back({when, level, message.simplified()});
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void RunLogModel::flush()
{
    m_flushTimer.stop();
    if (m_pending.empty())
        return;
    while (m_pending.size() > std::size_t(kMaxLines))
        m_pending.pop_front();
    const int overflow = int(m_lines.size() + m_pending.size()) - kMaxLines;
    if (overflow > 0) {
        beginRemoveRows({}, 0, overflow - 1);
        m_lines.erase(m_lines.begin(), m_lines.begin() + overflow);
        endRemoveRows();
    }
    const int first = int(m_lines.size());
    beginInsertRows({}, first, first + int(m_pending.size()) - 1);
    m_lines.insert(m_lines.end(), m_pending.begin(), m_pending.end());
    m_pending.clear();
    endInsertRows();
}

void RunLogModel::clear()
{
    m_flushTimer.stop();
    m_pending.clear();
    beginResetModel();
    m_lines.clear();
    endResetModel();
}

QString RunLogModel::levelName(Level level)
{
    switch (level) {
    case Level::Debug: return QStringLiteral("DEBUG");
    case Level::Info: return QStringLiteral("INFO");
    case Level::Notice: return QStringLiteral("NOTICE");
    case Level::Warning: return QStringLiteral("WARNING");
    case Level::Error: return QStringLiteral("ERROR");
    }
    return {};
}

RunLogModel::Level RunLogModel::levelOfSeverity(const QString &severity)
{
    const QString s = severity.toUpper();
    if (s == QLatin1String("DEBUG") || s == QLatin1String("LOG"))
        return Level::Debug;
    if (s == QLatin1String("INFO"))
        return Level::Info;
    if (s == QLatin1String("NOTICE"))
        return Level::Notice;
    if (s == QLatin1String("WARNING"))
        return Level::Warning;
    return Level::Error;
}

QRegularExpression RunLogModel::levelFilter(Level minimum)
{
    QStringList names;
    for (int l = int(minimum); l <= int(Level::Error); ++l)
        names << levelName(Level(l));
    return QRegularExpression(QStringLiteral("^(%1)$").arg(names.join(QLatin1Char('|'))));
}

QString RunLogModel::lineText(const Line &line) const
{
    return line.when.toString(QStringLiteral("HH:mm:ss.zzz")) + QStringLiteral("  ") + levelName(line.level).leftJustified(7)
        + QStringLiteral("  ") + line.message;
}

QString RunLogModel::text(const QModelIndexList &indexes) const
{
    std::set<int> rows;
    for (const QModelIndex &i : indexes)
        if (i.isValid() && i.model() == this)
            rows.insert(i.row());
    QStringList out;
    for (int row : rows)
        out << lineText(m_lines[std::size_t(row)]);
    return out.join(QLatin1Char('\n'));
}

QString RunLogModel::text() const
{
    QStringList out;
    for (const Line &line : m_lines)
        out << lineText(line);
    return out.join(QLatin1Char('\n'));
}

int RunLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_lines.size());
}

int RunLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Line &line = m_lines[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case TimeColumn: return line.when.toString(QStringLiteral("HH:mm:ss.zzz"));
        case LevelColumn: return levelName(line.level);
        case MessageColumn: return line.message;
        }
        return {};
    case Qt::ToolTipRole:
        return index.column() == MessageColumn ? QVariant(line.message) : QVariant();
    case LevelRole:
        return int(line.level);
    case TimestampRole:
        return line.when;
    case Qt::ForegroundRole:
        if (index.column() == LevelColumn || line.level >= Level::Warning) {
            switch (line.level) {
            case Level::Error: return QBrush(QColor(0xd6, 0x45, 0x45));
            case Level::Warning: return QBrush(QColor(0xd9, 0x9a, 0x1e));
            case Level::Notice: return QBrush(QColor(0x3b, 0x82, 0xd6));
            default: return {};
            }
        }
        return {};
    case Qt::FontRole:
        if (index.column() == TimeColumn)
            return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        return {};
    }
    return {};
}

QVariant RunLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TimeColumn: return tr("Time");
    case LevelColumn: return tr("Level");
    case MessageColumn: return tr("Message");
    }
    return {};
}

Qt::ItemFlags RunLogModel::flags(const QModelIndex &index) const
{
    return QAbstractTableModel::flags(index) | (index.isValid() ? Qt::ItemIsDragEnabled : Qt::NoItemFlags);
}

QStringList RunLogModel::mimeTypes() const
{
    return {QStringLiteral("text/plain")};
}

QMimeData *RunLogModel::mimeData(const QModelIndexList &indexes) const
{
    auto *mime = new QMimeData;
    mime->setText(text(indexes));
    return mime;
}

} // namespace reprint::model
