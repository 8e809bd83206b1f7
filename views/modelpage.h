#pragma once
// The Model tab's page of one model of the spec: its name, target, partitioning, timezone,
// key, measures, what it depends on, its transform file and its checks (each with its
// measure, tolerance and source query file). The values are selectable labels named
// "<row>Value" ("targetValue", "timezoneValue", ...); the checks are the tree "checks",
// as tall as its rows.
//
// It shows a row of the spec's models list (model::SpecModelsModel); it reads nothing
// itself. Thread affinity: GUI thread.

#include <QWidget>

class QFormLayout;
class QLabel;
class QModelIndex;
class QTreeWidget;

namespace reprint::views {

class ModelPage : public QWidget {
    Q_OBJECT

public:
    explicit ModelPage(QWidget *parent = nullptr);

    // `index`: a row of model::SpecModelsModel.
    void showModel(const QModelIndex &index);

private:
    void showChecks(const QVariantList &checks);
    QLabel *value(const char *name) const;

    QLabel *m_title = nullptr;
    QLabel *m_subtitle = nullptr;
    QFormLayout *m_form = nullptr;
    QTreeWidget *m_checks = nullptr;
};

} // namespace reprint::views
