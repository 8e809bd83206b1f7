#pragma once
// The boundary inspector: the row-level diff of a partition by key (added, removed and
// changed counts, changes per column, and sample rows with old and new values side by
// side, changed cells highlighted, loaded in batches), and the edge view (rows within N
// minutes of the partition's edges, their instant in UTC (and in the model's timezone
// when it is not UTC), which zone the edges are in, and the partition they are filed in
// before and after the backfill).
//
// It opens on the boundary partitions of a review: the first and last of the window and
// the partition just outside each end. Outside partitions have no row diff (they are not
// staged); their edge view still shows what moves across the window's edge.
//
// Thread affinity: GUI thread. The clients are not owned and must outlive the widget.

#include "backfill/review.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;
class QSplitter;
class QTableView;
class QTableWidget;
class QCheckBox;

namespace reprint::backfill {
struct EdgeRows;
}

namespace reprint::model {
class EngineClient;
class RowDiffModel;
struct DatabaseError;
}

namespace reprint::views {

class BoundaryInspector : public QWidget {
    Q_OBJECT

public:
    BoundaryInspector(model::EngineClient *engine, QWidget *parent = nullptr);

    // Lists the review's boundary partitions and opens the first one.
    void setReview(const backfill::Review &review);
    // Opens `partition` (a name from the review); returns false when it is not one.
    bool openPartition(const QString &partition);
    QString partition() const;
    QStringList partitions() const;

    model::RowDiffModel *rowDiffModel() const { return m_rows; }
    // The counts as shown: added, removed, changed (-1 before the diff arrived).
    qint64 added() const { return m_added; }
    qint64 removed() const { return m_removed; }
    qint64 changed() const { return m_changed; }
    QTableWidget *edgeTable() const { return m_edgeTable; }
    QTableWidget *columnTable() const { return m_columnTable; }

Q_SIGNALS:
    void diffLoaded(const QString &partition);
    void edgeRowsLoaded(const QString &partition, int rows);

private:
    void buildDiffPanes(QSplitter *diffRow);
    QWidget *buildEdgePane(QWidget *parent);
    void showRowDiff(quint64 token, const backfill::RowDiff &d);
    void showEdgeRows(quint64 token, const backfill::EdgeRows &e);
    void requestEdges();
    void applyColumnFilter();
    void showError(const model::DatabaseError &error);

    model::EngineClient *m_engine;
    model::RowDiffModel *m_rows;
    backfill::Review m_review;
    quint64 m_diffToken = 0;
    quint64 m_edgeToken = 0;
    qint64 m_added = -1, m_removed = -1, m_changed = -1;
    QStringList m_changedColumns;

    QComboBox *m_partitionBox = nullptr;
    QLabel *m_placeLabel = nullptr;
    QLabel *m_addedLabel = nullptr;
    QLabel *m_removedLabel = nullptr;
    QLabel *m_changedLabel = nullptr;
    QLabel *m_diffNote = nullptr;
    QTableWidget *m_columnTable = nullptr;
    QTableView *m_sampleView = nullptr;
    QCheckBox *m_onlyChanged = nullptr;
    QLabel *m_loadedLabel = nullptr;
    QSpinBox *m_minutes = nullptr;
    QLabel *m_edgeNote = nullptr;
    QLabel *m_zoneNote = nullptr;  // which zone the partition's edges are in
    QTableWidget *m_edgeTable = nullptr;
};

} // namespace reprint::views
