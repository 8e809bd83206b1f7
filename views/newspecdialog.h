#pragma once
// File › New Spec…: pick a table of the connected warehouse (read from its catalog), check
// what Reprint proposes for it (backfill::proposeDraft: the partition column, grain and
// timezone, the key, the measures, each with why), edit it, and write the spec YAML and a
// transform stub to a folder. The window then opens the spec (specWritten()).
//
// Thread affinity: GUI thread. The catalog is read on a WarehouseCatalogClient's I/O
// thread; the dialog never waits on the database (the fields are disabled until the
// answer arrives). Writing the two small files happens on the GUI thread.
//
// Secrets: the conninfo may hold a password; it is given to the client only. The spec's
// warehouse: line is written without it, and no label shows it.

#include "backfill/specdraft.h"

#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace reprint::model {
class WarehouseCatalogClient;
struct DatabaseError;
}

namespace reprint::views {

class NewSpecDialog : public QDialog {
    Q_OBJECT

public:
    explicit NewSpecDialog(const QString &conninfo, QWidget *parent = nullptr);
    ~NewSpecDialog() override;

    // Where the spec is written (a folder; default: the last one used, else the home).
    void setFolder(const QString &dir);
    QString folder() const;
    // Chooses `schema.table` (as the list shows it, unquoted) once the list is in.
    bool selectTable(const QString &schemaDotTable);
    // The draft as the fields say now.
    backfill::SpecDraft draft() const;
    // The status line (what is loading, or the first problem, or the error).
    QString statusText() const;
    QString writtenSpec() const { return m_written; }

    void accept() override;

Q_SIGNALS:
    void tablesLoaded(int count);
    void proposalShown();
    void specWritten(const QString &path);

private:
    void showTables(const std::vector<backfill::CatalogTable> &tables);
    void readSelectedTable();
    void showProposal(const backfill::SpecDraft &proposal);
    void showFailure(const model::DatabaseError &error);
    void updateProblems();
    void chooseFolder();

    QString m_conninfo;
    model::WarehouseCatalogClient *m_client = nullptr;
    backfill::SpecDraft m_proposal;
    quint64 m_listToken = 0;
    quint64 m_readToken = 0;
    QString m_written;
    bool m_filling = false;

    QComboBox *m_table = nullptr;
    QLineEdit *m_name = nullptr;
    QComboBox *m_partition = nullptr;
    QComboBox *m_grain = nullptr;
    QComboBox *m_timezone = nullptr;
    QListWidget *m_key = nullptr;
    QListWidget *m_measures = nullptr;
    QLabel *m_notes = nullptr;
    QLineEdit *m_folder = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_write = nullptr;
    QWidget *m_fields = nullptr;
};

} // namespace reprint::views
