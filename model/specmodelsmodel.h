#pragma once
// The models of a spec file, one row each, for the sidebar and the model's detail page.
//
// Thread affinity: GUI thread (an item model). load() reads the spec and its SQL files
// synchronously: they are local files named by the user, not the database.
//
// The connection-state role is the same for every row: the state of the warehouse
// connection that the spec's models live in, as set by setConnectionState().

#include <QAbstractListModel>
#include <QString>
#include <QStringList>

#include <vector>

namespace reprint::backfill {
struct Spec;
}

namespace reprint::model {

class SpecModelsModel : public QAbstractListModel {
    Q_OBJECT

public:
    enum Role {
        NameRole = Qt::UserRole + 1,
        TargetRole,           // "schema.table"
        GrainRole,            // "hour", "day", "week" or "month"
        TimezoneRole,         // IANA name
        PartitionColumnRole,
        KeyRole,              // QStringList
        MeasuresRole,         // QStringList of the declared measures ("rows" is implicit)
        ChecksRole,           // QVariantList of QVariantMap {name, measure, tolerance, source}
        ChecksCountRole,      // int
        DependsOnRole,        // QStringList
        TransformFileRole,    // absolute path
        ConnectionStateRole,  // ConnectionState
    };
    Q_ENUM(Role)

    enum class ConnectionState { Disconnected, Connecting, Connected, Failed };
    Q_ENUM(ConnectionState)

    explicit SpecModelsModel(QObject *parent = nullptr);
    ~SpecModelsModel() override;

    // Loads the spec at `path` and replaces the rows (a model reset). On failure the rows
    // are kept, false is returned and *error holds the loader's
    // "file:line:col: key: message".
    bool load(const QString &path, QString *error = nullptr);
    // Replaces the rows with the models of an already loaded spec (a model reset).
    void setSpec(const backfill::Spec &spec);
    void clear();

    QString specPath() const { return m_specPath; }
    // The spec's `warehouse:` conninfo, empty when the spec gives none. May hold a
    // password: never display it (see WarehouseClient::displayConninfo()).
    QString warehouse() const { return m_warehouse; }

    ConnectionState connectionState() const { return m_connectionState; }
    // Emits dataChanged for ConnectionStateRole on every row.
    void setConnectionState(ConnectionState state);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

private:
    struct Check {
        QString name;
        QString measure;
        double tolerance = 0;
        QString source;
    };
    struct Entry {
        QString name;
        QString target;
        QString grain;
        QString timezone;
        QString partitionColumn;
        QStringList key;
        QStringList measures;
        QList<Check> checks;
        QStringList dependsOn;
        QString transformFile;
    };
    std::vector<Entry> m_entries;
    QString m_specPath;
    QString m_warehouse;
    ConnectionState m_connectionState = ConnectionState::Disconnected;
};

} // namespace reprint::model
