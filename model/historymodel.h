#pragma once
// Every backfill (and scheduled run) of a model, newest first, as the engine's history
// reports it: id, status, window, operator, approver, note, override reason and times.
// Holds values only; EngineClient::history() fills it. Thread affinity: GUI thread.

#include "engineclient.h"

#include <QAbstractTableModel>

namespace reprint::model {

class HistoryModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Id, Kind, Status, Window, Operator, Approver, Note, Override, Created, Published, ColumnCount };
    enum Role {
        IdRole = Qt::UserRole + 1,  // qint64
        StatusRole,                 // QString
        FromRole,                   // QString: first partition of the window
        ToRole,                     // QString: last partition
    };

    explicit HistoryModel(QObject *parent = nullptr);

    void setRows(const HistoryRows &rows);
    const HistoryRows &rows() const { return m_rows; }
    // The row of backfill `id`, or -1.
    int rowOf(qint64 id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    HistoryRows m_rows;
};

} // namespace reprint::model
