#pragma once
// The totals table of a stored review: one row per partition the engine reviewed (the
// window and the partition just outside each end), in partition order, then one totals
// row for the window. Columns: the partition, where it lies (window, boundary, outside),
// then for the row count and each measure: old, new, delta, delta %, source, verdict.
//
// Display text is in the locale's number format with the precision the measure's stored
// values need; Qt::EditRole / ValueRole give the number (a double) for sorting and charts,
// an invalid QVariant where there is none. Verdicts are words (with a symbol); colour only
// repeats them.
//
// The model holds values only; it never queries. Thread affinity: GUI thread.

#include "backfill/review.h"

#include <QAbstractTableModel>
#include <QLocale>

namespace reprint::model {

class ReviewModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Role {
        ValueRole = Qt::UserRole + 1,  // double; partition column: start as ms since epoch
        SortRole,                      // what the proxy sorts by
        VerdictRole,                   // int(backfill::Verdict) of the cell's measure (the row's worst on fixed columns)
        PlaceRole,                     // int(Place) of the row
        ProblemRole,                   // bool: the row needs the reviewer's attention
        ChangedRole,                   // bool: some measure's old and new differ
        TotalsRole,                    // bool: the totals row
        MeasureRole,                   // QString: the column's measure (headerData too); empty on fixed columns
        FieldRole,                     // int(Field) of the column (headerData too); -1 on fixed columns
        PartitionRole,                 // QString: the partition's name
    };
    enum class Field { Old, New, Delta, DeltaPercent, Source, Verdict };
    enum class Place { Window, Boundary, Outside, Totals };
    static constexpr int kFixedColumns = 2;  // partition, place
    static constexpr int kFieldsPerMeasure = 6;

    explicit ReviewModel(QObject *parent = nullptr);

    void setReview(const backfill::Review &review);
    const backfill::Review &review() const { return m_review; }
    // Formats numbers with `locale` (default: QLocale()).
    void setLocale(const QLocale &locale);

    QStringList measures() const { return m_measures; }
    int columnFor(int measure, Field field) const { return kFixedColumns + measure * kFieldsPerMeasure + int(field); }
    // Rows before the totals row.
    int partitionCount() const { return int(m_review.partitions.size()); }
    int totalsRow() const { return partitionCount(); }
    // Counts of each verdict over the window's partitions and measures (index: int(Verdict)).
    std::array<int, 4> verdictCounts(bool inScope) const;
    bool outsideClean() const;

    static QString verdictLabel(backfill::Verdict verdict);
    static QString placeLabel(Place place);

    // The cells of `indexes` (any model's) as tab-separated text: a header line, then one
    // line per row, columns in view order as given; numbers as displayed.
    static QString toTsv(const QModelIndexList &indexes);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Cell {
        std::optional<double> oldValue, newValue, source;
        backfill::Verdict verdict = backfill::Verdict::Unchanged;
    };
    struct Row {
        QString partition;
        qint64 startMs = 0;
        Place place = Place::Window;
        std::vector<Cell> cells;  // per measure
        backfill::Verdict worst = backfill::Verdict::Unchanged;
        bool changed = false;
        bool problem = false;
    };
    void rebuild();
    QVariant fieldValue(const Row &row, int measure, Field field) const;
    QString formatted(const QVariant &value, int measure, Field field) const;
    // data() for the Partition and Where columns, and for a measure's field.
    QVariant partitionColumnData(const Row &row, int column, int role) const;
    QVariant measureColumnData(const Row &row, int measure, Field field, int role) const;

    backfill::Review m_review;
    QStringList m_measures;
    std::vector<int> m_decimals;  // per measure
    std::vector<Row> m_rows;      // partitions, then totals
    QLocale m_locale;
};

} // namespace reprint::model
