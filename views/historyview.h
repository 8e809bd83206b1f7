#pragma once
// Every backfill of a model: status, window, operator, approver, note, override and
// times, filtered by status and by a partition the window must contain. Activating a row
// asks for its review (reopened read-only unless it can still be published).
//
// Thread affinity: GUI thread. The engine client is not owned and must outlive the view.

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace reprint::model {
class EngineClient;
class HistoryModel;
}

namespace reprint::views {

class HistoryView : public QWidget {
    Q_OBJECT

public:
    explicit HistoryView(model::EngineClient *engine, QWidget *parent = nullptr);

    // Loads the history of `model` (all models when empty).
    void refresh(const QString &model);
    model::HistoryModel *historyModel() const { return m_model; }
    QTableView *table() const { return m_table; }
    void setStatusFilter(const QString &status);   // empty: every status
    void setPartitionFilter(const QString &partition);

Q_SIGNALS:
    void backfillActivated(qint64 id);
    void historyLoaded(int rows);

private:
    model::EngineClient *m_engine;
    model::HistoryModel *m_model;
    class Filter;
    Filter *m_filter;
    QString m_modelName;
    quint64 m_token = 0;
    QComboBox *m_status = nullptr;
    QLineEdit *m_partition = nullptr;
    QLabel *m_note = nullptr;
    QTableView *m_table = nullptr;
};

} // namespace reprint::views
