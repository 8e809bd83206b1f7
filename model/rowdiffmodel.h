#pragma once
// The row-level diff of one partition by key, for the boundary inspector: one row per
// added, removed or changed row (changed first, then by key), with each column's old and
// new value side by side. Rows arrive in batches: canFetchMore()/fetchMore() ask the
// EngineClient for the next page, and the answer is appended with beginInsertRows.
// Never more than one page is in flight; an answer for an earlier partition is dropped.
//
// Columns: change, key, then "<column> old" and "<column> new" for each non-key column
// of the target (known once the first page has arrived: the model resets then).
//
// Thread affinity: GUI thread. The client is not owned and must outlive the model.

#include "warehouseclient.h"

#include "backfill/reviewfacts.h"

#include <QAbstractTableModel>
#include <QJsonObject>

namespace reprint::model {

class EngineClient;

class RowDiffModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Role {
        ChangeRole = Qt::UserRole + 1,  // QString: added | removed | changed
        CellChangedRole,                // bool: this column's old and new differ
        ColumnNameRole,                 // QString: the target column of a value cell (headerData too)
        SideRole,                       // QString: "old" | "new" on value cells (headerData too)
    };

    explicit RowDiffModel(EngineClient *client, QObject *parent = nullptr);

    // Starts over on `partition` of backfill `id`; `expected` is the diff's added + removed +
    // changed count (-1: unknown). No query runs until fetchMore().
    void setPartition(qint64 id, const QString &partition, qint64 expected);
    void clear();
    void setBatchSize(int rows) { m_batchSize = rows; }
    int batchSize() const { return m_batchSize; }
    bool isFetching() const { return m_pending != 0; }
    QString basis() const { return m_basis; }
    QStringList valueColumns() const { return m_valueColumns; }
    // The column of `name`'s old value, or -1.
    int oldColumnOf(const QString &name) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    // A batch of `rows` rows was appended (0: the diff is complete).
    void batchLoaded(int rows);
    void loadFailed(const reprint::model::DatabaseError &error);

private:
    struct Entry {
        QString change;
        QString key;
        QJsonObject oldRow, newRow;
    };
    void pageArrived(quint64 token, const backfill::RowDiffPage &page);

    EngineClient *m_client;
    qint64 m_id = 0;
    QString m_partition;
    qint64 m_expected = -1;
    int m_batchSize = 50;
    quint64 m_pending = 0;
    bool m_complete = true;
    QString m_basis;
    QStringList m_keyColumns;
    QStringList m_valueColumns;
    std::vector<Entry> m_rows;
};

} // namespace reprint::model
