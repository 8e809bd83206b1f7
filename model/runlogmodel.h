#pragma once
// The Run screen's log: engine events, PostgreSQL notices and warnings, and what the
// screen saw change in the warehouse, one line each with its time and level, oldest
// first. Columns: time, level, message.
//
// Filtering: a QSortFilterProxyModel over LevelColumn with levelFilter(minimum) shows
// that level and above. Copying: mimeData() (and text()) give the lines of the given
// indexes as "hh:mm:ss.zzz  LEVEL  message", one per line, so a view (or a proxy, which
// maps the indexes) copies what is selected.
//
// Appends are queued and applied together kCoalesceMs after the first of them (one
// rowsInserted per pass); flush() applies them now. Only the newest kMaxLines lines are
// kept (older rows are removed from the top). The model holds values only. Thread
// affinity: GUI thread.

#include <QAbstractTableModel>
#include <QDateTime>
#include <QRegularExpression>
#include <QTimer>

#include <deque>

namespace reprint::model {

class RunLogModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum class Level { Debug, Info, Notice, Warning, Error };
    enum Column { TimeColumn, LevelColumn, MessageColumn, ColumnCount };
    enum Role { LevelRole = Qt::UserRole + 1, TimestampRole };
    static constexpr int kCoalesceMs = 50;
    static constexpr int kMaxLines = 20000;

    explicit RunLogModel(QObject *parent = nullptr);

    void append(Level level, const QString &message, const QDateTime &when = QDateTime::currentDateTime());
    void flush();
    void clear();

    // "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR": the level column's text.
    static QString levelName(Level level);
    // A PostgreSQL severity ("NOTICE", "WARNING", ...) as a level.
    static Level levelOfSeverity(const QString &severity);
    // Matches the level column's text of `minimum` and every level above it.
    static QRegularExpression levelFilter(Level minimum);
    // The lines of `indexes` (each row once, in row order) as text.
    QString text(const QModelIndexList &indexes) const;
    QString text() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;

private:
    struct Line {
        QDateTime when;
        Level level = Level::Info;
        QString message;
    };
    QString lineText(const Line &line) const;

    std::deque<Line> m_lines;
    std::deque<Line> m_pending;
    QTimer m_flushTimer;
};

} // namespace reprint::model
