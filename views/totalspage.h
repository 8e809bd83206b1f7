#pragma once
// The review's Totals tab: the old/new totals table of every partition (filters: all,
// changed, problems only; sorting; copy as TSV; the partition and where columns stay put
// while the measures scroll sideways) above the review's chart. The measures shown side by
// side are the user's choice, else as many as fit the table's width (those with problems or
// changes first); the measures charted are chosen from a menu of their own.
//
// It reads the review model through the proxy the screen gives it (neither owned); it never
// queries. Double-clicking a partition asks for its boundary inspector (partitionActivated).
//
// Thread affinity: GUI thread.

#include <QList>
#include <QStringList>
#include <QWidget>

#include <vector>

class QButtonGroup;
class QChartView;
class QLabel;
class QLayout;
class QTableView;
class QToolButton;

namespace reprint::model {
class ReviewModel;
class ReviewProxyModel;
}

namespace reprint::views {

class ReviewChart;

class TotalsPage : public QWidget {
    Q_OBJECT

public:
    // `proxy` sorts and filters `model`, the review's totals.
    TotalsPage(model::ReviewModel *model, model::ReviewProxyModel *proxy, QWidget *parent = nullptr);

    // The model now holds the review of a backfill of model `modelName`: sorts it as the
    // table was sorted, sizes the columns to it and shows the measures the user chose for
    // that model (else as many as fit), and charts the measures charted before.
    void showReview(const QString &modelName);

    QTableView *table() const { return m_table; }
    QToolButton *measuresButton() const { return m_measuresButton; }
    QToolButton *chartButton() const { return m_chartButton; }

    // Copies the selected cells (else the whole table) as TSV to the clipboard, and
    // returns the text.
    QString copySelection();
    // The measures whose columns the table shows, in the review's order. Setting them is
    // the user's choice (kept for the model's later backfills); an empty list, or one with
    // no measure of the review, goes back to as many as fit the width.
    QStringList shownMeasures() const { return m_shownMeasures; }
    void setShownMeasures(const QStringList &measures);
    // The measures charted, one chart each, side by side (at least one).
    void setChartMeasures(const QStringList &measures);
    QStringList chartMeasures() const { return m_chartMeasures; }
    QList<QChartView *> chartViews() const;

Q_SIGNALS:
    void partitionActivated(const QString &partition);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QLayout *buildBar();
    QWidget *buildTable(QWidget *parent);
    void updateRowsNote();
    void rebuildMeasureMenus();
    void applyShownMeasures(const QStringList &measures);
    // As many measures as fit the table's width: those with problems or changes first.
    QStringList measuresThatFit() const;

    model::ReviewModel *m_model;
    model::ReviewProxyModel *m_proxy;
    QStringList m_chartMeasures;
    QStringList m_shownMeasures;
    bool m_measuresChosen = false;  // the user picked the table's measures (for m_measuresModel)
    QString m_measuresModel;
    std::vector<int> m_columnWidths;  // the table's columns as sized to their contents

    QButtonGroup *m_filterGroup = nullptr;
    QToolButton *m_measuresButton = nullptr;
    QToolButton *m_chartButton = nullptr;
    QLabel *m_rowsNote = nullptr;
    QTableView *m_table = nullptr;
    ReviewChart *m_chart = nullptr;
};

} // namespace reprint::views
